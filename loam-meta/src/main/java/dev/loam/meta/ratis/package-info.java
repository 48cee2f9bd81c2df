/**
 * The replicated metastore on Apache Ratis (docs/design/metastore-ratis.md): the same {@code
 * MetaStateMachine} as the embedded metastore, run inside a Ratis state machine on 3 or 5 voters
 * (plus optional non-voting listeners). Ratis types never leave this package. Ratis is an optional
 * dependency of loam-meta: a host that runs this metastore depends on {@code
 * dev.loam:loam-meta-ratis}, which brings it; without it, creating {@link RatisSettings} fails
 * INVALID naming that artifact.
 */
package dev.loam.meta.ratis;
