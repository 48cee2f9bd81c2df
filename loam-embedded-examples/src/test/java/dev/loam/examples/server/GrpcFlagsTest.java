package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import dev.loam.cli.UsageException;
import dev.loam.grpc.LoamGrpcServer;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.CloudEventsServiceGrpc;
import dev.loam.grpc.v1.EventOutcome;
import dev.loam.grpc.v1.EventResult;
import dev.loam.grpc.v1.IngestEventsRequest;
import dev.loam.grpc.v1.cloudevents.CloudEvent;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC port flag: {@code loam server} serves gRPC on 50051 unless told {@code off}; {@code loam
 * node} serves it only when given (docs/reference/grpc.md "Starting it"); the listener they start
 * serves CloudEvents ingest.
 */
class GrpcFlagsTest {
  @TempDir Path dir;

  @Test
  void theListenerServesCloudEventsIngest() {
    try (LoamNode node = LoamNode.builder().nodeId("n1").dataDir(dir).start();
        LoamGrpcServer grpc =
            GrpcFlags.start(
                node,
                "127.0.0.1",
                0,
                Authentication.NONE,
                IngestQuota.unlimited(),
                Optional.empty(),
                Duration.ofMinutes(5));
        LoamGrpcClient client =
            LoamGrpcClient.builder().addresses(List.of("127.0.0.1:" + grpc.port())).build()) {
      node.log().createNamespace("demo").join();
      node.log().createStream("demo", "orders", StreamSpec.standard(1)).join();
      IngestEventsRequest req =
          IngestEventsRequest.newBuilder()
              .setNamespace("demo")
              .setStream("orders")
              .addEvents(
                  CloudEvent.newBuilder()
                      .setId("e-1")
                      .setSource("/cli")
                      .setSpecVersion("1.0")
                      .setType("t")
                      .setTextData("hi"))
              .build();
      EventResult first =
          client.call(ch -> CloudEventsServiceGrpc.newBlockingStub(ch).ingest(req)).getResults(0);
      assertThat(first.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_APPENDED);
      EventResult again =
          client.call(ch -> CloudEventsServiceGrpc.newBlockingStub(ch).ingest(req)).getResults(0);
      assertThat(again.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_DUPLICATE);
      assertThat(again.getOffset()).isEqualTo(first.getOffset());
    }
  }

  @Test
  void theServerServesTheDefaultPortUnlessOff() {
    assertThat(GrpcFlags.port(LoamServerMain.CMD.parse(new String[0]), LoamServerMain.GRPC))
        .isEqualTo(50051);
    assertThat(
            GrpcFlags.port(
                LoamServerMain.CMD.parse(new String[] {"--grpc-port", "off"}), LoamServerMain.GRPC))
        .isEqualTo(-1);
    assertThat(
            GrpcFlags.port(
                LoamServerMain.CMD.parse(new String[] {"--grpc-port", "0"}), LoamServerMain.GRPC))
        .isZero();
    assertThatThrownBy(() -> LoamServerMain.validate(new String[] {"--grpc-port", "70000"}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--grpc-port");
  }

  @Test
  void aNodeServesGrpcOnlyWhenGiven() {
    String[] base = LoamNodeMainTest.args("n1", LoamNodeMainTest.THREE);
    assertThat(GrpcFlags.port(NodeOptions.CMD.parse(base), NodeOptions.GRPC)).isEqualTo(-1);
    String[] given = java.util.Arrays.copyOf(base, base.length + 2);
    given[base.length] = "--grpc-port";
    given[base.length + 1] = "50052";
    assertThat(GrpcFlags.port(NodeOptions.CMD.parse(given), NodeOptions.GRPC)).isEqualTo(50052);
  }
}
