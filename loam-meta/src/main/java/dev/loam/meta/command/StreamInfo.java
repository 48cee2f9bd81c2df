package dev.loam.meta.command;

/** A stream as the metastore knows it; {@code id} is cluster-unique and never reused. */
public record StreamInfo(long id, String namespace, String name, StreamConfig config) {}
