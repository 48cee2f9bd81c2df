package dev.loam.kafka.internal.api;

import dev.loam.api.LoamNode;
import dev.loam.kafka.KafkaGatewaySettings;
import dev.loam.kafka.internal.cluster.ClusterView;
import dev.loam.kafka.internal.cluster.KafkaEndpoints;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.group.ConsumerGroupDescribeHandler;
import dev.loam.kafka.internal.group.ConsumerGroupHeartbeatHandler;
import dev.loam.kafka.internal.group.FindCoordinatorHandler;
import dev.loam.kafka.internal.group.GroupAdminHandlers;
import dev.loam.kafka.internal.group.GroupApis;
import dev.loam.kafka.internal.group.GroupCoordinator;
import dev.loam.kafka.internal.group.MembershipHandlers;
import dev.loam.kafka.internal.group.OffsetHandlers;
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
    OwnerForwarding owners = new OwnerForwarding(node.log(), endpoints, settings);
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
    GroupCoordinator coordinator = new GroupCoordinator(node.log(), settings.groups());
    GroupApis groups = new GroupApis(coordinator, node.log(), cluster, endpoints);
    h.put(ApiKeys.FIND_COORDINATOR, new FindCoordinatorHandler(groups));
    h.put(ApiKeys.JOIN_GROUP, MembershipHandlers.join(groups));
    h.put(ApiKeys.SYNC_GROUP, MembershipHandlers.sync(groups));
    h.put(ApiKeys.HEARTBEAT, MembershipHandlers.heartbeat(groups));
    h.put(ApiKeys.LEAVE_GROUP, MembershipHandlers.leave(groups));
    h.put(ApiKeys.OFFSET_COMMIT, OffsetHandlers.commit(groups));
    h.put(ApiKeys.OFFSET_FETCH, OffsetHandlers.fetch(groups));
    h.put(ApiKeys.LIST_GROUPS, GroupAdminHandlers.list(groups));
    h.put(ApiKeys.DESCRIBE_GROUPS, GroupAdminHandlers.describe(groups));
    h.put(ApiKeys.DELETE_GROUPS, GroupAdminHandlers.delete(groups));
    h.put(ApiKeys.OFFSET_DELETE, GroupAdminHandlers.deleteOffsets(groups));
    h.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, new ConsumerGroupHeartbeatHandler(groups, topics));
    h.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, new ConsumerGroupDescribeHandler(groups, topics));
    if (settings.authentication() != KafkaGatewaySettings.Authentication.NONE) {
      h.put(ApiKeys.SASL_HANDSHAKE, new SaslHandshakeHandler());
      h.put(ApiKeys.SASL_AUTHENTICATE, new SaslAuthenticateHandler());
    }
    Dispatcher d =
        new Dispatcher(
            h,
            () -> {
              coordinator.close();
              owners.close();
            });
    self.set(d);
    return d;
  }
}
