/** ULIDs naming WAL objects, with a deterministic generator (docs/formats/ulid.md). */
package dev.loam.wal.ulid;
