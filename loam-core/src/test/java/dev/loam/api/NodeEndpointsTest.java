package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named endpoints through the public API: two nodes on one metastore advertise their listeners with
 * {@link Log#advertiseEndpoint} and each sees both through {@link Log#listNodes}; a restarted node
 * starts without endpoints and the process it replaced is fenced.
 */
class NodeEndpointsTest {
  @TempDir Path dir;

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(5, TimeUnit.SECONDS);
  }

  /** Node id to endpoints, as {@code n} lists the live nodes. */
  private static Map<String, Map<String, String>> endpoints(LoamNode n) throws Exception {
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    for (NodeDescription d : get(n.log().listNodes(Optional.empty()))) {
      out.put(d.nodeId(), d.endpoints());
    }
    return out;
  }

  private static LoamException failure(CompletableFuture<?> f) {
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(LoamException.class);
    return (LoamException) e.getCause();
  }

  @Test
  void twoNodesSeeEachOthersEndpointsThroughListNodes() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode a = c.start("a", TestCluster.FAST);
      LoamNode b = c.start("b", TestCluster.FAST);
      assertThat(endpoints(a)).isEqualTo(Map.of("a", Map.of(), "b", Map.of()));

      NodeDescription da = get(a.log().advertiseEndpoint("kafka", "10.0.0.1:9092"));
      assertThat(da.nodeId()).isEqualTo("a");
      assertThat(da.epoch()).isEqualTo(a.epoch());
      assertThat(da.endpoints()).isEqualTo(Map.of("kafka", "10.0.0.1:9092"));
      get(b.log().advertiseEndpoint("kafka", "10.0.0.2:9092"));
      NodeDescription db = get(b.log().advertiseEndpoint("otlp-grpc", "10.0.0.2:4317"));
      assertThat(db.endpoints().keySet()).containsExactly("kafka", "otlp-grpc");

      Map<String, Map<String, String>> both =
          Map.of(
              "a", Map.of("kafka", "10.0.0.1:9092"),
              "b", Map.of("kafka", "10.0.0.2:9092", "otlp-grpc", "10.0.0.2:4317"));
      assertThat(endpoints(a)).isEqualTo(both);
      assertThat(endpoints(b)).isEqualTo(both);

      // Replace, remove, and the same value again (no change).
      get(a.log().advertiseEndpoint("kafka", "10.0.0.1:19092"));
      get(b.log().advertiseEndpoint("otlp-grpc", ""));
      assertThat(get(b.log().advertiseEndpoint("kafka", "10.0.0.2:9092")).endpoints())
          .isEqualTo(Map.of("kafka", "10.0.0.2:9092"));
      assertThat(endpoints(b))
          .isEqualTo(
              Map.of(
                  "a", Map.of("kafka", "10.0.0.1:19092"),
                  "b", Map.of("kafka", "10.0.0.2:9092")));
      // The zone filter keeps the endpoints.
      String zone = get(a.log().listNodes(Optional.empty())).get(0).zone();
      List<NodeDescription> inZone = get(b.log().listNodes(Optional.of(zone)));
      assertThat(inZone)
          .extracting(NodeDescription::endpoints)
          .contains(Map.of("kafka", "10.0.0.1:19092"));
      assertThatThrownBy(() -> inZone.get(0).endpoints().put("x", "y"))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void badEndpointsFailInvalidNamingWhatWasWrong() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode a = c.start("a", TestCluster.FAST);
      LoamException name = failure(a.log().advertiseEndpoint("Kafka", "h:1"));
      assertThat(name.kind()).isEqualTo(Kind.INVALID);
      assertThat(name.getMessage())
          .contains("endpoint name")
          .contains("node=a")
          .contains("endpoint=Kafka");
      LoamException address = failure(a.log().advertiseEndpoint("kafka", "h".repeat(256)));
      assertThat(address.kind()).isEqualTo(Kind.INVALID);
      assertThat(address.getMessage()).contains("at most 255").contains("length=256");
      assertThat(failure(a.log().advertiseEndpoint("kafka", null)).kind()).isEqualTo(Kind.INVALID);
      assertThat(failure(a.log().advertiseEndpoint(null, "h:1")).kind()).isEqualTo(Kind.INVALID);
      for (int i = 0; i < 16; i++) {
        get(a.log().advertiseEndpoint("e" + i, "h:" + i));
      }
      LoamException limit = failure(a.log().advertiseEndpoint("one-more", "h:1"));
      assertThat(limit.kind()).isEqualTo(Kind.INVALID);
      assertThat(limit.getMessage()).contains("at most 16");
      assertThat(endpoints(a).get("a")).hasSize(16).doesNotContainKey("kafka");
    }
  }

  @Test
  void aRestartedNodeStartsWithoutEndpointsAndTheProcessItReplacedIsFenced() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode first = c.start("a", TestCluster.FAST);
      get(first.log().advertiseEndpoint("kafka", "old-host:9092"));
      // The same node id started again: a new process, registered at a higher epoch.
      LoamNode second = c.start("a", TestCluster.FAST);
      assertThat(second.epoch()).isGreaterThan(first.epoch());
      NodeDescription registered = get(second.log().listNodes(Optional.empty())).get(0);
      assertThat(registered.epoch()).isEqualTo(second.epoch());
      assertThat(registered.endpoints()).isEmpty();

      LoamException zombie = failure(first.log().advertiseEndpoint("kafka", "old-host:9092"));
      assertThat(zombie.kind()).isEqualTo(Kind.FENCED);
      assertThat(endpoints(second).get("a")).isEmpty();
      get(second.log().advertiseEndpoint("kafka", "new-host:9092"));
      assertThat(endpoints(first)).isEqualTo(Map.of("a", Map.of("kafka", "new-host:9092")));
    }
  }
}
