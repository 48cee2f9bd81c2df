/**
 * Stream ownership (ownership-and-routing.txt): claiming the streams placement gives this node,
 * liveness, transfers, and routing a request to a stream's owner.
 *
 * <p>Internal to loam-core: the types are public only so the node's subsystems can reach each other
 * across packages; nothing outside loam-core may use them (the build bans it), and their signatures
 * change without notice.
 */
package dev.loam.core.ownership;
