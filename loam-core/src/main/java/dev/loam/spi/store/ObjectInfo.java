package dev.loam.spi.store;

/** What {@link ObjectStore#head} and {@link ObjectStore#list} know of one object. */
public record ObjectInfo(String key, long size, long lastModifiedMillis) {}
