/**
 * The node runtime: the composition root that builds a node's subsystems from its settings and
 * components (NodeRuntime), and the {@link dev.loam.api.Log} facade over them (LogService).
 *
 * <p>Internal to loam-core: the types are public only so the node's subsystems can reach each other
 * across packages; nothing outside loam-core may use them (the build bans it), and their signatures
 * change without notice.
 */
package dev.loam.core.node;
