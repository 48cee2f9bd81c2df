package dev.loam.core.quorum;

import dev.loam.api.BatchFetchResult;
import dev.loam.api.FetchResult;
import dev.loam.api.OffsetSpec;
import dev.loam.core.read.Fetcher;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.PartitionInfo;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Reads of a quorum partition's sealed offsets (docs/design/quorum.md "Reads"): below its journal's
 * sealed offset a partition's data is in segment objects that the metastore's offset index points
 * at, so those reads go through the ordinary read path (the {@link Fetcher}, its caches and ranged
 * GETs), and only the high watermark comes from the journal. The sealer commits a segment into the
 * index before the journal drops the range from its tail, so an offset the journal answers as
 * sealed is in the index on the metastore's leader; a replica of the metastore that has not applied
 * that commit yet is caught up first ({@link Metastore#awaitLatest}).
 */
final class SealedReads {
  private final Metastore meta;
  private final Fetcher fetcher;

  SealedReads(Metastore meta, Fetcher fetcher) {
    this.meta = meta;
    this.fetcher = fetcher;
  }

  /** The partition's offset-index bounds on this node's metastore replica. */
  PartitionInfo bounds(long streamId, int partition) {
    return meta.read(r -> r.partition(streamId, partition))
        .orElse(new PartitionInfo(streamId, partition, 0, 0));
  }

  /** The first offset retention kept (0 until a trim). */
  long logStart(long streamId, int partition) {
    return bounds(streamId, partition).logStartOffset();
  }

  private CompletableFuture<Void> indexCovers(long streamId, int partition, long offset) {
    return bounds(streamId, partition).highWatermark() > offset
        ? CompletableFuture.completedFuture(null)
        : meta.awaitLatest();
  }

  /** Records from a sealed offset, answered with the journal's high watermark. */
  CompletableFuture<FetchResult> fetch(
      String namespace,
      String stream,
      long streamId,
      int partition,
      long offset,
      int maxBytes,
      long highWatermark) {
    return indexCovers(streamId, partition, offset)
        .thenCompose(
            v ->
                fetcher.fetch(
                    namespace,
                    stream,
                    partition,
                    offset,
                    maxBytes,
                    Duration.ZERO,
                    OptionalLong.empty()))
        .thenApply(
            f -> new FetchResult(f.records(), f.nextOffset(), highWatermark, f.logStartOffset()));
  }

  /** Stored batches from a sealed offset, answered with the journal's high watermark. */
  CompletableFuture<BatchFetchResult> fetchBatches(
      String namespace,
      String stream,
      long streamId,
      int partition,
      long offset,
      int maxBytes,
      long highWatermark) {
    return indexCovers(streamId, partition, offset)
        .thenCompose(
            v ->
                fetcher.fetchBatches(namespace, stream, partition, offset, maxBytes, Duration.ZERO))
        .thenApply(
            f ->
                new BatchFetchResult(
                    f.batches(), f.nextOffset(), highWatermark, f.logStartOffset()));
  }

  /**
   * The first offset of the sealed segments holding a record at or after {@code ts} (batch
   * granularity), or empty when every sealed record is older.
   */
  CompletableFuture<OptionalLong> forTimestamp(
      String namespace, String stream, long streamId, int partition, long ts) {
    long indexEnd = bounds(streamId, partition).highWatermark();
    if (indexEnd == 0) {
      return CompletableFuture.completedFuture(OptionalLong.empty());
    }
    return fetcher
        .listOffset(namespace, stream, partition, new OffsetSpec.ForTimestamp(ts))
        .thenApply(o -> o < indexEnd ? OptionalLong.of(o) : OptionalLong.empty());
  }
}
