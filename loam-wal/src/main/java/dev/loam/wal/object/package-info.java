/**
 * WAL object format v1: builder and validating reader for the objects log nodes flush to object
 * storage (docs/formats/wal-object-v1.md). Pure, I/O-free.
 */
package dev.loam.wal.object;
