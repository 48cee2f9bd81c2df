/**
 * Envelope encryption in the node: namespace key-encryption keys, their key files in the store, and
 * the {@link dev.loam.wal.object.KeyResolver} that opens sealed WAL chunks (docs/security.md, "Data
 * at rest").
 */
package dev.loam.core.crypto;
