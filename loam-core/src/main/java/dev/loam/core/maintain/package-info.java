/**
 * The owner's background work on the log (stream-engine.txt §5): retention, the segmenter,
 * compaction of compacted streams, and GC of retired and orphaned objects, driven one bounded pass
 * at a time.
 *
 * <p>Internal to loam-core: the types are public only so the node's subsystems can reach each other
 * across packages; nothing outside loam-core may use them (the build bans it), and their signatures
 * change without notice.
 */
package dev.loam.core.maintain;
