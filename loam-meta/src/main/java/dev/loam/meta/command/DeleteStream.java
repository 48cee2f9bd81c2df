package dev.loam.meta.command;

/**
 * Deletes a stream: its name becomes free, its id is never reused, and later commits to its
 * partitions get UNKNOWN_PARTITION.
 */
public record DeleteStream(Origin origin, String namespace, String name) implements Command {}
