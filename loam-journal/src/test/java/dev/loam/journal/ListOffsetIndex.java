package dev.loam.journal;

import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.seal.OffsetIndex;
import dev.loam.wal.segment.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An offset index in memory with the metastore's rule for journal segments (a commit must start at
 * the end of the last one), for the tests and benchmarks of the journal server without a metastore.
 */
public final class ListOffsetIndex implements OffsetIndex {
  private final Map<String, List<SegmentPointer>> index = new ConcurrentHashMap<>();

  private static String id(long streamId, int partition) {
    return streamId + "/" + partition;
  }

  /** The pointers committed for one partition, in offset order. */
  public synchronized List<SegmentPointer> committed(long streamId, int partition) {
    return List.copyOf(index.getOrDefault(id(streamId, partition), List.of()));
  }

  @Override
  public synchronized List<SegmentPointer> committedFrom(
      long streamId, int partition, long fromOffset) {
    return index.getOrDefault(id(streamId, partition), List.of()).stream()
        .filter(p -> p.baseOffset() >= fromOffset)
        .toList();
  }

  @Override
  public synchronized CompletableFuture<Boolean> commit(
      long streamId, int partition, SegmentPointer p, Segment segment, long timeMillis) {
    List<SegmentPointer> ps =
        index.computeIfAbsent(id(streamId, partition), k -> new ArrayList<>());
    long end = ps.isEmpty() ? 0 : ps.get(ps.size() - 1).endOffset();
    if (p.baseOffset() != end) {
      return CompletableFuture.completedFuture(false);
    }
    ps.add(p);
    return CompletableFuture.completedFuture(true);
  }
}
