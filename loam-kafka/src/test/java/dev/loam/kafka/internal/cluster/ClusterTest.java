package dev.loam.kafka.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.NodeDescription;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** Node ids, client zones, topic ids and the leader choice of Metadata. */
class ClusterTest {
  @Test
  void nodeIdsAreStableSmallAndCollisionsResolveDeterministically() {
    assertThat(NodeIds.natural("n1"))
        .isEqualTo(NodeIds.natural("n1"))
        .isBetween(0, NodeIds.RANGE - 1);
    // Find two node ids with the same natural id.
    Map<Integer, String> seen = new java.util.HashMap<>();
    String a = null;
    String b = null;
    for (int i = 0; a == null; i++) {
      String id = "node-" + i;
      String other = seen.putIfAbsent(NodeIds.natural(id), id);
      if (other != null) {
        a = other;
        b = id;
      }
    }
    Map<String, Integer> ids = NodeIds.assign(List.of(b, a, "solo"));
    assertThat(new HashSet<>(ids.values())).hasSize(3);
    String first = a.compareTo(b) < 0 ? a : b;
    String second = first.equals(a) ? b : a;
    assertThat(ids.get(first)).isEqualTo(NodeIds.natural(first));
    assertThat(ids.get(second)).isEqualTo((NodeIds.natural(first) + 1) % NodeIds.RANGE);
    assertThat(ids.get("solo")).isEqualTo(NodeIds.natural("solo"));
    assertThat(NodeIds.assign(List.of(a, "solo", b))).isEqualTo(ids);
  }

  @Test
  void theZoneComesFromTheLoamAzElementOfTheClientId() {
    assertThat(ClientZone.of("myapp,loam_az=zone-a")).contains("zone-a");
    assertThat(ClientZone.of("loam_az=us-east-1b")).contains("us-east-1b");
    assertThat(ClientZone.of("a, loam_az=z2 ,b")).contains("z2");
    assertThat(ClientZone.of("myapp")).isEmpty();
    assertThat(ClientZone.of("loam_az=")).isEmpty();
    assertThat(ClientZone.of("ws_az=zone-a")).isEmpty();
    assertThat(ClientZone.of(null)).isEmpty();
  }

  @Property(tries = 200)
  void topicIdsAreStableDistinctAndNeverStartWithADash(
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long streamId) {
    Uuid id = TopicIds.of("cluster-1", streamId);
    assertThat(TopicIds.of("cluster-1", streamId)).isEqualTo(id);
    assertThat(TopicIds.of("cluster-2", streamId)).isNotEqualTo(id);
    assertThat(TopicIds.of("cluster-1", streamId + 1)).isNotEqualTo(id);
    assertThat(id.toString()).doesNotStartWith("-");
    assertThat(id).isNotEqualTo(Uuid.ZERO_UUID).isNotEqualTo(Uuid.ONE_UUID);
  }

  static NodeDescription node(String id, String zone) {
    return new NodeDescription(id, 1, "http://" + id, zone, 1, Map.of("kafka", id + ":9092"));
  }

  /** The endpoints as the registry has them: every node above serves Kafka at {@code <id>:9092}. */
  static KafkaEndpoints everyNode(String self) {
    return new KafkaEndpoints(self, new HostPort(self, 9092));
  }

  @Test
  void leadersAreNodesOfTheClientsZoneSpreadDeterministically() {
    List<NodeDescription> nodes =
        List.of(node("a1", "za"), node("a2", "za"), node("b1", "zb"), node("c1", ""));
    ClusterView view = new ClusterView(null, everyNode("a1"));
    ClusterView.Brokers inA = view.build(nodes, Optional.of("za"));
    assertThat(inA.all()).hasSize(4);
    assertThat(inA.candidates())
        .extracting(ClusterView.Broker::nodeId)
        .containsExactlyInAnyOrder("a1", "a2");
    Set<String> leaders = new HashSet<>();
    for (int p = 0; p < 16; p++) {
      String leader = inA.leader(7, p).nodeId();
      assertThat(leader).isIn("a1", "a2");
      leaders.add(leader);
      // Another gateway (another self) answers the same.
      assertThat(
              new ClusterView(null, everyNode("b1"))
                  .build(nodes, Optional.of("za"))
                  .leader(7, p)
                  .nodeId())
          .isEqualTo(leader);
    }
    assertThat(leaders).containsExactlyInAnyOrder("a1", "a2");
    // An unknown zone, or none: any live node.
    assertThat(view.build(nodes, Optional.of("zz")).candidates()).hasSize(4);
    assertThat(view.build(nodes, Optional.empty()).candidates()).hasSize(4);
    assertThat(inA.controllerId()).isEqualTo(inA.self().kafkaId());
    // A node that left is no leader.
    List<NodeDescription> fewer = new ArrayList<>(nodes);
    fewer.remove(1);
    for (int p = 0; p < 16; p++) {
      assertThat(view.build(fewer, Optional.of("za")).leader(7, p).nodeId()).isEqualTo("a1");
    }
  }

  @Test
  void aNodeWithoutAKafkaEndpointIsLeftOutButThisNodeIsAlwaysListed() {
    ClusterView view =
        new ClusterView(null, new KafkaEndpoints("n1", new HostPort("127.0.0.1", 1234)));
    NodeDescription noKafka = new NodeDescription("n2", 1, "http://n2", "z", 1, Map.of());
    NodeDescription badAddress =
        new NodeDescription("n3", 1, "http://n3", "z", 1, Map.of("kafka", "no-port"));
    ClusterView.Brokers b = view.build(List.of(noKafka, badAddress), Optional.empty());
    assertThat(b.all()).extracting(ClusterView.Broker::nodeId).containsExactly("n1");
    assertThat(b.self().address()).isEqualTo(new HostPort("127.0.0.1", 1234));
  }

  @Test
  void hostPortParsing() {
    assertThat(HostPort.parse("h:9092")).contains(new HostPort("h", 9092));
    assertThat(HostPort.parse("[::1]:9092")).contains(new HostPort("::1", 9092));
    assertThat(new HostPort("::1", 9092).toString()).isEqualTo("[::1]:9092");
    assertThat(HostPort.parse("h")).isEmpty();
    assertThat(HostPort.parse("h:0")).isEmpty();
    assertThat(HostPort.parse("h:x")).isEmpty();
    assertThat(HostPort.parse(":9092")).isEmpty();
  }
}
