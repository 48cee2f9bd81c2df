package dev.loam.kafka.internal.group;

import dev.loam.api.CommittedOffset;
import dev.loam.api.GroupDescription;
import dev.loam.kafka.internal.api.ApiHandler;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;

/**
 * The group admin APIs: ListGroups (v0–5), DescribeGroups (v0–6), DeleteGroups (v0–2), OffsetDelete
 * (v0). A group is described, deleted or edited by its coordinator (NOT_COORDINATOR elsewhere);
 * ListGroups, sent by admin clients to every broker, answers the groups this node coordinates.
 */
public final class GroupAdminHandlers {
  private GroupAdminHandlers() {}

  /** The group type of every group here (KIP-848 groups are "consumer"). */
  static final String CLASSIC = "classic";

  /** The group type of KIP-848 groups. */
  static final String KIP848 = "consumer";

  /** ListGroups: the groups loaded here, and stored groups whose coordinator stream is here. */
  public static ApiHandler list(GroupApis apis) {
    return request -> {
      ListGroupsRequestData d = ((ListGroupsRequest) request.body()).data();
      short v = request.version();
      String ns = apis.namespace(request);
      return apis.log
          .listGroups(ns)
          .thenCompose(
              stored -> {
                List<CompletableFuture<Optional<ListedGroup>>> each = new ArrayList<>();
                Set<String> seen = new HashSet<>();
                for (ClassicGroup g : apis.coordinator.loaded(ns)) {
                  synchronized (g) {
                    if (g.state == ClassicGroup.State.DEAD
                        || (g.state == ClassicGroup.State.EMPTY && g.generation == 0)) {
                      continue;
                    }
                    seen.add(g.groupId());
                    each.add(
                        CompletableFuture.completedFuture(
                            Optional.of(
                                listed(
                                    g.groupId(),
                                    g.protocolType == null ? "" : g.protocolType,
                                    g.state.kafkaName))));
                  }
                }
                for (ConsumerGroup g : apis.coordinator.loadedConsumers(ns)) {
                  synchronized (g) {
                    if (g.dead || g.members.isEmpty()) {
                      continue;
                    }
                    seen.add(g.coordination.group());
                    each.add(
                        CompletableFuture.completedFuture(
                            Optional.of(
                                listed(g.coordination.group(), "consumer", g.stateName())
                                    .setGroupType(KIP848))));
                  }
                }
                for (GroupDescription s : stored) {
                  // A group with only a stored record is listed by its coordinator's node, or
                  // by every node while it has none (its coordinator died; the next request
                  // revives it).
                  String owner = s.coordinatorNodeId();
                  if (!seen.contains(s.group())
                      && (owner.isEmpty() || owner.equals(apis.endpoints.selfNodeId()))) {
                    each.add(
                        CompletableFuture.completedFuture(
                            Optional.of(listed(s.group(), "", "Empty"))));
                  }
                }
                return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                    .thenApply(
                        x -> {
                          ListGroupsResponseData r = new ListGroupsResponseData();
                          for (CompletableFuture<Optional<ListedGroup>> f : each) {
                            f.join()
                                .filter(
                                    l ->
                                        v < 4
                                            || d.statesFilter().isEmpty()
                                            || matches(d.statesFilter(), l.groupState()))
                                .filter(
                                    l ->
                                        v < 5
                                            || d.typesFilter().isEmpty()
                                            || matches(d.typesFilter(), l.groupType()))
                                .ifPresent(r.groups()::add);
                          }
                          return Optional.of((ApiMessage) r);
                        });
              });
    };
  }

  private static boolean matches(List<String> filter, String value) {
    return filter.stream().anyMatch(f -> f.equalsIgnoreCase(value));
  }

  private static ListedGroup listed(String id, String protocolType, String state) {
    return new ListedGroup()
        .setGroupId(id)
        .setProtocolType(protocolType)
        .setGroupState(state)
        .setGroupType(CLASSIC);
  }

  /** DescribeGroups. */
  public static ApiHandler describe(GroupApis apis) {
    return request -> {
      DescribeGroupsRequestData d = ((DescribeGroupsRequest) request.body()).data();
      short v = request.version();
      String ns = apis.namespace(request);
      List<CompletableFuture<DescribedGroup>> each = new ArrayList<>();
      for (String id : d.groups()) {
        each.add(
            apis.coordinator
                .load(ns, id)
                .thenCompose(g -> apis.log.describeGroup(ns, id).thenApply(s -> described(g, s, v)))
                .exceptionally(
                    t -> {
                      DescribedGroup x =
                          new DescribedGroup()
                              .setGroupId(id)
                              .setErrorCode(GroupErrors.of(t).code())
                              .setGroupState("")
                              .setProtocolType("")
                              .setProtocolData("");
                      if (v >= 6) {
                        x.setErrorMessage(dev.loam.kafka.internal.errors.ErrorMapping.message(t));
                      }
                      return x;
                    }));
      }
      return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
          .thenApply(
              x -> {
                DescribeGroupsResponseData r = new DescribeGroupsResponseData();
                each.forEach(f -> r.groups().add(f.join()));
                return Optional.of((ApiMessage) r);
              });
    };
  }

  private static DescribedGroup described(
      ClassicGroup g, Optional<GroupDescription> stored, short v) {
    synchronized (g) {
      DescribedGroup r = new DescribedGroup().setGroupId(g.groupId()).setErrorCode((short) 0);
      boolean exists = !g.members.isEmpty() || stored.isPresent();
      if (!exists) {
        r.setGroupState(ClassicGroup.State.DEAD.kafkaName).setProtocolType("").setProtocolData("");
        if (v >= 6) {
          r.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
              .setErrorMessage("group " + g.groupId() + " not found");
        }
        return r;
      }
      String state =
          g.state == ClassicGroup.State.DEAD
              ? ClassicGroup.State.EMPTY.kafkaName
              : g.state.kafkaName;
      r.setGroupState(state)
          .setProtocolType(g.members.isEmpty() || g.protocolType == null ? "" : g.protocolType)
          .setProtocolData(
              g.state == ClassicGroup.State.STABLE && g.protocolName != null ? g.protocolName : "");
      for (Member m : g.members.values()) {
        DescribedGroupMember dm =
            new DescribedGroupMember()
                .setMemberId(m.memberId)
                .setClientId(m.clientId)
                .setClientHost(m.clientHost)
                .setMemberMetadata(
                    g.protocolName == null || m.metadata(g.protocolName) == null
                        ? new byte[0]
                        : m.metadata(g.protocolName))
                .setMemberAssignment(m.assignment);
        if (v >= 4) {
          dm.setGroupInstanceId(m.instanceId);
        }
        r.members().add(dm);
      }
      return r;
    }
  }

  /** DeleteGroups: only groups without members; their committed offsets go with them. */
  public static ApiHandler delete(GroupApis apis) {
    return request -> {
      DeleteGroupsRequestData d = ((DeleteGroupsRequest) request.body()).data();
      String ns = apis.namespace(request);
      List<CompletableFuture<DeletableGroupResult>> each = new ArrayList<>();
      for (String id : d.groupsNames()) {
        each.add(
            apis.coordinator
                .load(ns, id)
                .thenCompose(
                    g ->
                        apis.log
                            .describeGroup(ns, id)
                            .thenCompose(
                                s -> {
                                  synchronized (g) {
                                    if (!g.members.isEmpty()) {
                                      return done(id, Errors.NON_EMPTY_GROUP);
                                    }
                                    if (s.isEmpty()) {
                                      return done(id, Errors.GROUP_ID_NOT_FOUND);
                                    }
                                  }
                                  return apis.log
                                      .deleteGroupOffsets(g.coordination, true, List.of())
                                      .thenApply(
                                          x -> {
                                            apis.coordinator.forget(g);
                                            return result(id, Errors.NONE);
                                          });
                                }))
                .exceptionally(t -> result(id, GroupErrors.of(t))));
      }
      return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
          .thenApply(
              x -> {
                DeleteGroupsResponseData r = new DeleteGroupsResponseData();
                each.forEach(f -> r.results().add(f.join()));
                return Optional.of((ApiMessage) r);
              });
    };
  }

  private static CompletableFuture<DeletableGroupResult> done(String id, Errors e) {
    return CompletableFuture.completedFuture(result(id, e));
  }

  private static DeletableGroupResult result(String id, Errors e) {
    return new DeletableGroupResult().setGroupId(id).setErrorCode(e.code());
  }

  /**
   * OffsetDelete: removes committed offsets of partitions no member of the group subscribes to
   * (GROUP_SUBSCRIBED_TO_TOPIC for those that one does).
   */
  public static ApiHandler deleteOffsets(GroupApis apis) {
    return request -> {
      OffsetDeleteRequestData d = ((OffsetDeleteRequest) request.body()).data();
      String ns = apis.namespace(request);
      return apis.coordinator
          .load(ns, d.groupId())
          .thenCompose(
              g ->
                  apis.log
                      .describeGroup(ns, d.groupId())
                      .thenCompose(
                          s -> {
                            if (s.isEmpty()) {
                              return CompletableFuture.completedFuture(
                                  new OffsetDeleteResponseData()
                                      .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()));
                            }
                            Set<String> subscribed = subscribed(g);
                            List<CommittedOffset> gone = new ArrayList<>();
                            OffsetDeleteResponseData r = new OffsetDeleteResponseData();
                            for (var t : d.topics()) {
                              OffsetDeleteResponseTopic rt =
                                  new OffsetDeleteResponseTopic().setName(t.name());
                              for (var p : t.partitions()) {
                                Errors e =
                                    subscribed.contains(t.name())
                                        ? Errors.GROUP_SUBSCRIBED_TO_TOPIC
                                        : Errors.NONE;
                                if (e == Errors.NONE) {
                                  gone.add(
                                      new CommittedOffset(t.name(), p.partitionIndex(), 0, -1, ""));
                                }
                                rt.partitions()
                                    .add(
                                        new OffsetDeleteResponsePartition()
                                            .setPartitionIndex(p.partitionIndex())
                                            .setErrorCode(e.code()));
                              }
                              r.topics().add(rt);
                            }
                            return apis.log
                                .deleteGroupOffsets(g.coordination, false, gone)
                                .thenApply(x -> r);
                          }))
          .exceptionally(t -> new OffsetDeleteResponseData().setErrorCode(GroupErrors.of(t).code()))
          .thenApply(r -> Optional.of((ApiMessage) r));
    };
  }

  /** The topics the group's members subscribe to (consumer protocol), read from their metadata. */
  private static Set<String> subscribed(ClassicGroup g) {
    Set<String> out = new HashSet<>();
    synchronized (g) {
      for (Member m : g.members.values()) {
        if (m.protocols == null) {
          continue;
        }
        for (Member.Protocol p : m.protocols) {
          try {
            ByteBuffer b = ByteBuffer.wrap(p.metadata());
            short version = b.getShort();
            out.addAll(
                new ConsumerProtocolSubscription(new ByteBufferAccessor(b), version).topics());
          } catch (RuntimeException e) {
            // Not consumer-protocol metadata (another protocol type): nothing to read.
          }
        }
      }
    }
    return out;
  }
}
