package dev.loam.api;

/**
 * A snapshot of a node's write-path counters ({@link LoamNode#writerStats()}), for metrics and
 * reports. The counts only grow while the node runs (two snapshots subtract to a rate); the means
 * are over the node's whole life. A flush is counted before the appends it carried are answered.
 *
 * @param puts PUT attempts made.
 * @param putBytes Bytes sent in PUT attempts.
 * @param commits Commit proposals made.
 * @param flushes WAL objects committed.
 * @param meanPutMillis Mean PUT latency in ms, or 0.
 * @param meanCommitMillis Mean commit latency in ms, or 0.
 * @param meanBatchesPerFlush Mean batches per WAL object, or 0.
 */
public record WriterStats(
    long puts,
    long putBytes,
    long commits,
    long flushes,
    double meanPutMillis,
    double meanCommitMillis,
    double meanBatchesPerFlush) {}
