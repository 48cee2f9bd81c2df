package dev.loam.meta.command;

/**
 * An object (WAL object or segment) that no index entry references any more, since {@code
 * retiredAtMillis} (metastore clock). GC deletes it after a grace period, then confirms with
 * DeleteObjects.
 */
public record RetiredObject(String objectKey, long retiredAtMillis) {}
