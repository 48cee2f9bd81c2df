package dev.loam.meta;

import static dev.loam.meta.MetastoreContractTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.SetNodeEndpoint;
import java.util.Map;

/**
 * The bodies of the metastore kit's node-endpoint cases (SetNodeEndpoint, docs/design/metastore.md
 * "Nodes"). {@link MetastoreContractTest} declares each case, so that every implementation runs it
 * and a subclass may override it like any other; the bodies live here to keep the kit's file to a
 * readable size.
 */
final class NodeEndpointCases {
  private NodeEndpointCases() {}

  /** Proposes, checks the outcome is the node, and waits until reads see it applied. */
  private static NodeInfo setOk(
      MetastoreContractTest k, String node, long epoch, String n, String a) {
    Applied applied = k.propose(new SetNodeEndpoint(k.origin(node, epoch), n, a));
    assertThat(applied.outcome())
        .as("%s", applied.outcome())
        .isInstanceOf(Outcome.NodeRegistered.class);
    k.await(k.ms.awaitApplied(applied.index()));
    return ((Outcome.NodeRegistered) applied.outcome()).node();
  }

  private static NodeInfo read(MetastoreContractTest k, String node) {
    return k.ms.read((MetaReader r) -> r.node(node)).orElseThrow();
  }

  static void setAndReplace(MetastoreContractTest k) {
    k.register("n1", 1);
    k.register("n2", 1);
    NodeInfo set = setOk(k, "n1", 1, "kafka", "10.0.0.1:9092");
    assertThat(set.id()).isEqualTo("n1");
    assertThat(set.endpoints()).containsExactly(Map.entry("kafka", "10.0.0.1:9092"));
    assertThat(read(k, "n1")).isEqualTo(set);
    // The rest of the record is untouched; another node's endpoints are its own.
    assertThat(set.advertisedAddress()).isEqualTo("host:9092");
    assertThat(read(k, "n2").endpoints()).isEmpty();

    NodeInfo replaced = setOk(k, "n1", 1, "kafka", "10.0.0.9:19092");
    assertThat(replaced.endpoints()).containsExactly(Map.entry("kafka", "10.0.0.9:19092"));
    NodeInfo two = setOk(k, "n1", 1, "grpc", "10.0.0.9:9090");
    assertThat(two.endpoints())
        .containsExactly(Map.entry("grpc", "10.0.0.9:9090"), Map.entry("kafka", "10.0.0.9:19092"));
    // The same value again is an idempotent success that changes nothing.
    assertThat(setOk(k, "n1", 1, "grpc", "10.0.0.9:9090")).isEqualTo(two);
    assertThat(read(k, "n1")).isEqualTo(two);
  }

  static void removeWithAnEmptyAddress(MetastoreContractTest k) {
    k.register("n1", 1);
    setOk(k, "n1", 1, "kafka", "h:9092");
    setOk(k, "n1", 1, "otlp-grpc", "h:4317");
    NodeInfo removed = setOk(k, "n1", 1, "kafka", "");
    assertThat(removed.endpoints()).containsExactly(Map.entry("otlp-grpc", "h:4317"));
    // Removing what is absent changes nothing.
    assertThat(setOk(k, "n1", 1, "kafka", "")).isEqualTo(removed);
    assertThat(setOk(k, "n1", 1, "otlp-grpc", "").endpoints()).isEmpty();
    assertThat(read(k, "n1").endpoints()).isEmpty();
  }

  static void staleEpochIsRefused(MetastoreContractTest k) {
    k.register("n1", 1);
    setOk(k, "n1", 1, "kafka", "old:9092");
    k.register("n1", 2);
    Outcome zombie = k.apply(new SetNodeEndpoint(k.origin("n1", 1), "kafka", "zombie:9092"));
    assertRejected(zombie, RejectReason.STALE_NODE_EPOCH);
    assertThat(((Outcome.Rejected) zombie).message()).contains("node=n1 epoch=1 registeredEpoch=2");
    assertRejected(
        k.apply(new SetNodeEndpoint(k.origin("nx", 1), "kafka", "h:1")), RejectReason.UNKNOWN_NODE);
    NodeInfo now = setOk(k, "n1", 2, "grpc", "new:9090");
    assertThat(now.endpoints()).containsExactly(Map.entry("grpc", "new:9090"));
  }

  static void reRegistrationAtAHigherEpochClears(MetastoreContractTest k) {
    k.register("n1", 1);
    setOk(k, "n1", 1, "kafka", "h:9092");
    // The same epoch again (a retried registration) keeps them: the same process.
    Outcome same = k.apply(new RegisterNode(k.origin("n1", 1), "host:9092", 4, "az1"));
    assertThat(((Outcome.NodeRegistered) same).node().endpoints()).containsOnlyKeys("kafka");
    // A restart: the new process advertises again when its listeners start.
    Outcome restarted = k.apply(new RegisterNode(k.origin("n1", 2), "host:9092", 4, "az1"));
    assertThat(((Outcome.NodeRegistered) restarted).node().endpoints()).isEmpty();
    NodeInfo again = setOk(k, "n1", 2, "kafka", "elsewhere:9092");
    assertThat(again.epoch()).isEqualTo(2);
    assertThat(read(k, "n1").endpoints()).containsExactly(Map.entry("kafka", "elsewhere:9092"));
  }

  static void invalidEndpointsAreRefused(MetastoreContractTest k) {
    k.register("n1", 1);
    for (String bad : new String[] {"", "Kafka", "9k", "k.a", "a".repeat(33)}) {
      Outcome o = k.apply(new SetNodeEndpoint(k.origin("n1", 1), bad, "h:1"));
      assertRejected(o, RejectReason.INVALID);
      assertThat(((Outcome.Rejected) o).message()).contains("node=n1");
    }
    assertRejected(
        k.apply(new SetNodeEndpoint(k.origin("n1", 1), "kafka", "h".repeat(256))),
        RejectReason.INVALID);
    for (int i = 0; i < SetNodeEndpoint.MAX_ENDPOINTS; i++) {
      setOk(k, "n1", 1, "e" + i, "h:" + i);
    }
    assertRejected(
        k.apply(new SetNodeEndpoint(k.origin("n1", 1), "kafka", "h:1")), RejectReason.INVALID);
    assertThat(read(k, "n1").endpoints()).hasSize(SetNodeEndpoint.MAX_ENDPOINTS);
  }
}
