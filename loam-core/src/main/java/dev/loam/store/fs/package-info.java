/**
 * The embedded default {@link dev.loam.spi.store.ObjectStore}: one directory on a local filesystem,
 * safe to share between processes. Layout and guarantees: {@code docs/reference/object-store.md}.
 */
package dev.loam.store.fs;
