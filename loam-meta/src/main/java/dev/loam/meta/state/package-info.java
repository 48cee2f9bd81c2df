/**
 * The deterministic metastore state machine: what every replica applies, and its snapshots
 * (docs/metastore.md, docs/formats/metastore-snapshot.md).
 */
package dev.loam.meta.state;
