package dev.loam.client;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Produces so that a retried request never appends twice (docs/reference/http-api.md "Idempotent
 * produce"): it takes a producer id from the cluster, numbers each partition's records with a
 * sequence, and when an answer is lost (connection dropped, timeout, 503, 504) resends the same
 * request, same sequence, to another node, where the server recognises it and answers with the
 * original offsets ({@link ProduceResult#duplicate()}).
 *
 * <p>Sends to one partition go one at a time, in call order (a later send waits for the earlier
 * one's verdict, so a failure cannot leave a gap in the sequence); different partitions proceed in
 * parallel. When a send's outcome stays unknown after every attempt, or the server refuses the
 * sequence or epoch, the partition is broken for this producer: later sends there fail with {@link
 * ProducerBrokenException} rather than risk new records being taken for a retry of old ones.
 * Thread-safe.
 */
public final class IdempotentProducer {
  private final LoamClient client;
  private final Map<Key, PartitionState> partitions = new HashMap<>();
  private CompletableFuture<long[]> identity;

  private record Key(String namespace, String stream, int partition) {}

  private static final class PartitionState {
    long nextSequence;
    CompletableFuture<?> tail = CompletableFuture.completedFuture(null);
    LoamClientException broken;
  }

  IdempotentProducer(LoamClient client) {
    this.client = client;
  }

  /** The producer id, once the first send allocated it. */
  public synchronized OptionalLong producerId() {
    if (identity != null && identity.isDone() && !identity.isCompletedExceptionally()) {
      return OptionalLong.of(identity.join()[0]);
    }
    return OptionalLong.empty();
  }

  /**
   * Appends {@code records} to one partition of a stream, atomically. A record naming another
   * partition is refused. Fails with the typed exception of the last attempt; {@link
   * OutcomeUnknownException} when the records may or may not have been appended.
   */
  public CompletableFuture<ProduceResult> send(
      String namespace, String stream, int partition, List<ProduceRecord> records) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(stream, "stream");
    if (records.isEmpty()) {
      throw new IllegalArgumentException("nothing to send");
    }
    for (int i = 0; i < records.size(); i++) {
      ProduceRecord r = records.get(i);
      if (r.partition().isPresent() && r.partition().getAsInt() != partition) {
        throw new IllegalArgumentException(
            "an idempotent send goes to one partition: records["
                + i
                + "].partition="
                + r.partition().getAsInt()
                + " partition="
                + partition);
      }
    }
    List<ProduceRecord> batch = List.copyOf(records);
    Key key = new Key(namespace, stream, partition);
    CompletableFuture<ProduceResult> result = new CompletableFuture<>();
    CompletableFuture<?> previous;
    PartitionState st;
    synchronized (this) {
      st = partitions.computeIfAbsent(key, k -> new PartitionState());
      previous = st.tail;
      st.tail = result.handle((r, t) -> null);
    }
    previous.whenComplete(
        (ignored, ignoredFailure) ->
            sendInOrder(key, st, batch)
                .whenComplete(
                    (r, t) -> {
                      if (t != null) {
                        result.completeExceptionally(unwrap(t));
                      } else {
                        result.complete(r);
                      }
                    }));
    return result;
  }

  private CompletableFuture<ProduceResult> sendInOrder(
      Key key, PartitionState st, List<ProduceRecord> batch) {
    return identity()
        .thenCompose(
            id -> {
              long sequence;
              synchronized (this) {
                if (st.broken != null) {
                  return CompletableFuture.failedFuture(
                      new ProducerBrokenException(
                          "this producer cannot send to the partition any more; create a new"
                              + " producer producerId="
                              + id[0]
                              + " stream="
                              + key.namespace()
                              + "/"
                              + key.stream()
                              + " partition="
                              + key.partition()
                              + " because="
                              + st.broken.getMessage(),
                          st.broken));
                }
                sequence = st.nextSequence;
                if (sequence + batch.size() > Integer.MAX_VALUE) {
                  return CompletableFuture.failedFuture(
                      new ProducerBrokenException(
                          "the producer's sequence space for the partition is spent producerId="
                              + id[0]
                              + " partition="
                              + key.partition(),
                          null));
                }
              }
              return client
                  .produceIdempotent(
                      key.namespace(), key.stream(), key.partition(), batch, id[0], id[1], sequence)
                  .whenComplete(
                      (r, t) -> {
                        synchronized (this) {
                          if (t == null) {
                            st.nextSequence = sequence + batch.size();
                            return;
                          }
                          Throwable c = unwrap(t);
                          // Unknown outcome: the records may be stored under this sequence; a
                          // refused sequence or epoch: this producer's numbering is not the
                          // server's. Either way the next sequence is not known to be right.
                          if (c instanceof OutcomeUnknownException
                              || c instanceof ConflictException
                              || c instanceof FencedException) {
                            st.broken = (LoamClientException) c;
                          }
                        }
                      });
            });
  }

  private synchronized CompletableFuture<long[]> identity() {
    if (identity == null || identity.isCompletedExceptionally()) {
      identity = client.allocateProducer();
    }
    return identity;
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
