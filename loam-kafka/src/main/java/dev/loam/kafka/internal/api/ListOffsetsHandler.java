package dev.loam.kafka.internal.api;

import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.OffsetSpec;
import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * ListOffsets: earliest (and earliest-local: all data is "local"), latest, the first offset at or
 * after a timestamp ({@link Log#listOffset}), and the offset of the record with the largest
 * timestamp, which reads the partition's records from the log start (a scan bounded by the high
 * watermark at the time of the request). A timestamp after every record answers offset and
 * timestamp -1, as Kafka does (the consumer's {@code offsetsForTimes} returns null). Latest-tiered
 * and earliest-pending-upload answer -1 too: Loam has no tiering. Leader epochs are -1.
 */
public final class ListOffsetsHandler implements ApiHandler {
  private static final int SCAN_BYTES = 1 << 20;

  private final Topics topics;

  public ListOffsetsHandler(Topics topics) {
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    ListOffsetsRequest req = (ListOffsetsRequest) request.body();
    List<String> names = req.data().topics().stream().map(ListOffsetsTopic::name).toList();
    return Futures.describeAll(topics, request.namespace(), names)
        .thenCompose(
            streams -> {
              List<CompletableFuture<ListOffsetsTopicResponse>> each = new ArrayList<>();
              for (ListOffsetsTopic t : req.data().topics()) {
                each.add(topic(t, streams));
              }
              return Futures.all(each);
            })
        .thenApply(
            ts ->
                Optional.of(
                    new ListOffsetsResponseData()
                        .setThrottleTimeMs(0)
                        .setTopics(new ArrayList<>(ts))));
  }

  private CompletableFuture<ListOffsetsTopicResponse> topic(
      ListOffsetsTopic t, Map<String, Optional<StreamDescription>> streams) {
    Optional<StreamDescription> d = streams.get(t.name());
    List<CompletableFuture<ListOffsetsPartitionResponse>> each = new ArrayList<>();
    for (ListOffsetsPartition p : t.partitions()) {
      if (d.isEmpty() || Futures.partition(d.get(), p.partitionIndex()).isEmpty()) {
        each.add(
            CompletableFuture.completedFuture(
                error(p.partitionIndex(), Errors.UNKNOWN_TOPIC_OR_PARTITION)));
      } else {
        each.add(
            partition(d.get(), p)
                .exceptionally(
                    e -> error(p.partitionIndex(), ErrorMapping.of(e, ErrorMapping.Context.DATA))));
      }
    }
    return Futures.all(each)
        .thenApply(
            ps ->
                new ListOffsetsTopicResponse()
                    .setName(t.name())
                    .setPartitions(new ArrayList<>(ps)));
  }

  private CompletableFuture<ListOffsetsPartitionResponse> partition(
      StreamDescription d, ListOffsetsPartition p) {
    Log log = topics.log();
    String ns = d.namespace();
    int part = p.partitionIndex();
    long ts = p.timestamp();
    if (ts == ListOffsetsRequest.EARLIEST_TIMESTAMP
        || ts == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
      return log.listOffset(ns, d.name(), part, OffsetSpec.earliest())
          .thenApply(o -> ok(part, o, -1));
    }
    if (ts == ListOffsetsRequest.LATEST_TIMESTAMP) {
      return log.listOffset(ns, d.name(), part, OffsetSpec.latest())
          .thenApply(o -> ok(part, o, -1));
    }
    if (ts == ListOffsetsRequest.LATEST_TIERED_TIMESTAMP
        || ts == ListOffsetsRequest.EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
      return CompletableFuture.completedFuture(ok(part, -1, -1));
    }
    if (ts == ListOffsetsRequest.MAX_TIMESTAMP) {
      StreamDescription.PartitionBounds b = d.partitions().get(part);
      return scanMax(log, ns, d.name(), part, b.logStartOffset(), b.highWatermark(), -1, -1);
    }
    if (ts < 0) {
      return CompletableFuture.completedFuture(error(part, Errors.INVALID_REQUEST));
    }
    return log.listOffset(ns, d.name(), part, OffsetSpec.forTimestamp(ts))
        .thenCompose(o -> timestampAt(log, ns, d.name(), part, o));
  }

  /** The record at {@code offset} with its timestamp; -1/-1 when there is none (at the end). */
  private static CompletableFuture<ListOffsetsPartitionResponse> timestampAt(
      Log log, String ns, String stream, int part, long offset) {
    return log.fetch(ns, stream, part, offset, 64 * 1024, Duration.ZERO)
        .thenApply(
            f -> {
              for (FetchedRecord r : f.records()) {
                if (r.offset() >= offset) {
                  return ok(part, r.offset(), r.timestamp());
                }
              }
              return ok(part, -1, -1);
            });
  }

  private static CompletableFuture<ListOffsetsPartitionResponse> scanMax(
      Log log,
      String ns,
      String stream,
      int part,
      long from,
      long end,
      long bestOffset,
      long bestTimestamp) {
    if (from >= end) {
      return CompletableFuture.completedFuture(ok(part, bestOffset, bestTimestamp));
    }
    return log.fetch(ns, stream, part, from, SCAN_BYTES, Duration.ZERO)
        .thenCompose(
            (FetchResult f) -> {
              long bo = bestOffset;
              long bt = bestTimestamp;
              for (FetchedRecord r : f.records()) {
                if (r.offset() >= end) {
                  break;
                }
                if (bo < 0 || r.timestamp() > bt) {
                  bo = r.offset();
                  bt = r.timestamp();
                }
              }
              if (f.nextOffset() <= from) {
                return CompletableFuture.completedFuture(ok(part, bo, bt));
              }
              return scanMax(log, ns, stream, part, f.nextOffset(), end, bo, bt);
            });
  }

  static ListOffsetsPartitionResponse ok(int partition, long offset, long timestamp) {
    return new ListOffsetsPartitionResponse()
        .setPartitionIndex(partition)
        .setErrorCode(Errors.NONE.code())
        .setOffset(offset)
        .setTimestamp(timestamp)
        .setLeaderEpoch(-1);
  }

  static ListOffsetsPartitionResponse error(int partition, Errors e) {
    return new ListOffsetsPartitionResponse()
        .setPartitionIndex(partition)
        .setErrorCode(e.code())
        .setOffset(-1)
        .setTimestamp(-1)
        .setLeaderEpoch(-1);
  }
}
