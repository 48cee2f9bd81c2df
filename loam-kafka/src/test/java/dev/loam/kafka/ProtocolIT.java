package dev.loam.kafka;

import static dev.loam.kafka.RawKafkaClient.batch;
import static dev.loam.kafka.RawKafkaClient.produce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.StreamSpec;
import dev.loam.kafka.internal.api.SupportedApis;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exact requests through a raw socket: versions, framing limits, idempotence, error codes. */
class ProtocolIT {
  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir, KafkaTestSupport.FAST, b -> b.maxRequestBytes(64 * 1024));
    k.node.log().createStream("default", "t", StreamSpec.standard(1)).join();
  }

  @AfterEach
  void stop() {
    k.close();
  }

  private static PartitionProduceResponse only(ProduceResponse r) {
    return r.data().responses().iterator().next().partitionResponses().get(0);
  }

  private long highWatermark() {
    return k.node.log().describeStream("default", "t").join().partitions().get(0).highWatermark();
  }

  @Test
  void apiVersionsAdvertisesExactlyTheServedApisAndAnswersUnknownVersionsWithV0() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      ApiVersionsResponse r = c.call(new ApiVersionsRequest.Builder().build((short) 3));
      assertThat(r.data().errorCode()).isEqualTo(Errors.NONE.code());
      Map<Short, ApiVersionsResponseData.ApiVersion> got =
          r.data().apiKeys().stream().collect(Collectors.toMap(a -> a.apiKey(), a -> a));
      assertThat(got.keySet())
          .isEqualTo(
              SupportedApis.table().keySet().stream().map(a -> a.id).collect(Collectors.toSet()));
      assertThat(got.get(ApiKeys.PRODUCE.id).maxVersion()).isEqualTo((short) 13);
      assertThat(got.get(ApiKeys.FETCH.id).maxVersion()).isEqualTo((short) 18);

      // A version above the range: ApiVersions v0 carrying UNSUPPORTED_VERSION and the ranges.
      c.sendFrame(RawKafkaClient.headerOnly(ApiKeys.API_VERSIONS.id, 99, 777));
      ByteBuffer frame = c.readFrame();
      assertThat(frame.getInt()).isEqualTo(777);
      ApiVersionsResponseData v0 =
          new ApiVersionsResponseData(new ByteBufferAccessor(frame), (short) 0);
      assertThat(v0.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
      assertThat(v0.apiKeys()).hasSize(SupportedApis.table().size());
      // The connection keeps serving.
      ApiVersionsResponse again = c.call(new ApiVersionsRequest.Builder().build((short) 4));
      assertThat(again.data().errorCode()).isEqualTo(Errors.NONE.code());
    }
  }

  @Test
  void unservedApisVersionsAndBadFramesCloseOnlyTheirConnection() throws Exception {
    byte[][] bad = {
      RawKafkaClient.headerOnly(9999, 0, 1), // unknown API key
      RawKafkaClient.headerOnly(ApiKeys.FIND_COORDINATOR.id, 4, 1), // not served
      RawKafkaClient.headerOnly(ApiKeys.PRODUCE.id, 2, 1), // below the range
      RawKafkaClient.headerOnly(ApiKeys.METADATA.id, 14, 1), // above the range
      RawKafkaClient.headerOnly(ApiKeys.METADATA.id, 12, 1), // truncated body
      new byte[] {0, 3}, // shorter than a header
    };
    for (byte[] frame : bad) {
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.sendFrame(frame);
        assertThat(c.closedByServer())
            .as("closed after %s", java.util.Arrays.toString(frame))
            .isTrue();
      }
    }
    // Larger than the limit (64 KiB here), and a negative size.
    for (int size : new int[] {64 * 1024 + 1, -5}) {
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.sendBytes(ByteBuffer.allocate(8).putInt(size).putInt(0).array());
        assertThat(c.closedByServer()).isTrue();
      }
    }
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      ApiVersionsResponse r = c.call(new ApiVersionsRequest.Builder().build((short) 3));
      assertThat(r.data().errorCode()).isEqualTo(Errors.NONE.code());
    }
    assertThat(highWatermark()).isZero();
  }

  @Test
  void idempotentRetriesAnswerTheOriginalOffsetAndOutOfOrderAndFencedProducersAreRefused()
      throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      InitProducerIdResponse init =
          c.call(
              new InitProducerIdRequest.Builder(
                      new InitProducerIdRequestData()
                          .setTransactionalId(null)
                          .setTransactionTimeoutMs(60_000))
                  .build((short) 4));
      assertThat(init.error()).isEqualTo(Errors.NONE);
      long pid = init.data().producerId();
      short epoch = init.data().producerEpoch();
      assertThat(pid).isNotNegative();

      // Something else first, so the producer's batch does not start at offset 0.
      assertThat(
              only(c.call(produce("t", 0, batch(-1, (short) -1, -1, 2, 1000), (short) -1)))
                  .baseOffset())
          .isZero();
      MemoryRecords first = batch(pid, epoch, 0, 3, 2000);
      assertThat(only(c.call(produce("t", 0, first, (short) -1))).baseOffset()).isEqualTo(2);
      // The same batch again (a retry after a lost answer): its original offset, nothing appended.
      PartitionProduceResponse retry =
          only(c.call(produce("t", 0, batch(pid, epoch, 0, 3, 2000), (short) -1)));
      assertThat(retry.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(retry.baseOffset()).isEqualTo(2);
      assertThat(highWatermark()).isEqualTo(5);
      // The next sequence continues.
      assertThat(
              only(c.call(produce("t", 0, batch(pid, epoch, 3, 1, 3000), (short) -1))).baseOffset())
          .isEqualTo(5);
      // A gap in the sequence.
      PartitionProduceResponse gap =
          only(c.call(produce("t", 0, batch(pid, epoch, 10, 1, 4000), (short) -1)));
      assertThat(Errors.forCode(gap.errorCode())).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
      // A newer epoch takes over; the old one is fenced.
      short newer = (short) (epoch + 1);
      assertThat(
              only(c.call(produce("t", 0, batch(pid, newer, 0, 1, 5000), (short) -1))).errorCode())
          .isEqualTo(Errors.NONE.code());
      PartitionProduceResponse fenced =
          only(c.call(produce("t", 0, batch(pid, epoch, 4, 1, 6000), (short) -1)));
      assertThat(Errors.forCode(fenced.errorCode())).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
      assertThat(highWatermark()).isEqualTo(7);

      // A bump (current id and epoch named) gets a fresh id.
      InitProducerIdResponse bump =
          c.call(
              new InitProducerIdRequest.Builder(
                      new InitProducerIdRequestData()
                          .setTransactionalId(null)
                          .setTransactionTimeoutMs(60_000)
                          .setProducerId(pid)
                          .setProducerEpoch(newer))
                  .build((short) 4));
      assertThat(bump.data().producerId()).isNotEqualTo(pid);
      assertThat(bump.data().producerEpoch()).isZero();
    }
  }

  @Test
  void corruptAndTransactionalBatchesAreRefusedAndNothingIsStored() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      MemoryRecords good = batch(-1, (short) -1, -1, 3, 1000);
      ByteBuffer bytes = ByteBuffer.allocate(good.sizeInBytes());
      bytes.put(good.buffer().duplicate()).flip();
      // Flip a byte of a record (covered by the CRC).
      int last = bytes.limit() - 2;
      bytes.put(last, (byte) (bytes.get(last) ^ 0x5a));
      PartitionProduceResponse corrupt =
          only(c.call(produce("t", 0, MemoryRecords.readableRecords(bytes), (short) -1)));
      assertThat(Errors.forCode(corrupt.errorCode())).isEqualTo(Errors.CORRUPT_MESSAGE);

      // A transactional batch (attributes bit 4) with a valid CRC.
      ByteBuffer txn = ByteBuffer.allocate(512);
      var b =
          MemoryRecords.builder(
              txn,
              org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE,
              org.apache.kafka.common.compress.Compression.NONE,
              org.apache.kafka.common.record.TimestampType.CREATE_TIME,
              0L,
              -1L,
              7L,
              (short) 0,
              0,
              true,
              -1);
      b.append(1L, "k".getBytes(), "v".getBytes());
      PartitionProduceResponse tx = only(c.call(produce("t", 0, b.build(), (short) -1)));
      assertThat(Errors.forCode(tx.errorCode())).isEqualTo(Errors.INVALID_RECORD);
      // No records at all, and an acks value Kafka does not define.
      assertThat(Errors.forCode(only(c.call(produce("t", 0, null, (short) -1))).errorCode()))
          .isEqualTo(Errors.INVALID_RECORD);
      PartitionProduceResponse acks = only(c.call(produce("t", 0, null, (short) 2)));
      assertThat(Errors.forCode(acks.errorCode())).isEqualTo(Errors.INVALID_REQUIRED_ACKS);
      // Unknown partition and topic.
      assertThat(Errors.forCode(only(c.call(produce("t", 3, good, (short) -1))).errorCode()))
          .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    assertThat(highWatermark()).isZero();
  }

  @Test
  void acksZeroGetsNoResponseButIsStored() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      c.send(produce("t", 0, batch(-1, (short) -1, -1, 4, 1000), (short) 0));
      // The next answer on the connection is the next request's.
      RequestHeader h = c.send(new ApiVersionsRequest.Builder().build((short) 3));
      ApiVersionsResponse r = c.read(h);
      assertThat(r.data().errorCode()).isEqualTo(Errors.NONE.code());
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (highWatermark() < 4 && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
    }
    assertThat(highWatermark()).isEqualTo(4);
  }
}
