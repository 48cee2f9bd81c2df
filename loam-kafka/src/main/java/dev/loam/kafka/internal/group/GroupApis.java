package dev.loam.kafka.internal.group;

import dev.loam.api.Log;
import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.api.ClientRequest;
import dev.loam.kafka.internal.cluster.ClusterView;
import dev.loam.kafka.internal.cluster.KafkaEndpoints;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** What the group handlers share: the coordinator, the log, the brokers, and the namespace rule. */
public final class GroupApis {
  final GroupCoordinator coordinator;
  final Log log;
  final ClusterView cluster;
  final KafkaEndpoints endpoints;

  public GroupApis(
      GroupCoordinator coordinator, Log log, ClusterView cluster, KafkaEndpoints endpoints) {
    this.coordinator = coordinator;
    this.log = log;
    this.cluster = cluster;
    this.endpoints = endpoints;
  }

  /**
   * The namespace a request's groups belong to: its connection's (an authenticated key's namespace,
   * else the listener's). The one place that decides it.
   */
  String namespace(ClientRequest request) {
    return request.namespace();
  }

  /** The topic as this node's replica knows it; empty when it does not exist. */
  CompletableFuture<Optional<StreamDescription>> topic(String namespace, String topic) {
    return log.describeStream(namespace, topic)
        .handle((d, t) -> t == null ? Optional.of(d) : Optional.<StreamDescription>empty());
  }
}
