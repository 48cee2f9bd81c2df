package dev.loam.spi.store;

/** One key of a batch delete that failed, with the reason. */
public record DeleteFailure(String key, ObjectStoreException error) {}
