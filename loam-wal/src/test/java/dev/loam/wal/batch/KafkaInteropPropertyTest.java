package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class KafkaInteropPropertyTest {
  @Provide
  Arbitrary<List<RecordData>> records() {
    return BatchArbitraries.recordLists(10);
  }

  @Provide
  Arbitrary<BatchSettings> settings() {
    // Kafka requires the producer triple to be all -1 (not idempotent) or all valid.
    return BatchArbitraries.settings()
        .map(
            s -> {
              boolean idempotent =
                  s.producerId() >= 0 && s.producerEpoch() >= 0 && s.baseSequence() >= 0;
              return new BatchSettings(
                  s.baseOffset(),
                  s.compression(),
                  TimestampType.CREATE_TIME,
                  idempotent ? s.producerId() : -1L,
                  idempotent ? s.producerEpoch() : (short) -1,
                  idempotent ? s.baseSequence() : -1);
            });
  }

  @Property(tries = 200)
  void kafkaAgreesWithUs(
      @ForAll("settings") BatchSettings s, @ForAll("records") List<RecordData> in) {
    byte[] ours = RecordBatchEncoder.encode(s, in);
    assertThat(KafkaInteropTest.kafkaDecode(ours)).isEqualTo(in);
    byte[] theirs = KafkaInteropTest.kafkaEncode(s, in);
    if (s.compression() == Compression.NONE) {
      assertThat(ours).isEqualTo(theirs);
    }
    assertThat(
            RecordBatch.readFrom(java.nio.ByteBuffer.wrap(theirs)).records().stream()
                .map(Record::toData)
                .toList())
        .isEqualTo(in);
  }
}
