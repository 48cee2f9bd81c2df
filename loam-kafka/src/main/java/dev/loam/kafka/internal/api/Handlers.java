package dev.loam.kafka.internal.api;

import dev.loam.api.LoamNode;
import dev.loam.kafka.KafkaGatewaySettings;
import dev.loam.kafka.internal.cluster.ClusterView;
import dev.loam.kafka.internal.cluster.KafkaEndpoints;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.cluster.Topics;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.protocol.ApiKeys;

/** Wires every handler of a gateway into its {@link Dispatcher}. */
public final class Handlers {
  private Handlers() {}

  /** The dispatcher serving every implemented API for {@code node}. */
  public static Dispatcher dispatcher(
      LoamNode node, KafkaGatewaySettings settings, KafkaEndpoints endpoints) {
    Topics topics =
        new Topics(
            node.log(),
            node.clusterId(),
            settings.autoCreateTopics(),
            settings.defaultPartitions());
    ClusterView cluster = new ClusterView(node.log(), endpoints);
    OwnerForwarding owners = new OwnerForwarding(node.log(), endpoints);
    AtomicReference<Dispatcher> self = new AtomicReference<>();
    Map<ApiKeys, ApiHandler> h = new EnumMap<>(ApiKeys.class);
    h.put(ApiKeys.API_VERSIONS, new ApiVersionsHandler(() -> self.get().supported()));
    h.put(ApiKeys.METADATA, new MetadataHandler(topics, cluster));
    h.put(ApiKeys.DESCRIBE_CLUSTER, new DescribeClusterHandler(cluster, node.clusterId()));
    h.put(ApiKeys.PRODUCE, new ProduceHandler(topics));
    h.put(ApiKeys.FETCH, new FetchHandler(topics, settings.maxFetchWait()));
    h.put(ApiKeys.LIST_OFFSETS, new ListOffsetsHandler(topics));
    h.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochHandler(topics));
    h.put(ApiKeys.CREATE_TOPICS, new CreateTopicsHandler(topics));
    h.put(ApiKeys.DELETE_TOPICS, new DeleteTopicsHandler(topics, owners));
    h.put(ApiKeys.CREATE_PARTITIONS, new CreatePartitionsHandler(topics, owners));
    h.put(ApiKeys.DESCRIBE_CONFIGS, new DescribeConfigsHandler(topics));
    h.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, new IncrementalAlterConfigsHandler(topics, owners));
    h.put(ApiKeys.INIT_PRODUCER_ID, new InitProducerIdHandler(node.log()));
    if (settings.authentication() != KafkaGatewaySettings.Authentication.NONE) {
      h.put(ApiKeys.SASL_HANDSHAKE, new SaslHandshakeHandler());
      h.put(ApiKeys.SASL_AUTHENTICATE, new SaslAuthenticateHandler());
    }
    Dispatcher d = new Dispatcher(h, owners);
    self.set(d);
    return d;
  }
}
