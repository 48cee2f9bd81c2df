package dev.loam.kafka.internal.api;

import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.cluster.Topics;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Small helpers for handlers that fan out over topics and partitions. */
final class Futures {
  private Futures() {}

  /** Completes with every future's value, in order, once all complete. */
  static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> each) {
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
        .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
  }

  /**
   * Describes each named topic of {@code namespace} once; a topic that does not exist, or whose
   * name is not a valid stream name, maps to empty.
   */
  static CompletableFuture<Map<String, Optional<StreamDescription>>> describeAll(
      Topics topics, String namespace, Collection<String> names) {
    Map<String, CompletableFuture<Optional<StreamDescription>>> each = new LinkedHashMap<>();
    for (String n : names) {
      each.computeIfAbsent(
          n,
          k ->
              n == null
                  ? CompletableFuture.completedFuture(Optional.empty())
                  : topics.describe(namespace, k).exceptionally(t -> Optional.empty()));
    }
    return CompletableFuture.allOf(each.values().toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              Map<String, Optional<StreamDescription>> out = new LinkedHashMap<>();
              each.forEach((k, f) -> out.put(k, f.join()));
              return out;
            });
  }

  /** The bounds of {@code partition} of {@code d}; empty if the stream has no such partition. */
  static Optional<StreamDescription.PartitionBounds> partition(StreamDescription d, int partition) {
    return partition >= 0 && partition < d.partitions().size()
        ? Optional.of(d.partitions().get(partition))
        : Optional.empty();
  }
}
