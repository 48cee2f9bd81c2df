package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.loam.otlp.internal.OtlpGrpcService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OTLP/gRPC with grpc-java's own client and the published {@code LogsServiceGrpc} stub: partial
 * success, INVALID_ARGUMENT for a malformed message, RESOURCE_EXHAUSTED past the size limit, the
 * target from metadata, and nothing stored from a refused call.
 */
class OtlpGrpcIT {
  @TempDir Path dir;

  static ManagedChannel channel(OtlpTestSupport t) {
    return NettyChannelBuilder.forAddress("127.0.0.1", t.receiver.grpcPort())
        .usePlaintext()
        .build();
  }

  static LogsServiceGrpc.LogsServiceBlockingStub stub(ManagedChannel ch, String... headers) {
    Metadata md = new Metadata();
    for (int i = 0; i < headers.length; i += 2) {
      md.put(Metadata.Key.of(headers[i], Metadata.ASCII_STRING_MARSHALLER), headers[i + 1]);
    }
    return LogsServiceGrpc.newBlockingStub(ch)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
        .withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  @Test
  void exportWithPartialSuccessAndMetadataTarget() throws Exception {
    try (OtlpTestSupport t = new OtlpTestSupport(dir)) {
      t.node.log().createNamespace("team").join();
      ManagedChannel ch = channel(t);
      try {
        ExportLogsServiceResponse resp =
            stub(ch, "loam-namespace", "team", "loam-stream", "grpc_logs")
                .withCompression("gzip")
                .export(
                    Requests.request(
                        List.of(
                            Requests.record(0),
                            Requests.record(1).toBuilder()
                                .setSpanId(ByteString.copyFrom(new byte[9]))
                                .build(),
                            Requests.record(2))));
        assertThat(resp.getPartialSuccess().getRejectedLogRecords()).isEqualTo(1);
        assertThat(resp.getPartialSuccess().getErrorMessage())
            .contains("logRecord=1 span_id must be empty or 8 bytes spanIdBytes=9");
        assertThat(t.records("team", "grpc_logs"))
            .extracting(r -> Oracle.attribute(Oracle.tree(r.value()), "i"))
            .containsExactlyInAnyOrder("0", "2");

        // All valid: an empty response.
        assertThat(stub(ch).export(Requests.request(List.of(Requests.record(5)))))
            .isEqualTo(ExportLogsServiceResponse.getDefaultInstance());
        assertThat(t.records()).hasSize(1);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void refusedCallsHaveTheirCodeAndStoreNothing() throws Exception {
    try (OtlpTestSupport t = new OtlpTestSupport(dir, b -> b.maxRequestBytes(64 * 1024))) {
      ManagedChannel ch = channel(t);
      try {
        StatusRuntimeException e =
            catchStatus(
                () ->
                    ClientCalls.blockingUnaryCall(
                        ch,
                        OtlpGrpcService.EXPORT,
                        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
                        new byte[] {(byte) 0xff, 0x01, 0x02}));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription())
            .contains("not a protobuf ExportLogsServiceRequest");

        List<io.opentelemetry.proto.logs.v1.LogRecord> big = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
          big.add(Requests.record(i));
        }
        StatusRuntimeException tooBig = catchStatus(() -> stub(ch).export(Requests.request(big)));
        assertThat(tooBig.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

        StatusRuntimeException missing =
            catchStatus(
                () ->
                    stub(ch, "loam-namespace", "nope")
                        .export(Requests.request(List.of(Requests.record(0)))));
        assertThat(missing.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);

        StatusRuntimeException badName =
            catchStatus(
                () ->
                    stub(ch, "loam-stream", "no/slash")
                        .export(Requests.request(List.of(Requests.record(0)))));
        assertThat(badName.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

        assertThat(t.records()).isEmpty();
        assertThat(t.receiver.stats().refused("MALFORMED")).isEqualTo(2);
        assertThat(t.receiver.stats().refused("NOT_FOUND")).isEqualTo(1);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  static StatusRuntimeException catchStatus(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("the call succeeded; a refusal was expected");
  }
}
