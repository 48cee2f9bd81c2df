/**
 * The read path (stream-engine.txt §6): the tail cache, the local disk cache, ranged and merged
 * GETs of WAL objects and segments, segment indexes, and the long-poll waiters woken by applied
 * commits.
 *
 * <p>Internal to loam-core: the types are public only so the node's subsystems can reach each other
 * across packages; nothing outside loam-core may use them (the build bans it), and their signatures
 * change without notice.
 */
package dev.loam.core.read;
