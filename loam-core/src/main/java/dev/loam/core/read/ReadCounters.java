package dev.loam.core.read;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counters of a node's read path, one per tier (stream-engine.txt §6 step 2): loads served by the
 * tail cache, by the disk cache, by an object-store GET, and loads that joined a GET (or disk read)
 * already in flight for the same bytes. Thread-safe.
 */
public final class ReadCounters {
  private final LongAdder tailHits = new LongAdder();
  private final LongAdder diskHits = new LongAdder();
  private final LongAdder diskMisses = new LongAdder();
  private final LongAdder diskCorrupt = new LongAdder();
  private final LongAdder diskWrites = new LongAdder();
  private final LongAdder diskEvictions = new LongAdder();
  private final LongAdder objectGets = new LongAdder();
  private final LongAdder objectGetBytes = new LongAdder();
  private final LongAdder objectGetRetries = new LongAdder();
  private final LongAdder coalescedWaits = new LongAdder();
  private final LongAdder segmentIndexGets = new LongAdder();
  private final LongAdder segmentIndexHits = new LongAdder();
  private final LongAdder walMergedGets = new LongAdder();
  private final LongAdder walMergedRanges = new LongAdder();
  private final LongAdder walReadAheadHits = new LongAdder();
  private final LongAdder walReadAheadEvictions = new LongAdder();
  private volatile LongSupplier walReadAheadBytes = () -> 0;
  private volatile LongSupplier diskBytes = () -> 0;
  private volatile LongSupplier diskEntries = () -> 0;

  void tailHit() {
    tailHits.increment();
  }

  void diskHit() {
    diskHits.increment();
  }

  void diskMiss() {
    diskMisses.increment();
  }

  void diskCorruptFound() {
    diskCorrupt.increment();
  }

  void diskWrite() {
    diskWrites.increment();
  }

  void diskEvictions(int n) {
    diskEvictions.add(n);
  }

  void objectGet(long bytes) {
    objectGets.increment();
    objectGetBytes.add(bytes);
  }

  void objectGetRetry() {
    objectGetRetries.increment();
  }

  void coalescedWait() {
    coalescedWaits.increment();
  }

  void segmentIndexGet(long bytes) {
    segmentIndexGets.increment();
    objectGetBytes.add(bytes);
  }

  void segmentIndexHit() {
    segmentIndexHits.increment();
  }

  void walMergedGet(int ranges) {
    walMergedGets.increment();
    walMergedRanges.add(ranges);
  }

  void walReadAheadHit() {
    walReadAheadHits.increment();
  }

  void walReadAheadEvictions(int n) {
    walReadAheadEvictions.add(n);
  }

  void walReadAheadGauge(LongSupplier bytes) {
    this.walReadAheadBytes = bytes;
  }

  void diskGauges(LongSupplier bytes, LongSupplier entries) {
    this.diskBytes = bytes;
    this.diskEntries = entries;
  }

  /** Loads served whole from the in-memory tail cache. */
  public long tailHits() {
    return tailHits.sum();
  }

  /** Loads served from the local disk cache. */
  public long diskHits() {
    return diskHits.sum();
  }

  /** Disk-cache lookups that found nothing usable (0 while the disk cache is off). */
  public long diskMisses() {
    return diskMisses.sum();
  }

  /** Disk-cache files that failed their check (header or CRC32C) and were deleted. */
  public long diskCorrupt() {
    return diskCorrupt.sum();
  }

  /** Ranges written to the disk cache. */
  public long diskWrites() {
    return diskWrites.sum();
  }

  /** Disk-cache entries evicted to keep the byte bound. */
  public long diskEvictions() {
    return diskEvictions.sum();
  }

  /** Ranged GETs sent to the object store by the read path (WAL objects and segments). */
  public long objectGets() {
    return objectGets.sum();
  }

  /** Bytes returned by those GETs. */
  public long objectGetBytes() {
    return objectGetBytes.sum();
  }

  /** GETs repeated after the store refused them as transient (throttling, 5xx, reset). */
  public long objectGetRetries() {
    return objectGetRetries.sum();
  }

  /** Loads that shared a GET (or disk read) already in flight instead of starting their own. */
  public long coalescedWaits() {
    return coalescedWaits.sum();
  }

  /**
   * GETs of segment footers and batch indexes (a suffix GET, and one more for a large index); their
   * bytes count in {@link #objectGetBytes()}, the GETs not in {@link #objectGets()}.
   */
  public long segmentIndexGets() {
    return segmentIndexGets.sum();
  }

  /** Uses of a segment's batch index that found it parsed in memory (or being loaded). */
  public long segmentIndexHits() {
    return segmentIndexHits.sum();
  }

  /** GETs of a WAL object that served several ranges at once (counted in {@link #objectGets()}). */
  public long walMergedGets() {
    return walMergedGets.sum();
  }

  /** Ranges served by those merged GETs. */
  public long walMergedRanges() {
    return walMergedRanges.sum();
  }

  /**
   * WAL ranges served from read-ahead bytes (a recently read WAL object kept in memory, or the
   * read-ahead GET of their object that was in flight) without a GET of their own.
   */
  public long walReadAheadHits() {
    return walReadAheadHits.sum();
  }

  /** WAL objects evicted from the read-ahead memory to keep its byte bound. */
  public long walReadAheadEvictions() {
    return walReadAheadEvictions.sum();
  }

  /** Bytes of WAL objects the read-ahead memory holds now. */
  public long walReadAheadBytes() {
    return walReadAheadBytes.getAsLong();
  }

  /** Bytes the disk cache holds now (files, headers included). */
  public long diskCacheBytes() {
    return diskBytes.getAsLong();
  }

  /** Ranges the disk cache holds now (0 until its start-up scan ends). */
  public long diskCacheEntries() {
    return diskEntries.getAsLong();
  }

  @Override
  public String toString() {
    return "ReadCounters[tailHits="
        + tailHits()
        + " diskHits="
        + diskHits()
        + " diskMisses="
        + diskMisses()
        + " diskCorrupt="
        + diskCorrupt()
        + " objectGets="
        + objectGets()
        + " objectGetRetries="
        + objectGetRetries()
        + " coalescedWaits="
        + coalescedWaits()
        + " segmentIndexGets="
        + segmentIndexGets()
        + " segmentIndexHits="
        + segmentIndexHits()
        + " walMergedGets="
        + walMergedGets()
        + " walMergedRanges="
        + walMergedRanges()
        + " walReadAheadHits="
        + walReadAheadHits()
        + " walReadAheadBytes="
        + walReadAheadBytes()
        + " walReadAheadEvictions="
        + walReadAheadEvictions()
        + " diskCacheBytes="
        + diskCacheBytes()
        + "]";
  }

  /** The counters as they are now, as the immutable value {@link dev.loam.api.LoamNode} returns. */
  public dev.loam.api.ReadStats snapshot() {
    return new dev.loam.api.ReadStats(
        tailHits(),
        diskHits(),
        diskMisses(),
        diskCorrupt(),
        diskWrites(),
        diskEvictions(),
        objectGets(),
        objectGetBytes(),
        coalescedWaits(),
        segmentIndexGets(),
        segmentIndexHits(),
        walMergedGets(),
        walMergedRanges(),
        walReadAheadHits(),
        walReadAheadEvictions(),
        walReadAheadBytes(),
        diskCacheBytes(),
        diskCacheEntries(),
        objectGetRetries());
  }
}
