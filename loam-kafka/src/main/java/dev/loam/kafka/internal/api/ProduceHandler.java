package dev.loam.kafka.internal.api;

import dev.loam.api.BatchAppendResult;
import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Produce: each partition's record batch (exactly one, Kafka's rule since v3) is appended verbatim
 * with {@code Log.appendBatch}, which validates it and lets the sequencer assign its base offset
 * and dedupe idempotent retries (a retried batch answers its original offset). Every partition is
 * appended at once, so one request's batches, and those of the other requests in flight on the
 * connection, share the node's next WAL flush.
 *
 * <p>acks: 1 and -1 (all) both answer only after the batch is durable in the object store and
 * committed, since Loam has no leader whose local log could acknowledge earlier; acks=1 therefore
 * means what acks=all means. acks=0 appends the same way and sends no response, as Kafka does.
 * {@code timeout_ms} bounds the wait for the commit: a partition still waiting then answers
 * REQUEST_TIMED_OUT (the outcome is unknown; an idempotent producer's retry is deduped).
 */
public final class ProduceHandler implements ApiHandler {
  private final Topics topics;

  public ProduceHandler(Topics topics) {
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    ProduceRequest req = (ProduceRequest) request.body();
    short acks = req.data().acks();
    boolean byId = request.version() >= 13;
    if (acks != 0 && acks != 1 && acks != -1) {
      return ApiHandler.answer(
          everyPartition(
              req, byId, Errors.INVALID_REQUIRED_ACKS, "acks must be -1, 0 or 1 acks=" + acks));
    }
    int timeoutMs = req.data().timeoutMs();
    List<CompletableFuture<TopicProduceResponse>> each = new ArrayList<>();
    for (TopicProduceData t : req.data().topicData()) {
      each.add(topic(request, t, byId, timeoutMs));
    }
    CompletableFuture<List<TopicProduceResponse>> all = Futures.all(each);
    if (acks == 0) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return all.thenApply(
        ts -> {
          ProduceResponseData r = new ProduceResponseData().setThrottleTimeMs(0);
          ts.forEach(r.responses()::add);
          return Optional.of(r);
        });
  }

  /**
   * The same error for every partition of the request. Built here rather than with Kafka's {@code
   * getErrorResponse}, which assumes every partition carries records.
   */
  static ProduceResponseData everyPartition(
      ProduceRequest req, boolean byId, Errors e, String message) {
    ProduceResponseData r = new ProduceResponseData().setThrottleTimeMs(0);
    for (TopicProduceData t : req.data().topicData()) {
      TopicProduceResponse tr = new TopicProduceResponse();
      if (byId) {
        tr.setTopicId(t.topicId());
      } else {
        tr.setName(t.name());
      }
      for (PartitionProduceData p : t.partitionData()) {
        tr.partitionResponses().add(error(p.index(), e, message));
      }
      r.responses().add(tr);
    }
    return r;
  }

  private CompletableFuture<TopicProduceResponse> topic(
      ClientRequest request, TopicProduceData t, boolean byId, int timeoutMs) {
    String ns = request.namespace();
    CompletableFuture<Optional<StreamDescription>> stream;
    if (byId) {
      stream =
          topics
              .nameOf(ns, t.topicId())
              .thenCompose(
                  n ->
                      n.isPresent()
                          ? topics.describe(ns, n.get())
                          : CompletableFuture.completedFuture(Optional.empty()));
    } else {
      stream = topics.describeOrCreate(ns, t.name(), request.mayCreateTopics());
    }
    return stream
        .exceptionally(e -> Optional.empty())
        .thenCompose(
            d -> {
              List<CompletableFuture<PartitionProduceResponse>> ps = new ArrayList<>();
              for (PartitionProduceData p : t.partitionData()) {
                ps.add(partition(ns, d, p, byId, timeoutMs));
              }
              return Futures.all(ps);
            })
        .thenApply(
            ps -> {
              TopicProduceResponse r =
                  new TopicProduceResponse().setPartitionResponses(new ArrayList<>(ps));
              return byId ? r.setTopicId(t.topicId()) : r.setName(t.name());
            });
  }

  private CompletableFuture<PartitionProduceResponse> partition(
      String ns,
      Optional<StreamDescription> d,
      PartitionProduceData p,
      boolean byId,
      int timeoutMs) {
    int index = p.index();
    if (d.isEmpty()) {
      return done(
          error(
              index,
              byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION,
              "no such topic"));
    }
    StreamDescription s = d.get();
    if (Futures.partition(s, index).isEmpty()) {
      return done(
          error(
              index,
              Errors.UNKNOWN_TOPIC_OR_PARTITION,
              "topic has " + s.partitions().size() + " partitions partition=" + index));
    }
    ByteBuffer batch = bytesOf(p.records());
    if (!batch.hasRemaining()) {
      // Kafka's rule since v3: exactly one batch per partition, so none is a malformed request,
      // not a damaged one.
      return done(
          error(index, Errors.INVALID_RECORD, "a record batch is required partition=" + index));
    }
    CompletableFuture<BatchAppendResult> append =
        topics.log().appendBatch(ns, s.name(), index, batch);
    if (timeoutMs > 0) {
      append = append.orTimeout(timeoutMs, TimeUnit.MILLISECONDS);
    }
    long logStart = s.partitions().get(index).logStartOffset();
    return append.handle(
        (r, e) ->
            e == null
                ? new PartitionProduceResponse()
                    .setIndex(index)
                    .setErrorCode(Errors.NONE.code())
                    .setBaseOffset(r.baseOffset())
                    .setLogAppendTimeMs(-1)
                    .setLogStartOffset(logStart)
                : error(
                    index, ErrorMapping.of(e, ErrorMapping.Context.DATA), ErrorMapping.message(e)));
  }

  private static ByteBuffer bytesOf(BaseRecords records) {
    if (records instanceof MemoryRecords m) {
      return m.buffer();
    }
    return ByteBuffer.allocate(0);
  }

  private static CompletableFuture<PartitionProduceResponse> done(PartitionProduceResponse r) {
    return CompletableFuture.completedFuture(r);
  }

  static PartitionProduceResponse error(int index, Errors e, String message) {
    return new PartitionProduceResponse()
        .setIndex(index)
        .setErrorCode(e.code())
        .setErrorMessage(message)
        .setBaseOffset(-1)
        .setLogAppendTimeMs(-1)
        .setLogStartOffset(-1);
  }
}
