package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.cli.UsageException;
import org.junit.jupiter.api.Test;

/**
 * The gRPC port flag: {@code loam server} serves gRPC on 50051 unless told {@code off}; {@code loam
 * node} serves it only when given (docs/reference/grpc.md "Starting it").
 */
class GrpcFlagsTest {
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
