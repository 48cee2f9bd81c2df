package dev.loam.kafka.internal.group;

import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.api.ApiHandler;
import dev.loam.kafka.internal.api.ClientRequest;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;

/**
 * ConsumerGroupHeartbeat (v0–1): KIP-848's consumer protocol ({@code group.protocol=consumer}),
 * with the uniform and range server-side assignors ({@link ConsumerGroup}). Partitions travel by
 * topic id. Regular-expression subscriptions are refused.
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler {
  private final GroupApis apis;
  private final Topics topics;

  public ConsumerGroupHeartbeatHandler(GroupApis apis, Topics topics) {
    this.apis = apis;
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    ConsumerGroupHeartbeatRequestData d = ((ConsumerGroupHeartbeatRequest) request.body()).data();
    String ns = apis.namespace(request);
    if (d.groupId().isEmpty()) {
      return answer(error(Errors.INVALID_REQUEST, "the group id must not be empty"));
    }
    if (d.subscribedTopicRegex() != null && !d.subscribedTopicRegex().isEmpty()) {
      return answer(
          error(
              Errors.INVALID_REGULAR_EXPRESSION,
              "regular-expression subscriptions are not supported by Loam"));
    }
    ClassicGroup classic = apis.coordinator.loaded(ns, d.groupId());
    if (classic != null) {
      synchronized (classic) {
        if (!classic.members.isEmpty()) {
          return answer(
              error(
                  Errors.GROUP_ID_NOT_FOUND,
                  "group " + d.groupId() + " is a classic group with members"));
        }
      }
    }
    // The owned partitions arrive by topic id: their names first.
    Map<Uuid, CompletableFuture<Optional<String>>> names = new LinkedHashMap<>();
    if (d.topicPartitions() != null) {
      d.topicPartitions()
          .forEach(t -> names.computeIfAbsent(t.topicId(), id -> topics.nameOf(ns, id)));
    }
    return CompletableFuture.allOf(names.values().toArray(CompletableFuture[]::new))
        .thenCompose(v -> apis.coordinator.loadConsumer(ns, d.groupId()))
        .thenCompose(
            g -> {
              // Every topic the group's members subscribe to, described before the heartbeat:
              // the assignment is computed under the group's lock, where nothing may wait.
              Set<String> wanted = new TreeSet<>();
              if (d.subscribedTopicNames() != null) {
                wanted.addAll(d.subscribedTopicNames());
              }
              synchronized (g) {
                g.members.values().forEach(m -> wanted.addAll(m.subscribed));
              }
              return apis.coordinator
                  .describe(ns, wanted)
                  .thenApply(descriptions -> heartbeat(request, d, ns, g, names, descriptions));
            })
        .exceptionally(t -> error(GroupErrors.of(t), ErrorMapping.message(t)))
        .thenApply(r -> Optional.of((ApiMessage) r));
  }

  private ConsumerGroupHeartbeatResponseData heartbeat(
      ClientRequest request,
      ConsumerGroupHeartbeatRequestData d,
      String ns,
      ConsumerGroup g,
      Map<Uuid, CompletableFuture<Optional<String>>> names,
      Map<String, StreamDescription> descriptions) {
    Set<ConsumerGroup.TopicPartition> owned = null;
    if (d.topicPartitions() != null) {
      owned = new TreeSet<>();
      for (var t : d.topicPartitions()) {
        Optional<String> name = names.get(t.topicId()).join(); // done: allOf
        if (name.isPresent()) {
          for (int p : t.partitions()) {
            owned.add(new ConsumerGroup.TopicPartition(name.get(), p));
          }
        }
      }
    }
    ConsumerGroup.Answer a;
    synchronized (g) {
      a =
          g.heartbeat(
              d.memberId(),
              d.memberEpoch(),
              d.instanceId(),
              request.clientId(),
              d.subscribedTopicNames(),
              d.serverAssignor(),
              owned,
              t -> descriptions.containsKey(t) ? descriptions.get(t).partitions().size() : 0,
              apis.coordinator.now(),
              apis.coordinator.consumerSessionTimeoutMs());
    }
    return response(a, descriptions);
  }

  private ConsumerGroupHeartbeatResponseData response(
      ConsumerGroup.Answer a, Map<String, StreamDescription> descriptions) {
    if (a.error() != Errors.NONE) {
      return error(a.error(), a.message());
    }
    ConsumerGroupHeartbeatResponseData r =
        new ConsumerGroupHeartbeatResponseData()
            .setErrorCode(Errors.NONE.code())
            .setMemberId(a.memberId())
            .setMemberEpoch(a.epoch())
            .setHeartbeatIntervalMs(apis.coordinator.consumerHeartbeatIntervalMs());
    if (a.assignment() != null) {
      Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
      for (ConsumerGroup.TopicPartition tp : a.assignment()) {
        byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
      }
      List<ConsumerGroupHeartbeatResponseData.TopicPartitions> parts = new ArrayList<>();
      byTopic.forEach(
          (topic, ps) -> {
            StreamDescription desc = descriptions.get(topic);
            if (desc != null) {
              parts.add(
                  new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                      .setTopicId(topics.idOf(desc))
                      .setPartitions(ps));
            }
          });
      r.setAssignment(
          new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(parts));
    }
    return r;
  }

  private ConsumerGroupHeartbeatResponseData error(Errors e, String message) {
    return new ConsumerGroupHeartbeatResponseData()
        .setErrorCode(e.code())
        .setErrorMessage(message)
        .setMemberEpoch(-1)
        .setHeartbeatIntervalMs(apis.coordinator.consumerHeartbeatIntervalMs());
  }

  private static CompletableFuture<Optional<ApiMessage>> answer(
      ConsumerGroupHeartbeatResponseData r) {
    return ApiHandler.answer(r);
  }
}
