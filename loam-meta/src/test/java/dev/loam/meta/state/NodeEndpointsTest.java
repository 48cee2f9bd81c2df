package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.SetNodeSlots;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SetNodeEndpoint rule of the node registry: validation, the per-node limit, idempotence, and
 * what registration and slot changes do to a node's endpoints. The metastore kit holds every
 * implementation to the basic cases; these are the bounds, checked on the state machine itself.
 */
class NodeEndpointsTest {
  static final long T = SnapshotV2Test.T;

  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());

  private Outcome apply(dev.loam.meta.command.Command c) {
    return m.apply(m.appliedIndex() + 1, c);
  }

  private Outcome set(long epoch, String name, String address) {
    return apply(new SetNodeEndpoint(new Origin("n1", epoch, T), name, address));
  }

  private NodeInfo n1() {
    return m.reader().node("n1").orElseThrow();
  }

  private static Outcome.Rejected rejected(Outcome o, RejectReason reason) {
    assertThat(o).as("%s", o).isInstanceOf(Outcome.Rejected.class);
    Outcome.Rejected r = (Outcome.Rejected) o;
    assertThat(r.reason()).as(r.message()).isEqualTo(reason);
    return r;
  }

  @Test
  void namesMustBeLowerCaseAsciiStartingWithALetterAndAtMost32Characters() {
    apply(new RegisterNode(new Origin("n1", 1, T), null, 1, null));
    for (String bad :
        Arrays.asList(
            null, "", "Kafka", "1kafka", "_kafka", "-k", "kä", "k.a", "k a", "a".repeat(33))) {
      Outcome.Rejected r = rejected(set(1, bad, "h:1"), RejectReason.INVALID);
      assertThat(r.message()).contains("node=n1 epoch=1");
    }
    for (String good : new String[] {"k", "kafka", "otlp-grpc", "a_1", "z".repeat(32)}) {
      assertThat(set(1, good, "h:1")).as(good).isInstanceOf(Outcome.NodeRegistered.class);
    }
    // An over-long name is cut in the message, so a refusal stays small.
    String huge = "a".repeat(10_000);
    assertThat(rejected(set(1, huge, "h"), RejectReason.INVALID).message().length())
        .isLessThan(300);
  }

  @Test
  void addressesAreAtMost255CharactersAndNotNull() {
    apply(new RegisterNode(new Origin("n1", 1, T), null, 1, null));
    assertThat(set(1, "kafka", "h".repeat(255))).isInstanceOf(Outcome.NodeRegistered.class);
    Outcome.Rejected r = rejected(set(1, "kafka", "h".repeat(256)), RejectReason.INVALID);
    assertThat(r.message()).contains("at most 255").endsWith("length=256");
    rejected(set(1, "grpc", null), RejectReason.INVALID);
    assertThat(n1().endpoints()).containsOnlyKeys("kafka");
  }

  @Test
  void aNodeHasAtMost16EndpointsAndMayStillReplaceOrRemoveThem() {
    apply(new RegisterNode(new Origin("n1", 1, T), null, 1, null));
    for (int i = 0; i < SetNodeEndpoint.MAX_ENDPOINTS; i++) {
      assertThat(set(1, "e" + i, "h:" + i)).isInstanceOf(Outcome.NodeRegistered.class);
    }
    Outcome.Rejected r = rejected(set(1, "one-more", "h"), RejectReason.INVALID);
    assertThat(r.message()).contains("at most 16").endsWith("endpoints=16");
    // At the limit, a known name may change and a removal makes room.
    assertThat(set(1, "e3", "elsewhere:3")).isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(set(1, "e0", "")).isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(set(1, "one-more", "h")).isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(n1().endpoints()).hasSize(16).containsEntry("e3", "elsewhere:3");
    assertThat(n1().endpoints()).doesNotContainKey("e0");
  }

  @Test
  void settingTheSameValueOrRemovingAnAbsentEndpointChangesNothing() {
    apply(new RegisterNode(new Origin("n1", 1, T), "http://n1", 1, null));
    Outcome first = set(1, "kafka", "h:1");
    byte[] before = m.snapshot();
    assertThat(set(1, "kafka", "h:1")).isEqualTo(first);
    assertThat(set(1, "grpc", "")).isEqualTo(first);
    byte[] after = m.snapshot();
    assertThat(Arrays.copyOfRange(after, 24, after.length - 4))
        .isEqualTo(Arrays.copyOfRange(before, 24, before.length - 4));
  }

  @Test
  void registrationAtTheSameEpochKeepsTheEndpointsAndAHigherEpochStartsWithout() {
    apply(new RegisterNode(new Origin("n1", 1, T), "http://n1", 1, null));
    set(1, "kafka", "h:1");
    // A retried registration, or the same process again after it was declared dead.
    apply(new RegisterNode(new Origin("n1", 1, T), "http://n1-again", 2, "az"));
    assertThat(n1().endpoints()).containsExactly(Map.entry("kafka", "h:1"));
    assertThat(n1().advertisedAddress()).isEqualTo("http://n1-again");
    // Slots change nothing else.
    apply(new SetNodeSlots(new Origin("n1", 1, T), "n1", 5));
    assertThat(n1().endpoints()).containsExactly(Map.entry("kafka", "h:1"));
    assertThat(n1().slots()).isEqualTo(5);
    apply(new DeregisterNode(new Origin("n1", 1, T)));
    assertThat(n1().endpoints()).containsExactly(Map.entry("kafka", "h:1"));
    // A node that left is refused like every command of a dead node.
    rejected(set(1, "grpc", "h:2"), RejectReason.UNKNOWN_NODE);

    // A restart: the new process starts without endpoints; the old epoch is fenced.
    Outcome restarted = apply(new RegisterNode(new Origin("n1", 2, T), "http://n1", 1, null));
    assertThat(((Outcome.NodeRegistered) restarted).node().endpoints()).isEmpty();
    rejected(set(1, "kafka", "h:1"), RejectReason.STALE_NODE_EPOCH);
    assertThat(n1().endpoints()).isEmpty();
    rejected(set(3, "kafka", "h:1"), RejectReason.UNKNOWN_NODE);
    assertThat(set(2, "kafka", "h:9")).isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(n1().endpoints()).containsExactly(Map.entry("kafka", "h:9"));
    assertThat(n1().epoch()).isEqualTo(2);
  }

  @Test
  void theEndpointsOfANodeInfoAreImmutableAndSorted() {
    java.util.TreeMap<String, String> src = new java.util.TreeMap<>(Map.of("b", "2", "a", "1"));
    NodeInfo n = new NodeInfo("n", 1, null, 1, null, src);
    src.put("c", "3");
    assertThat(n.endpoints()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> n.endpoints().put("d", "4"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(new NodeInfo("n", 1, null, 1, null).endpoints()).isEmpty();
    assertThat(new NodeInfo("n", 1, null, 1, null, null))
        .isEqualTo(new NodeInfo("n", 1, null, 1, null));
  }
}
