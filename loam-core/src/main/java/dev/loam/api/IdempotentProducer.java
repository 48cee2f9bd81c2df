package dev.loam.api;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Appends so that a retry never stores a record twice, without the caller numbering its records:
 * the embedded counterpart of Kafka's idempotent producer. It takes a producer id from the cluster
 * on its first append ({@link Log#allocateProducerId()}) and gives each partition's appends the
 * next {@link ProducerIdentity} sequence.
 *
 * <p>Appends to one partition go one at a time, in call order: a later append waits for the earlier
 * one's verdict, so a failure cannot leave a gap in the sequence. Different partitions proceed in
 * parallel. When an append's outcome is unknown ({@link CommitUnknownException}) the producer
 * resends the same records with the same identity, up to {@value #UNKNOWN_RETRIES} times: the
 * sequencer recognises a commit that did land and answers with its offsets ({@link
 * AppendResult#duplicate()}). A failure that left nothing appended (UNAVAILABLE, INVALID,
 * NOT_FOUND) fails that append only, and the next append reuses its sequence. When the outcome
 * stays unknown, or the partition refuses the sequence or the epoch, the partition is broken for
 * this producer: later appends there fail with {@link ProducerBrokenException} rather than risk new
 * records being taken for a retry of old ones. Thread-safe; holds no thread.
 */
public final class IdempotentProducer {
  /** How many times an append with an unknown outcome is resent before the partition breaks. */
  public static final int UNKNOWN_RETRIES = 3;

  private final Log log;
  private final Map<Key, PartitionState> partitions = new HashMap<>();
  private CompletableFuture<ProducerIdentity> identity;

  private record Key(String namespace, String stream, int partition) {}

  private static final class PartitionState {
    int nextSequence;
    CompletableFuture<?> tail = CompletableFuture.completedFuture(null);
    Throwable broken;
  }

  IdempotentProducer(Log log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /** The producer id, once the first append allocated it. */
  public synchronized OptionalLong producerId() {
    if (identity != null && identity.isDone() && !identity.isCompletedExceptionally()) {
      return OptionalLong.of(identity.join().producerId());
    }
    return OptionalLong.empty();
  }

  /**
   * Appends {@code records} to one partition of a stream, atomically, once. Records without a
   * partition go to {@code partition}; one naming another partition fails the append INVALID.
   * Completes with the offsets (the first attempt's when a resend matched it); fails with the
   * failure of the append, or {@link ProducerBrokenException} once the partition is broken.
   */
  public CompletableFuture<AppendResult> append(
      String namespace, String stream, int partition, List<AppendRecord> records) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(stream, "stream");
    List<AppendRecord> batch;
    try {
      batch = toPartition(records, partition);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    Key key = new Key(namespace, stream, partition);
    // Derived from a future of the log, so that the answer is the log's kind of future (one that
    // refuses a blocking wait on a Loam thread).
    CompletableFuture<AppendResult> result = identity().newIncompleteFuture();
    CompletableFuture<?> previous;
    PartitionState st;
    synchronized (this) {
      st = partitions.computeIfAbsent(key, k -> new PartitionState());
      previous = st.tail;
      st.tail = result.handle((r, t) -> null);
    }
    previous.whenComplete(
        (ignored, ignoredFailure) ->
            appendInOrder(key, st, batch)
                .whenComplete(
                    (r, t) -> {
                      if (t != null) {
                        result.completeExceptionally(LogDefaults.cause(t));
                      } else {
                        result.complete(r);
                      }
                    }));
    return result;
  }

  private static List<AppendRecord> toPartition(List<AppendRecord> records, int partition) {
    if (records == null || records.isEmpty()) {
      throw new LoamException(
          Kind.INVALID, "an idempotent append needs at least one record partition=" + partition);
    }
    List<AppendRecord> out = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      AppendRecord r = records.get(i);
      if (r.partition().isPresent() && r.partition().getAsInt() != partition) {
        throw new LoamException(
            Kind.INVALID,
            "an idempotent append goes to one partition: records["
                + i
                + "].partition="
                + r.partition().getAsInt()
                + " partition="
                + partition);
      }
      out.add(r.partition().isPresent() ? r : r.toPartition(partition));
    }
    return List.copyOf(out);
  }

  private CompletableFuture<AppendResult> appendInOrder(
      Key key, PartitionState st, List<AppendRecord> batch) {
    return identity()
        .thenCompose(
            id -> {
              ProducerIdentity attempt;
              synchronized (this) {
                if (st.broken != null) {
                  return CompletableFuture.failedFuture(brokenError(key, id, st.broken));
                }
                if ((long) st.nextSequence + batch.size() > Integer.MAX_VALUE) {
                  return CompletableFuture.failedFuture(
                      new ProducerBrokenException(
                          "the producer's sequence space for the partition is spent producerId="
                              + id.producerId()
                              + " stream="
                              + key.namespace()
                              + "/"
                              + key.stream()
                              + " partition="
                              + key.partition(),
                          null));
                }
                attempt =
                    new ProducerIdentity(id.producerId(), id.producerEpoch(), st.nextSequence);
              }
              return send(key, batch, attempt, 0)
                  .whenComplete(
                      (r, t) -> {
                        synchronized (this) {
                          if (t == null) {
                            st.nextSequence = attempt.baseSequence() + batch.size();
                          } else if (breaksPartition(t)) {
                            st.broken = LogDefaults.cause(t);
                          }
                        }
                      });
            });
  }

  /** One append, resent with the same identity while its outcome is unknown. */
  private CompletableFuture<AppendResult> send(
      Key key, List<AppendRecord> batch, ProducerIdentity attempt, int resends) {
    return log.append(key.namespace(), key.stream(), batch, attempt)
        .handle(
            (r, t) -> {
              if (t == null) {
                return CompletableFuture.completedFuture(r);
              }
              if (LogDefaults.isKind(t, Kind.OUTCOME_UNKNOWN) && resends < UNKNOWN_RETRIES) {
                return send(key, batch, attempt, resends + 1)
                    .handle(
                        (r2, t2) -> {
                          if (t2 == null) {
                            return r2;
                          }
                          // A resend that failed without appending proves nothing about the
                          // first attempt: the outcome stays unknown.
                          Throwable c = LogDefaults.cause(t2);
                          if (c instanceof LoamException le && !breaks(le)) {
                            throw new CommitUnknownException(
                                "an append's outcome is unknown and its resend failed "
                                    + c.getMessage(),
                                c);
                          }
                          throw LogDefaults.rethrow(t2);
                        });
              }
              return CompletableFuture.<AppendResult>failedFuture(LogDefaults.cause(t));
            })
        .thenCompose(f -> f);
  }

  private static boolean breaksPartition(Throwable t) {
    return LogDefaults.cause(t) instanceof LoamException e && breaks(e);
  }

  private static boolean breaks(LoamException e) {
    return e.kind() == Kind.OUTCOME_UNKNOWN
        || e.kind() == Kind.FENCED
        || e instanceof OutOfOrderSequenceException;
  }

  private static ProducerBrokenException brokenError(Key key, ProducerIdentity id, Throwable why) {
    return new ProducerBrokenException(
        "this producer cannot append to the partition any more; take a new producer producerId="
            + id.producerId()
            + " stream="
            + key.namespace()
            + "/"
            + key.stream()
            + " partition="
            + key.partition()
            + " because="
            + why.getMessage(),
        why);
  }

  private synchronized CompletableFuture<ProducerIdentity> identity() {
    if (identity == null || identity.isCompletedExceptionally()) {
      identity = log.allocateProducerId();
    }
    return identity;
  }
}
