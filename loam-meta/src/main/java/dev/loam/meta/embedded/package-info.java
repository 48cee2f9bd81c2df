/**
 * The single-node durable metastore: a local command log plus snapshots (docs/design/metastore.md).
 */
package dev.loam.meta.embedded;
