package dev.loam.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import com.google.rpc.ErrorInfo;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.Record;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** A node on a temporary directory with a gRPC server on an ephemeral loopback port. */
final class GrpcTestSupport implements AutoCloseable {
  static final NodeSettings FAST = NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  final LoamNode node;
  final LoamGrpcServer server;
  final LoamGrpcClient client;

  GrpcTestSupport(Path dir) {
    this(dir, b -> b);
  }

  GrpcTestSupport(Path dir, UnaryOperator<GrpcSettings.Builder> tweak) {
    node = LoamNode.builder().nodeId("n1").dataDir(dir).settings(FAST).start();
    server = LoamGrpcServer.start(node, tweak.apply(GrpcSettings.builder().port(0)).build());
    client = LoamGrpcClient.builder().addresses(List.of(address())).build();
  }

  String address() {
    return "127.0.0.1:" + server.port();
  }

  /** A record with a UTF-8 key (may be null) and value. */
  static Record record(String key, String value) {
    Record.Builder b = Record.newBuilder().setValue(ByteString.copyFromUtf8(value));
    if (key != null) {
      b.setKey(ByteString.copyFromUtf8(key));
    }
    return b.build();
  }

  /** Runs {@code call}, expects it to fail with {@code code}, and answers its ErrorInfo. */
  static ErrorInfo failure(Status.Code code, String reason, ThrowingCallable call) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call);
    assertThat(e).as("the call fails").isNotNull();
    assertThat(e.getStatus().getCode()).as(e.getMessage()).isEqualTo(code);
    ErrorInfo info = LoamGrpcClient.errorInfo(e).orElseThrow();
    assertThat(info.getDomain()).isEqualTo("loam.dev");
    assertThat(info.getReason()).as(e.getMessage()).isEqualTo(reason);
    return info;
  }

  @Override
  public void close() {
    client.close();
    server.close();
    node.close();
  }
}
