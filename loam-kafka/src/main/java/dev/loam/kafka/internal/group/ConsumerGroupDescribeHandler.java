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
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;

/**
 * ConsumerGroupDescribe (v0–1): a KIP-848 group's epoch, assignor and members with their current
 * and target assignments, from its coordinator. A group that is not a KIP-848 group with members
 * here is GROUP_ID_NOT_FOUND, on which admin clients describe it with DescribeGroups instead.
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler {
  private final GroupApis apis;
  private final Topics topics;

  public ConsumerGroupDescribeHandler(GroupApis apis, Topics topics) {
    this.apis = apis;
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    ConsumerGroupDescribeRequestData d = ((ConsumerGroupDescribeRequest) request.body()).data();
    String ns = apis.namespace(request);
    List<CompletableFuture<DescribedGroup>> each = new ArrayList<>();
    for (String id : d.groupIds()) {
      each.add(
          apis.coordinator
              .loadConsumer(ns, id)
              .thenCompose(
                  g -> {
                    // The assigned topics' ids, looked up before the group is read under its lock.
                    Set<String> topicNames = new java.util.TreeSet<>();
                    synchronized (g) {
                      for (ConsumerGroup.ConsumerMember m : g.members.values()) {
                        m.current.forEach(tp -> topicNames.add(tp.topic()));
                        g.targetOf(m.memberId).forEach(tp -> topicNames.add(tp.topic()));
                      }
                    }
                    return apis.coordinator
                        .describe(ns, topicNames)
                        .thenApply(descriptions -> described(g, descriptions));
                  })
              .exceptionally(
                  t ->
                      new DescribedGroup()
                          .setGroupId(id)
                          .setErrorCode(GroupErrors.of(t).code())
                          .setErrorMessage(ErrorMapping.message(t))
                          .setGroupState("")
                          .setAssignorName("")));
    }
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
        .thenApply(
            x -> {
              ConsumerGroupDescribeResponseData r = new ConsumerGroupDescribeResponseData();
              each.forEach(f -> r.groups().add(f.join()));
              return Optional.of((ApiMessage) r);
            });
  }

  private DescribedGroup described(ConsumerGroup g, Map<String, StreamDescription> descriptions) {
    synchronized (g) {
      DescribedGroup r = new DescribedGroup().setGroupId(g.coordination.group());
      if (g.members.isEmpty()) {
        return r.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
            .setErrorMessage(
                "group " + g.coordination.group() + " is not a consumer-protocol group")
            .setGroupState("")
            .setAssignorName("");
      }
      r.setErrorCode(Errors.NONE.code())
          .setGroupState(g.stateName())
          .setGroupEpoch(g.groupEpoch)
          .setAssignmentEpoch(g.groupEpoch)
          .setAssignorName(g.assignorName());
      for (ConsumerGroup.ConsumerMember m : g.members.values()) {
        r.members()
            .add(
                new ConsumerGroupDescribeResponseData.Member()
                    .setMemberId(m.memberId)
                    .setInstanceId(m.instanceId)
                    .setMemberEpoch(m.epoch)
                    .setClientId(m.clientId == null ? "" : m.clientId)
                    .setClientHost(MembershipHandlers.CLIENT_HOST)
                    .setSubscribedTopicNames(m.subscribed)
                    .setAssignment(assignment(m.current, descriptions))
                    .setTargetAssignment(assignment(g.targetOf(m.memberId), descriptions)));
      }
      return r;
    }
  }

  private ConsumerGroupDescribeResponseData.Assignment assignment(
      Set<ConsumerGroup.TopicPartition> parts, Map<String, StreamDescription> descriptions) {
    Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
    for (ConsumerGroup.TopicPartition tp : parts) {
      byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
    }
    ConsumerGroupDescribeResponseData.Assignment a =
        new ConsumerGroupDescribeResponseData.Assignment();
    byTopic.forEach(
        (topic, ps) -> {
          StreamDescription desc = descriptions.get(topic);
          if (desc != null) {
            a.topicPartitions()
                .add(
                    new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(topics.idOf(desc))
                        .setTopicName(topic)
                        .setPartitions(ps));
          }
        });
    return a;
  }
}
