package dev.loam.kafka.internal.api;

import dev.loam.api.BatchFetchResult;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * Fetch: stored batches served as they are ({@code Log.fetchBatches}: whole RecordBatch v2 bytes
 * with their assigned base offsets), by topic name (up to v12) or topic id (v13+).
 *
 * <p>Every partition is first read at once. If that yields at least {@code min_bytes} (or the
 * client does not wait), the answer goes out; otherwise each partition is read again as a long-poll
 * of up to {@code max_wait_ms} (bounded by the gateway's limit), and the answer goes out as soon as
 * the bytes gathered reach {@code min_bytes} or the wait ends, so a wait over several partitions
 * wakes when any of them gets data. {@code partition_max_bytes} bounds each partition's read and
 * {@code max_bytes} the response, except that the first non-empty partition is always served whole
 * (as Kafka does, so a batch larger than the limits still makes progress).
 *
 * <p>There are no transactions: the last stable offset is the high watermark under both isolation
 * levels, and no aborted transactions are reported. There are no fetch sessions (KIP-227): every
 * response has session id 0, which tells clients to send full fetch requests; a request naming a
 * session gets FETCH_SESSION_ID_NOT_FOUND and the client starts over. Preferred read replica is -1:
 * any node serves any partition.
 */
public final class FetchHandler implements ApiHandler {
  private final Topics topics;
  private final Duration maxWait;

  public FetchHandler(Topics topics, Duration maxWait) {
    this.topics = topics;
    this.maxWait = maxWait;
  }

  /** One requested partition and what was read for it. */
  private static final class Slot {
    final FetchTopic topic;
    final FetchPartition partition;
    final StreamDescription stream;
    final Errors error;

    Slot(FetchTopic topic, FetchPartition partition, StreamDescription stream, Errors error) {
      this.topic = topic;
      this.partition = partition;
      this.stream = stream;
      this.error = error;
    }
  }

  /** The outcome of reading one partition: data, or an error code with the bounds it knows. */
  private record Read(BatchFetchResult result, Errors error, long hw, long logStart) {
    int size() {
      return result == null ? 0 : result.batches().remaining();
    }
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    FetchRequest req = (FetchRequest) request.body();
    if (request.version() >= 7 && req.data().sessionId() != 0) {
      return ApiHandler.answer(
          new FetchResponseData()
              .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code())
              .setSessionId(0)
              .setThrottleTimeMs(0));
    }
    boolean byId = request.version() >= 13;
    return resolve(request.namespace(), req, byId).thenCompose(slots -> fetch(req, slots, byId));
  }

  private CompletableFuture<List<Slot>> resolve(String ns, FetchRequest req, boolean byId) {
    List<CompletableFuture<List<Slot>>> each = new ArrayList<>();
    for (FetchTopic t : req.data().topics()) {
      CompletableFuture<Optional<StreamDescription>> stream =
          byId
              ? topics
                  .nameOf(ns, t.topicId())
                  .thenCompose(
                      n ->
                          n.isPresent()
                              ? topics.describe(ns, n.get())
                              : CompletableFuture.completedFuture(Optional.empty()))
              : topics.describe(ns, t.topic());
      each.add(
          stream
              .exceptionally(e -> Optional.empty())
              .thenApply(
                  d -> {
                    List<Slot> out = new ArrayList<>();
                    for (FetchPartition p : t.partitions()) {
                      Errors e = Errors.NONE;
                      if (d.isEmpty()) {
                        e = byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                      } else if (Futures.partition(d.get(), p.partition()).isEmpty()) {
                        e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                      }
                      out.add(new Slot(t, p, d.orElse(null), e));
                    }
                    return out;
                  }));
    }
    return Futures.all(each).thenApply(ls -> ls.stream().flatMap(List::stream).toList());
  }

  private CompletableFuture<Optional<ApiMessage>> fetch(
      FetchRequest req, List<Slot> slots, boolean byId) {
    int maxBytes = req.version() >= 3 ? Math.max(0, req.data().maxBytes()) : Integer.MAX_VALUE;
    int minBytes = Math.max(0, req.data().minBytes());
    long waitMs = Math.min(Math.max(0, req.data().maxWaitMs()), maxWait.toMillis());
    AtomicReferenceArray<Read> reads = new AtomicReferenceArray<>(slots.size());
    List<CompletableFuture<Void>> first = new ArrayList<>();
    for (int i = 0; i < slots.size(); i++) {
      int idx = i;
      first.add(read(slots.get(i), maxBytes, Duration.ZERO).thenAccept(r -> reads.set(idx, r)));
    }
    return CompletableFuture.allOf(first.toArray(CompletableFuture[]::new))
        .thenCompose(
            v -> {
              long gathered = 0;
              boolean anyError = false;
              for (int i = 0; i < slots.size(); i++) {
                gathered += reads.get(i).size();
                anyError |= reads.get(i).error() != Errors.NONE;
              }
              if (waitMs == 0 || gathered >= minBytes || anyError || slots.isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              return longPoll(slots, reads, maxBytes, minBytes, gathered, waitMs);
            })
        .thenApply(v -> Optional.of(response(slots, reads, maxBytes, byId)));
  }

  /** Reads the empty partitions again, waiting; completes when min_bytes is met or at the end. */
  private CompletableFuture<Void> longPoll(
      List<Slot> slots,
      AtomicReferenceArray<Read> reads,
      int maxBytes,
      int minBytes,
      long gathered,
      long waitMs) {
    CompletableFuture<Void> wake = new CompletableFuture<>();
    AtomicLong total = new AtomicLong(gathered);
    List<CompletableFuture<Void>> polls = new ArrayList<>();
    for (int i = 0; i < slots.size(); i++) {
      Read before = reads.get(i);
      if (before.size() > 0) {
        continue;
      }
      int idx = i;
      polls.add(
          read(slots.get(i), maxBytes, Duration.ofMillis(waitMs))
              .thenAccept(
                  r -> {
                    if (r.size() > 0 && !wake.isDone()) {
                      reads.set(idx, r);
                      if (total.addAndGet(r.size()) >= minBytes) {
                        wake.complete(null);
                      }
                    }
                  }));
    }
    CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new))
        .whenComplete((v, t) -> wake.complete(null));
    return wake.completeOnTimeout(null, waitMs, TimeUnit.MILLISECONDS);
  }

  private CompletableFuture<Read> read(Slot s, int maxBytes, Duration wait) {
    if (s.error != Errors.NONE) {
      return CompletableFuture.completedFuture(new Read(null, s.error, -1, -1));
    }
    int partMax = Math.max(1, Math.min(s.partition.partitionMaxBytes(), maxBytes));
    int p = s.partition.partition();
    StreamDescription.PartitionBounds b = s.stream.partitions().get(p);
    return topics
        .log()
        .fetchBatches(
            s.stream.namespace(), s.stream.name(), p, s.partition.fetchOffset(), partMax, wait)
        .handle(
            (r, e) -> {
              if (e == null) {
                return new Read(r, Errors.NONE, r.highWatermark(), r.logStartOffset());
              }
              Throwable c = ErrorMapping.unwrap(e);
              if (c instanceof OffsetOutOfRangeException o) {
                return new Read(
                    null, Errors.OFFSET_OUT_OF_RANGE, o.highWatermark(), o.logStartOffset());
              }
              return new Read(
                  null,
                  ErrorMapping.of(c, ErrorMapping.Context.DATA),
                  b.highWatermark(),
                  b.logStartOffset());
            });
  }

  private static FetchResponseData response(
      List<Slot> slots, AtomicReferenceArray<Read> reads, int maxBytes, boolean byId) {
    FetchResponseData r =
        new FetchResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(Errors.NONE.code())
            .setSessionId(0);
    long total = 0;
    FetchableTopicResponse current = null;
    FetchTopic currentTopic = null;
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      Read read = reads.get(i);
      if (current == null || currentTopic != s.topic) {
        current = new FetchableTopicResponse().setPartitions(new ArrayList<>());
        if (byId) {
          current.setTopicId(s.topic.topicId() == null ? Uuid.ZERO_UUID : s.topic.topicId());
        } else {
          current.setTopic(s.topic.topic());
        }
        currentTopic = s.topic;
        r.responses().add(current);
      }
      PartitionData pd =
          new PartitionData()
              .setPartitionIndex(s.partition.partition())
              .setErrorCode(read.error().code())
              .setHighWatermark(read.hw())
              .setLastStableOffset(read.hw())
              .setLogStartOffset(read.logStart())
              .setPreferredReadReplica(-1)
              .setAbortedTransactions(null)
              .setRecords(MemoryRecords.EMPTY);
      int size = read.size();
      if (size > 0 && (total == 0 || total + size <= maxBytes)) {
        pd.setRecords(MemoryRecords.readableRecords(read.result().batches()));
        total += size;
      }
      current.partitions().add(pd);
    }
    return r;
  }
}
