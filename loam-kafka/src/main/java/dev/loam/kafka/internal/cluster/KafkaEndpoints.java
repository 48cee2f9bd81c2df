package dev.loam.kafka.internal.cluster;

import dev.loam.api.NodeDescription;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where each node's Kafka listener is. This node's address is the one its gateway bound and
 * advertises; another node's comes from the node registry, where each gateway publishes its
 * listener under the endpoint name {@value #ENDPOINT}. A node without one runs no gateway and is
 * left out of Metadata.
 */
public final class KafkaEndpoints {
  /** The endpoint name under which a gateway publishes its {@code host:port}. */
  public static final String ENDPOINT = "kafka";

  private final String selfNodeId;
  private final HostPort self;
  private final Function<NodeDescription, Optional<String>> registry;

  /** This node's listener, and every other node's as the registry records it. */
  public KafkaEndpoints(String selfNodeId, HostPort self) {
    this(selfNodeId, self, n -> Optional.ofNullable(n.endpoints().get(ENDPOINT)));
  }

  /**
   * @param registry a node's published {@value #ENDPOINT} address ({@code host:port}) as the node
   *     registry has it
   */
  public KafkaEndpoints(
      String selfNodeId, HostPort self, Function<NodeDescription, Optional<String>> registry) {
    this.selfNodeId = selfNodeId;
    this.self = self;
    this.registry = registry;
  }

  /** This node's id. */
  public String selfNodeId() {
    return selfNodeId;
  }

  /** This gateway's advertised address. */
  public HostPort self() {
    return self;
  }

  /** The Kafka address of {@code node}; empty if it serves no Kafka listener. */
  public Optional<HostPort> address(NodeDescription node) {
    if (node.nodeId().equals(selfNodeId)) {
      return Optional.of(self);
    }
    return registry.apply(node).flatMap(HostPort::parse);
  }
}
