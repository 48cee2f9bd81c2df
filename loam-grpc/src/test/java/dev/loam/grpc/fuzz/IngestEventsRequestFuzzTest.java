package dev.loam.grpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.loam.cloudevents.InvalidEventException;
import dev.loam.grpc.internal.CloudEventsServiceImpl;
import dev.loam.grpc.v1.IngestEventsRequest;

/**
 * Coverage-guided fuzzing of what the gRPC server makes of an Ingest message's bytes: protobuf's
 * parse, then the CloudEvents codec and validation. Contract: a protobuf parse error, or an {@link
 * InvalidEventException} naming {@code events}, or one event per message event; nothing else is
 * thrown.
 */
class IngestEventsRequestFuzzTest {
  @FuzzTest
  void events(byte[] input) {
    IngestEventsRequest req;
    try {
      req = IngestEventsRequest.parseFrom(input);
    } catch (InvalidProtocolBufferException e) {
      return;
    }
    try {
      assertThat(CloudEventsServiceImpl.events(req)).hasSize(req.getEventsCount());
    } catch (InvalidEventException e) {
      assertThat(e.getMessage()).startsWith("events");
      assertThat(CloudEventsServiceImpl.refusal(e, "ns", "s").getStatus().getDescription())
          .contains(e.getMessage());
    }
  }
}
