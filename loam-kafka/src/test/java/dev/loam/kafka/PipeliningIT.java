package dev.loam.kafka;

import static dev.loam.kafka.RawKafkaClient.batch;
import static dev.loam.kafka.RawKafkaClient.produce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.StreamSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests of one connection are processed concurrently and answered in order: five pipelined
 * produce requests share one WAL flush; a long-poll fetch over several partitions wakes when any of
 * them gets data.
 */
class PipeliningIT {
  static final Duration FLUSH = Duration.ofMillis(600);

  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir, KafkaTestSupport.FAST.withFlushInterval(FLUSH), b -> b);
    k.node.log().createStream("default", "t", StreamSpec.standard(3)).join();
  }

  @AfterEach
  void stop() {
    k.close();
  }

  @Test
  void fiveInFlightProducesShareOneFlushAndAreAnsweredInOrder() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      long flushesBefore = k.node.writerStats().flushes();
      long start = System.nanoTime();
      List<RequestHeader> sent = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sent.add(c.send(produce("t", 0, batch(-1, (short) -1, -1, 2, 1000 + i), (short) -1)));
      }
      List<Long> offsets = new ArrayList<>();
      for (RequestHeader h : sent) {
        // read() parses with h's correlation id and fails on any other: the order is the order
        // sent.
        ProduceResponse r = c.read(h);
        var p = r.data().responses().iterator().next().partitionResponses().get(0);
        assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
        offsets.add(p.baseOffset());
      }
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertThat(k.node.writerStats().flushes() - flushesBefore).isEqualTo(1);
      // One flush interval, not five.
      assertThat(elapsedMs).isLessThan(2 * FLUSH.toMillis());
      assertThat(offsets).containsExactlyInAnyOrder(0L, 2L, 4L, 6L, 8L);
    }
  }

  @Test
  void theProduceTimeoutBoundsTheWaitForTheCommit() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      var req = produce("t", 1, batch(-1, (short) -1, -1, 1, 1000), (short) -1);
      req.data().setTimeoutMs(50);
      long start = System.nanoTime();
      ProduceResponse r = c.call(req);
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      var p = r.data().responses().iterator().next().partitionResponses().get(0);
      // The flush interval is 600 ms: the answer comes at the timeout, outcome unknown.
      assertThat(Errors.forCode(p.errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
      assertThat(elapsedMs).isLessThan(FLUSH.toMillis());
    }
  }

  @Test
  void withOneRequestInFlightReadingPausesAndResumesAndEveryRequestIsAnswered() throws Exception {
    try (KafkaTestSupport one =
            new KafkaTestSupport(
                dir.resolve("one"), KafkaTestSupport.FAST, b -> b.maxInFlightPerConnection(1));
        RawKafkaClient c = new RawKafkaClient(one.gateway.port())) {
      one.node.log().createStream("default", "t", StreamSpec.standard(1)).join();
      List<RequestHeader> sent = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sent.add(c.send(produce("t", 0, batch(-1, (short) -1, -1, 1, 1000 + i), (short) -1)));
      }
      List<Long> offsets = new ArrayList<>();
      for (RequestHeader h : sent) {
        ProduceResponse r = c.read(h);
        offsets.add(
            r.data().responses().iterator().next().partitionResponses().get(0).baseOffset());
      }
      // One at a time, so in order.
      assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L);
    }
  }

  @Test
  void aLongPollOverSeveralPartitionsWakesWhenAnyGetsData() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic("t");
      for (int p = 0; p < 3; p++) {
        topic
            .partitions()
            .add(
                new FetchRequestData.FetchPartition()
                    .setPartition(p)
                    .setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 20));
      }
      FetchRequestData d =
          new FetchRequestData()
              .setReplicaId(-1)
              .setMaxWaitMs(20_000)
              .setMinBytes(1)
              .setMaxBytes(1 << 20)
              .setIsolationLevel((byte) 0)
              .setSessionId(0)
              .setSessionEpoch(-1)
              .setTopics(List.of(topic));
      FetchRequest req = new FetchRequest.SimpleBuilder(d).build((short) 12);
      long start = System.nanoTime();
      RequestHeader h = c.send(req);
      CompletableFuture<FetchResponse> answer =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return c.<FetchResponse>read(h);
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      // Data arrives on partition 2 only.
      k.node.log().append("default", "t", List.of(AppendRecord.of("k", "v").toPartition(2))).join();
      FetchResponse r = answer.get();
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertThat(elapsedMs).isLessThan(10_000);
      var parts = r.data().responses().get(0).partitions();
      assertThat(parts).hasSize(3);
      assertThat(parts.get(2).highWatermark()).isEqualTo(1);
      assertThat(parts.get(2).lastStableOffset()).isEqualTo(1);
      assertThat(
              ((org.apache.kafka.common.record.internal.MemoryRecords) parts.get(2).records())
                  .sizeInBytes())
          .isPositive();
      assertThat(parts.get(0).highWatermark()).isZero();
      assertThat(parts.get(2).preferredReadReplica()).isEqualTo(-1);
    }
  }
}
