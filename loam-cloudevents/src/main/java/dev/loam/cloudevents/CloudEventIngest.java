package dev.loam.cloudevents;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.Log;
import dev.loam.api.Partitioning;
import dev.loam.cloudevents.IngestResult.EventAnswer;
import dev.loam.cloudevents.IngestResult.Status;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * CloudEvents ingest, independent of the transport (docs/reference/cloudevents.md "Ingest"): takes
 * validated events, coalesces repeats of a source + id within the request, picks each event's
 * partition, appends the events in one append and answers per event. The HTTP routes call it; any
 * other transport can.
 *
 * <p>Partition: the one asked for, else Kafka's default partitioner on the {@code partitionkey}
 * extension, else the idempotency key's first four bytes (big-endian, sign bit cleared) modulo the
 * partition count, so a retry of a keyless event lands on the same partition.
 *
 * <p>Thread-safe; never blocks.
 */
public final class CloudEventIngest {
  private final Log log;

  /** Ingest writing through {@code log}. */
  public CloudEventIngest(Log log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * Ingests {@code events} (already validated, at most {@link JsonFormat#MAX_EVENTS}) into {@code
   * namespace}/{@code stream}.
   *
   * @param partition every event's partition, or empty to choose per event
   * @param admission run by the node once the append passed its own checks, before anything is
   *     buffered (a quota charge); see {@link Log#append(String, String, List,
   *     dev.loam.api.ProducerIdentity, Runnable)}
   * @return the answers; fails as {@link Log#append} and {@link Log#describeStream} fail
   */
  public CompletableFuture<IngestResult> ingest(
      String namespace,
      String stream,
      List<CloudEvent> events,
      OptionalInt partition,
      Runnable admission) {
    if (events.isEmpty()) {
      return CompletableFuture.completedFuture(new IngestResult(List.of(), 0));
    }
    return log.describeStream(namespace, stream)
        .thenCompose(
            d -> {
              int partitions = d.spec().partitions();
              // first occurrence of each idempotency key, and the index each event repeats
              Map<ByteBuffer, Integer> first = new HashMap<>();
              int[] firstOf = new int[events.size()];
              List<AppendRecord> records = new ArrayList<>();
              int[] recordOf = new int[events.size()];
              for (int i = 0; i < events.size(); i++) {
                CloudEvent e = events.get(i);
                byte[] key = e.idempotencyKey();
                Integer seen = first.putIfAbsent(ByteBuffer.wrap(key), i);
                firstOf[i] = seen == null ? i : seen;
                if (seen == null) {
                  int p = partition.orElseGet(() -> partitionOf(e, key, partitions));
                  recordOf[i] = records.size();
                  records.add(RecordLayout.toRecord(e, OptionalInt.of(p)));
                }
              }
              return log.append(namespace, stream, records, null, admission)
                  .thenApply(res -> answer(res, firstOf, recordOf));
            });
  }

  private static IngestResult answer(AppendResult res, int[] firstOf, int[] recordOf) {
    List<EventAnswer> out = new ArrayList<>(firstOf.length);
    for (int i = 0; i < firstOf.length; i++) {
      AppendResult.RecordPosition pos = res.positions().get(recordOf[firstOf[i]]);
      Status s = firstOf[i] == i ? Status.APPENDED : Status.DUPLICATE;
      out.add(new EventAnswer(s, pos.partition(), pos.offset()));
    }
    return new IngestResult(out, res.consistencyToken());
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
