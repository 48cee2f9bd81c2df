/**
 * The replicated metastore on Apache Ratis (docs/design/metastore-ratis.md): the same {@code
 * MetaStateMachine} as the embedded metastore, run inside a Ratis state machine on 3 or 5 voters
 * (plus optional non-voting listeners). Ratis types never leave this package.
 */
package dev.loam.meta.ratis;
