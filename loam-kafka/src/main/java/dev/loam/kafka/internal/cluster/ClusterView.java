package dev.loam.kafka.internal.cluster;

import dev.loam.api.Log;
import dev.loam.api.NodeDescription;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The brokers a client is told about (stream-engine.txt §7.2 "Leaderless"): every live node that
 * serves a Kafka listener, with its Kafka id ({@link NodeIds}). Any node accepts produce and fetch
 * for any partition, so the leader of a partition is simply a live node in the client's zone: the
 * candidates are the brokers of that zone (all brokers when the client names no zone or its zone
 * has none), sorted by Kafka id, and partition {@code p} of stream {@code s} goes to candidate
 * {@code (mix(s) + p) mod n}, which spreads a topic's partitions over the candidates and gives
 * every gateway the same answer. A node that dies leaves the registry and so leaves Metadata.
 */
public final class ClusterView {
  private final Log log;
  private final KafkaEndpoints endpoints;

  public ClusterView(Log log, KafkaEndpoints endpoints) {
    this.log = log;
    this.endpoints = endpoints;
  }

  /** One broker of Metadata. */
  public record Broker(int kafkaId, String nodeId, HostPort address, String zone) {}

  /** The brokers, and the candidates leaders are drawn from for one client. */
  public record Brokers(List<Broker> all, List<Broker> candidates, Broker self) {
    /** The leader of one partition. */
    public Broker leader(long streamId, int partition) {
      long h = streamId * 0x9E3779B97F4A7C15L;
      h ^= h >>> 29;
      int i = (int) Math.floorMod(h + partition, (long) candidates.size());
      return candidates.get(i);
    }

    /**
     * Only this node, leading every partition: what a forwarded admin request's client is told
     * ({@link OwnerForwarding}), so it sends the request here and nowhere else.
     */
    public Brokers selfOnly() {
      return new Brokers(List.of(self), List.of(self), self);
    }

    /**
     * The controller Metadata and DescribeCluster announce: this node. Admin requests go to the
     * controller, and every node serves them.
     */
    public int controllerId() {
      return self.kafkaId();
    }
  }

  /**
   * The leader Metadata names for one partition: for a quorum stream the journal's leader as this
   * node knows it, or a replica of the journal, which forwards appends to the leader
   * (docs/design/quorum.md "Quorum streams"), when that node serves a Kafka listener; otherwise,
   * and for the leaderless classes, {@link Brokers#leader}.
   */
  public Broker partitionLeader(Brokers brokers, dev.loam.api.StreamDescription d, int partition) {
    if (d.spec().durabilityClass() == dev.loam.api.Durability.QUORUM) {
      java.util.Optional<String> node;
      try {
        node = log.partitionLeader(d.namespace(), d.name(), partition);
      } catch (dev.loam.error.LoamException e) {
        node = java.util.Optional.empty(); // deleted meanwhile: any broker answers its error
      }
      if (node.isPresent()) {
        for (Broker b : brokers.all()) {
          if (b.nodeId().equals(node.get())) {
            return b;
          }
        }
      }
    }
    return brokers.leader(d.id(), partition);
  }

  /** The brokers as the local registry view has them, with the candidates for {@code zone}. */
  public CompletableFuture<Brokers> brokers(Optional<String> zone) {
    return log.listNodes(Optional.empty()).thenApply(nodes -> build(nodes, zone));
  }

  Brokers build(List<NodeDescription> nodes, Optional<String> zone) {
    Map<String, NodeDescription> serving = new LinkedHashMap<>();
    Map<String, HostPort> addresses = new LinkedHashMap<>();
    for (NodeDescription n : nodes) {
      endpoints
          .address(n)
          .ifPresent(
              a -> {
                serving.put(n.nodeId(), n);
                addresses.put(n.nodeId(), a);
              });
    }
    String selfId = endpoints.selfNodeId();
    addresses.putIfAbsent(selfId, endpoints.self());
    Map<String, Integer> ids = NodeIds.assign(addresses.keySet());
    List<Broker> all = new ArrayList<>();
    Broker self = null;
    for (Map.Entry<String, Integer> e : ids.entrySet()) {
      NodeDescription n = serving.get(e.getKey());
      String z = n == null ? "" : n.zone();
      Broker b = new Broker(e.getValue(), e.getKey(), addresses.get(e.getKey()), z);
      all.add(b);
      if (e.getKey().equals(selfId)) {
        self = b;
      }
    }
    all.sort(Comparator.comparingInt(Broker::kafkaId));
    List<Broker> candidates = all;
    if (zone.isPresent()) {
      List<Broker> inZone = all.stream().filter(b -> b.zone().equals(zone.get())).toList();
      if (!inZone.isEmpty()) {
        candidates = inZone;
      }
    }
    return new Brokers(List.copyOf(all), List.copyOf(candidates), self);
  }
}
