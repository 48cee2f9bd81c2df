package dev.loam.api;

/**
 * A snapshot of a node's read-path counters, one per tier (stream-engine.txt §6 step 2), as {@link
 * LoamNode#readStats()} returns it: loads served by the tail cache, the disk cache and object-store
 * GETs, and loads that joined a read already in flight. Counters only grow while the node runs.
 *
 * @param tailHits Loads served whole from the in-memory tail cache.
 * @param diskHits Loads served from the local disk cache.
 * @param diskMisses Disk-cache lookups that found nothing usable (0 while the disk cache is off).
 * @param diskCorrupt Disk-cache files that failed their check (header or CRC32C) and were deleted.
 * @param diskWrites Ranges written to the disk cache.
 * @param diskEvictions Disk-cache entries evicted to keep the byte bound.
 * @param objectGets Ranged GETs sent to the object store by the read path (WAL objects and
 *     segments).
 * @param objectGetBytes Bytes returned by those GETs.
 * @param coalescedWaits Loads that shared a GET (or disk read) already in flight instead of
 *     starting their own.
 * @param segmentIndexGets GETs of segment footers and batch indexes (a suffix GET, and one more for
 *     a large index); their bytes count in {@link #objectGetBytes()}, the GETs not in {@link
 *     #objectGets()}.
 * @param segmentIndexHits Uses of a segment's batch index that found it parsed in memory (or being
 *     loaded).
 * @param walMergedGets GETs of a WAL object that served several ranges at once (counted in {@link
 *     #objectGets()}).
 * @param walMergedRanges Ranges served by those merged GETs.
 * @param walReadAheadHits WAL ranges served from read-ahead bytes (a recently read WAL object kept
 *     in memory, or the read-ahead GET of their object that was in flight) without a GET of their
 *     own.
 * @param walReadAheadEvictions WAL objects evicted from the read-ahead memory to keep its byte
 *     bound.
 * @param walReadAheadBytes Bytes of WAL objects the read-ahead memory holds now.
 * @param diskCacheBytes Bytes the disk cache holds now (files, headers included).
 * @param diskCacheEntries Ranges the disk cache holds now (0 until its start-up scan ends).
 * @param objectGetRetries GETs (data and segment indexes) repeated after the store refused them as
 *     transient: throttling, a 5xx, a reset connection.
 */
public record ReadStats(
    long tailHits,
    long diskHits,
    long diskMisses,
    long diskCorrupt,
    long diskWrites,
    long diskEvictions,
    long objectGets,
    long objectGetBytes,
    long coalescedWaits,
    long segmentIndexGets,
    long segmentIndexHits,
    long walMergedGets,
    long walMergedRanges,
    long walReadAheadHits,
    long walReadAheadEvictions,
    long walReadAheadBytes,
    long diskCacheBytes,
    long diskCacheEntries,
    long objectGetRetries) {}
