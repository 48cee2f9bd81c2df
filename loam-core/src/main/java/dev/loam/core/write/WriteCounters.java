package dev.loam.core.write;

import java.util.concurrent.atomic.LongAdder;

/** Counters of a node's write path, for metrics and the demo summary. Thread-safe. */
public final class WriteCounters {
  private final LongAdder puts = new LongAdder();
  private final LongAdder putBytes = new LongAdder();
  private final LongAdder putMillis = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder commitMillis = new LongAdder();
  private final LongAdder flushes = new LongAdder();
  private final LongAdder flushedBatches = new LongAdder();

  void recordPut(long bytes, long millis) {
    puts.increment();
    putBytes.add(bytes);
    putMillis.add(millis);
  }

  void recordCommit(long millis) {
    commits.increment();
    commitMillis.add(millis);
  }

  void recordFlush(int batches, long bytes, long millis) {
    flushes.increment();
    flushedBatches.add(batches);
  }

  /** PUT attempts made. */
  public long puts() {
    return puts.sum();
  }

  /** Bytes sent in PUT attempts. */
  public long putBytes() {
    return putBytes.sum();
  }

  /** Commit proposals made. */
  public long commits() {
    return commits.sum();
  }

  /** WAL objects committed. */
  public long flushes() {
    return flushes.sum();
  }

  /** Mean PUT latency in ms, or 0. */
  public double meanPutMillis() {
    long n = puts.sum();
    return n == 0 ? 0 : (double) putMillis.sum() / n;
  }

  /** Mean commit latency in ms, or 0. */
  public double meanCommitMillis() {
    long n = commits.sum();
    return n == 0 ? 0 : (double) commitMillis.sum() / n;
  }

  /** Mean batches per WAL object, or 0. */
  public double meanBatchesPerFlush() {
    long n = flushes.sum();
    return n == 0 ? 0 : (double) flushedBatches.sum() / n;
  }

  /** The counters as they are now, as the immutable value {@link dev.loam.api.LoamNode} returns. */
  public dev.loam.api.WriterStats snapshot() {
    return new dev.loam.api.WriterStats(
        puts(),
        putBytes(),
        commits(),
        flushes(),
        meanPutMillis(),
        meanCommitMillis(),
        meanBatchesPerFlush());
  }
}
