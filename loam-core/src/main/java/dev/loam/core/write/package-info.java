/**
 * The leaderless write path (stream-engine.txt §3): buffering appends of every partition for a
 * flush interval, writing them as one WAL object with create-if-absent, and committing that object
 * in one metastore command.
 *
 * <p>Internal to loam-core: the types are public only so the node's subsystems can reach each other
 * across packages; nothing outside loam-core may use them (the build bans it), and their signatures
 * change without notice.
 */
package dev.loam.core.write;
