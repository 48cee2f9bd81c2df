package dev.loam.kafka.internal.api;

import dev.loam.api.Role;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * The role each API needs (docs/reference/kafka.md "Authorization"), checked before its handler
 * runs. A connection acts in one namespace, its key's, so a key's role covers every topic a request
 * can name: a missing role refuses the whole request, with Kafka's error for it on every topic
 * (TOPIC_AUTHORIZATION_FAILED), group (GROUP_AUTHORIZATION_FAILED) or, for InitProducerId, the
 * cluster (CLUSTER_AUTHORIZATION_FAILED), as a Kafka broker answers a principal without the ACL.
 * APIs not listed (ApiVersions, SASL, Metadata, DescribeCluster, DescribeConfigs, FindCoordinator)
 * need only an authenticated connection.
 */
final class Authorization {
  private Authorization() {}

  private enum Scope {
    TOPIC,
    GROUP,
    CLUSTER
  }

  private record Need(Role role, Scope scope) {}

  private static final Map<ApiKeys, Need> NEEDS = new EnumMap<>(ApiKeys.class);

  static {
    NEEDS.put(ApiKeys.PRODUCE, new Need(Role.PRODUCE, Scope.TOPIC));
    NEEDS.put(ApiKeys.INIT_PRODUCER_ID, new Need(Role.PRODUCE, Scope.CLUSTER));
    NEEDS.put(ApiKeys.FETCH, new Need(Role.CONSUME, Scope.TOPIC));
    NEEDS.put(ApiKeys.LIST_OFFSETS, new Need(Role.CONSUME, Scope.TOPIC));
    NEEDS.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, new Need(Role.CONSUME, Scope.TOPIC));
    NEEDS.put(ApiKeys.CREATE_TOPICS, new Need(Role.ADMIN, Scope.TOPIC));
    NEEDS.put(ApiKeys.DELETE_TOPICS, new Need(Role.ADMIN, Scope.TOPIC));
    NEEDS.put(ApiKeys.CREATE_PARTITIONS, new Need(Role.ADMIN, Scope.TOPIC));
    NEEDS.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, new Need(Role.ADMIN, Scope.TOPIC));
    // Consumer groups: named consumers are the consume role's (docs/security.md).
    for (ApiKeys k :
        new ApiKeys[] {
          ApiKeys.JOIN_GROUP,
          ApiKeys.SYNC_GROUP,
          ApiKeys.HEARTBEAT,
          ApiKeys.LEAVE_GROUP,
          ApiKeys.OFFSET_COMMIT,
          ApiKeys.OFFSET_FETCH,
          ApiKeys.CONSUMER_GROUP_HEARTBEAT,
          ApiKeys.DESCRIBE_GROUPS,
          ApiKeys.LIST_GROUPS,
          ApiKeys.DELETE_GROUPS,
          ApiKeys.OFFSET_DELETE
        }) {
      NEEDS.put(k, new Need(Role.CONSUME, Scope.GROUP));
    }
  }

  /** Marks a refused request that gets no answer (Produce with acks=0). */
  static final ApiMessage ABSENT = new org.apache.kafka.common.message.ProduceResponseData();

  /** The role {@code api} needs; empty when any authenticated connection may call it. */
  static Optional<Role> roleFor(ApiKeys api) {
    Need n = NEEDS.get(api);
    return n == null ? Optional.empty() : Optional.of(n.role());
  }

  /**
   * The refusal of {@code request}, when its connection lacks the role; empty when it may go on.
   */
  static Optional<ApiMessage> refusal(ClientRequest request) {
    ApiKeys api = request.header().apiKey();
    Need n = NEEDS.get(api);
    if (n == null || request.session().has(n.role())) {
      return Optional.empty();
    }
    String message =
        "the API key lacks the "
            + n.role().label()
            + " role for api="
            + api.name
            + " namespace="
            + request.namespace()
            + " "
            + request.session().who();
    ApiException e =
        switch (n.scope()) {
          case TOPIC -> new TopicAuthorizationException(message);
          case GROUP -> new GroupAuthorizationException(message);
          case CLUSTER -> new ClusterAuthorizationException(message);
        };
    if (request.body() instanceof ProduceRequest p && p.acks() == 0) {
      // acks=0 gets no answer, whatever happens to it.
      return Optional.of(ABSENT);
    }
    if (request.body() instanceof ProduceRequest p) {
      // Built by hand: Kafka's error response for Produce assumes every partition carries records.
      return Optional.of(
          ProduceHandler.everyPartition(
              p, request.version() >= 13, Errors.TOPIC_AUTHORIZATION_FAILED, message));
    }
    return Optional.of(request.body().getErrorResponse(0, e).data());
  }
}
