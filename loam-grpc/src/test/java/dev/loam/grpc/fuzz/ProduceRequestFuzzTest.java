package dev.loam.grpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.loam.api.AppendRecord;
import dev.loam.error.LoamException;
import dev.loam.grpc.internal.Convert;
import dev.loam.grpc.v1.ProduceRequest;
import java.util.List;

/**
 * Coverage-guided fuzzing of what the gRPC server makes of a Produce message's bytes: protobuf's
 * parse, then {@link Convert#records} and {@link Convert#producer}. Contract: a protobuf parse
 * error, or an INVALID {@link LoamException} naming a field, or one record per message record;
 * nothing else is thrown.
 */
class ProduceRequestFuzzTest {
  @FuzzTest
  void convert(byte[] input) {
    ProduceRequest req;
    try {
      req = ProduceRequest.parseFrom(input);
    } catch (InvalidProtocolBufferException e) {
      return;
    }
    try {
      List<AppendRecord> records = Convert.records(req.getRecordsList());
      assertThat(records).hasSize(req.getRecordsCount());
      if (req.hasProducer()) {
        Convert.producer(req.getProducer());
      }
      assertThat(Convert.bytes(records)).isNotNegative();
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
