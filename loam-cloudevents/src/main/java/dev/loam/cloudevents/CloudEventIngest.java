package dev.loam.cloudevents;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.CommitUnknownException;
import dev.loam.api.EventLedger;
import dev.loam.api.Log;
import dev.loam.api.Partitioning;
import dev.loam.cloudevents.IngestResult.EventAnswer;
import dev.loam.cloudevents.IngestResult.Status;
import dev.loam.error.LoamException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * CloudEvents ingest, independent of the transport (docs/reference/cloudevents.md "Ingest" and
 * "Deduplication"): takes validated events, coalesces repeats of a source + id within the request,
 * picks each event's partition, claims the keys in the metastore's dedupe ledger, appends the
 * claimed events in one append, completes the claims and answers per event. The HTTP routes call
 * it; any other transport can.
 *
 * <p>Partition: the one asked for, else Kafka's default partitioner on the {@code partitionkey}
 * extension, else the idempotency key's first four bytes (big-endian, sign bit cleared) modulo the
 * partition count, so a retry of a keyless event lands on the same partition.
 *
 * <p>Thread-safe; never blocks.
 */
public final class CloudEventIngest {
  /** How long a claim stays pending: longer than a writer's 60 s commit budget. */
  public static final Duration PENDING = Duration.ofMinutes(2);

  /** The default dedup window. */
  public static final Duration DEFAULT_WINDOW = Duration.ofHours(1);

  /** The longest dedup window. */
  public static final Duration MAX_WINDOW = Duration.ofHours(24);

  private final Log log;

  /** Ingest writing through {@code log}. */
  public CloudEventIngest(Log log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * Ingests {@code events} (already validated, at most {@link JsonFormat#MAX_EVENTS}) into {@code
   * namespace}/{@code stream}: coalesce, claim the keys in the ledger, append the claimed events in
   * one append, complete the claims with their offsets (kept for {@code window}). A definitely
   * failed append releases the claims; an append whose outcome is unknown keeps them until they
   * lapse ({@link #PENDING}), since it may have committed.
   *
   * @param partition every event's partition, or empty to choose per event
   * @param admission run by the node once the append passed its own checks, before anything is
   *     buffered (a quota charge); see {@link Log#append(String, String, List,
   *     dev.loam.api.ProducerIdentity, Runnable)}
   * @param window how long a completed key answers duplicate (at most {@link #MAX_WINDOW})
   * @return the answers; fails as {@link Log#append}, {@link Log#describeStream} and {@link
   *     Log#claimEvents} fail
   */
  public CompletableFuture<IngestResult> ingest(
      String namespace,
      String stream,
      List<CloudEvent> events,
      OptionalInt partition,
      Runnable admission,
      Duration window) {
    if (events.isEmpty()) {
      return CompletableFuture.completedFuture(new IngestResult(List.of(), 0, -1));
    }
    return log.describeStream(namespace, stream)
        .thenCompose(
            d -> {
              Plan plan = plan(events, partition, d.spec().partitions());
              return log.claimEvents(namespace, stream, plan.keys(), PENDING)
                  .thenCompose(
                      claims -> appendClaimed(namespace, stream, plan, claims, admission, window));
            });
  }

  /**
   * The first occurrence of each key (its index, key and record), and for every event the index of
   * its first occurrence.
   */
  private record Plan(
      int[] firstOf, List<Integer> firsts, List<byte[]> keys, List<AppendRecord> records) {}

  private static Plan plan(List<CloudEvent> events, OptionalInt partition, int partitions) {
    Map<ByteBuffer, Integer> first = new HashMap<>();
    int[] firstOf = new int[events.size()];
    List<Integer> firsts = new ArrayList<>();
    List<byte[]> keys = new ArrayList<>();
    List<AppendRecord> records = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      CloudEvent e = events.get(i);
      byte[] key = e.idempotencyKey();
      Integer seen = first.putIfAbsent(ByteBuffer.wrap(key), i);
      firstOf[i] = seen == null ? i : seen;
      if (seen == null) {
        int p = partition.orElseGet(() -> partitionOf(e, key, partitions));
        firsts.add(i);
        keys.add(key);
        records.add(RecordLayout.toRecord(e, OptionalInt.of(p)));
      }
    }
    return new Plan(firstOf, firsts, keys, records);
  }

  private CompletableFuture<IngestResult> appendClaimed(
      String namespace,
      String stream,
      Plan plan,
      EventLedger.Claims claims,
      Runnable admission,
      Duration window) {
    Map<Integer, EventAnswer> byFirst = new HashMap<>();
    List<AppendRecord> toAppend = new ArrayList<>();
    List<Integer> appendedFirsts = new ArrayList<>();
    List<byte[]> claimedKeys = new ArrayList<>();
    long retryAt = Long.MAX_VALUE;
    for (int j = 0; j < plan.firsts().size(); j++) {
      EventLedger.Claim c = claims.claims().get(j);
      int i = plan.firsts().get(j);
      switch (c.status()) {
        case CLAIMED -> {
          toAppend.add(plan.records().get(j));
          appendedFirsts.add(i);
          claimedKeys.add(plan.keys().get(j));
        }
        case DUPLICATE ->
            byFirst.put(i, new EventAnswer(Status.DUPLICATE, c.partition(), c.offset()));
        case IN_FLIGHT -> {
          byFirst.put(i, new EventAnswer(Status.IN_FLIGHT, -1, -1));
          retryAt = Math.min(retryAt, c.expiresAtMillis());
        }
      }
    }
    long retryAtMillis = retryAt == Long.MAX_VALUE ? -1 : retryAt;
    if (toAppend.isEmpty()) {
      return CompletableFuture.completedFuture(answer(plan, byFirst, 0, retryAtMillis));
    }
    return log.append(namespace, stream, toAppend, null, admission)
        .handle(
            (res, failure) -> {
              if (failure != null) {
                Throwable t = unwrap(failure);
                if (!outcomeUnknown(t)) {
                  // nothing was committed: free the keys for a retry at once
                  log.releaseEvents(namespace, stream, claims.claimId(), claimedKeys);
                }
                return CompletableFuture.<IngestResult>failedFuture(t);
              }
              List<EventLedger.Completed> done = new ArrayList<>(toAppend.size());
              for (int j = 0; j < appendedFirsts.size(); j++) {
                AppendResult.RecordPosition pos = res.positions().get(j);
                byFirst.put(
                    appendedFirsts.get(j),
                    new EventAnswer(Status.APPENDED, pos.partition(), pos.offset()));
                done.add(
                    new EventLedger.Completed(claimedKeys.get(j), pos.partition(), pos.offset()));
              }
              IngestResult answer = answer(plan, byFirst, res.consistencyToken(), retryAtMillis);
              // The events are committed whatever the completion does: if it fails the claims
              // lapse, and a retry after that appends again (the one duplicate the ledger allows).
              return log.completeEvents(namespace, stream, claims.claimId(), window, done)
                  .handle((v, e) -> answer);
            })
        .thenCompose(f -> f);
  }

  private static IngestResult answer(
      Plan plan, Map<Integer, EventAnswer> byFirst, long token, long retryAtMillis) {
    List<EventAnswer> out = new ArrayList<>(plan.firstOf().length);
    for (int i = 0; i < plan.firstOf().length; i++) {
      EventAnswer first = byFirst.get(plan.firstOf()[i]);
      if (plan.firstOf()[i] != i && first.status() != Status.IN_FLIGHT) {
        first = new EventAnswer(Status.DUPLICATE, first.partition(), first.offset());
      }
      out.add(first);
    }
    return new IngestResult(out, token, retryAtMillis);
  }

  private static boolean outcomeUnknown(Throwable t) {
    return t instanceof CommitUnknownException
        || (t instanceof LoamException le && le.kind() == LoamException.Kind.OUTCOME_UNKNOWN);
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The partition of an event with no partition asked for, among {@code partitions}. */
  static int partitionOf(CloudEvent e, byte[] idempotencyKey, int partitions) {
    String pk = e.text(CloudEvent.PARTITIONKEY);
    if (pk != null) {
      return Partitioning.partitionForKey(pk.getBytes(StandardCharsets.UTF_8), partitions);
    }
    return (ByteBuffer.wrap(idempotencyKey).getInt() & 0x7fffffff) % partitions;
  }
}
