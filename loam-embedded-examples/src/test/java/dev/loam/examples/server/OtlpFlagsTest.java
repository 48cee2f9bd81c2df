package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.cli.UsageException;
import org.junit.jupiter.api.Test;

/**
 * The OTLP port flags: {@code loam server} serves OTLP on 4318 and 4317 unless told {@code off};
 * {@code loam node} serves them only when given (docs/reference/otlp.md "Starting it").
 */
class OtlpFlagsTest {
  @Test
  void theServerServesTheOtlpDefaultPortsUnlessOff() {
    var none = LoamServerMain.CMD.parse(new String[0]);
    assertThat(LoamServerMain.OTLP.ports(none)).isEqualTo(new OtlpFlags.Ports(4318, 4317));
    var off =
        LoamServerMain.CMD.parse(
            new String[] {"--otlp-http-port", "off", "--otlp-grpc-port", "14317"});
    assertThat(LoamServerMain.OTLP.ports(off)).isEqualTo(new OtlpFlags.Ports(-1, 14317));
    assertThatThrownBy(() -> LoamServerMain.validate(new String[] {"--otlp-http-port", "70000"}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--otlp-http-port");
    var keyed =
        LoamServerMain.CMD.parse(
            new String[] {"--otlp-key-attribute", "otel_logs=service.name,app=host.name"});
    assertThat(LoamServerMain.OTLP.ports(keyed).keyAttributes())
        .isEqualTo(java.util.Map.of("otel_logs", "service.name", "app", "host.name"));
    for (String bad : new String[] {"otel_logs", "=x", "s=has space", "a=b,a=c"}) {
      assertThatThrownBy(() -> LoamServerMain.validate(new String[] {"--otlp-key-attribute", bad}))
          .as(bad)
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("--otlp-key-attribute");
    }
  }

  @Test
  void aNodeServesOtlpOnlyWhenGiven() {
    String[] base = LoamNodeMainTest.args("n1", LoamNodeMainTest.THREE);
    assertThat(NodeOptions.OTLP.ports(NodeOptions.CMD.parse(base))).isEqualTo(OtlpFlags.Ports.OFF);
    String[] given =
        LoamNodeMainTest.args("n1", LoamNodeMainTest.THREE, "--otlp-http-port", "14318");
    assertThat(NodeOptions.OTLP.ports(NodeOptions.CMD.parse(given)))
        .isEqualTo(new OtlpFlags.Ports(14318, -1));
  }
}
