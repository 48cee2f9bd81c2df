/**
 * The deterministic metastore state machine: what every replica applies, and its snapshots
 * (docs/design/metastore.md, docs/formats/metastore-snapshot.md).
 *
 * <p>{@link dev.loam.meta.state.MetaStateMachine} is the one public class. The state lives in
 * tables that keep their own maps consistent and write their own snapshot sections (the catalog of
 * namespaces and streams, the object ledger, the dedupe ledger, the consumer table, the ownership
 * table); the commit rules sit next to them by spec section (the sequencer, segments and retention,
 * nodes and ownership), not one class per command.
 */
package dev.loam.meta.state;
