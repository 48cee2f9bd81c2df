package dev.loam.kafka.internal.group;

import dev.loam.api.CommittedOffset;
import dev.loam.api.GroupDescription;
import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.api.ApiHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;

/**
 * OffsetCommit (v2–9) and OffsetFetch (v1–9, several groups from v8). Committed offsets live in the
 * metastore: one OffsetCommit is one proposal whatever its partition count, conditional on the
 * coordinator epoch and the member's generation; OffsetFetch reads the coordinator's replica, which
 * has applied every commit it answered.
 */
public final class OffsetHandlers {
  private OffsetHandlers() {}

  /** The longest offset metadata the metastore keeps (Kafka's offset.metadata.max.bytes). */
  static final int MAX_METADATA_LENGTH = 4096;

  /** OffsetCommit. */
  public static ApiHandler commit(GroupApis apis) {
    return request -> {
      OffsetCommitRequestData d = ((OffsetCommitRequest) request.body()).data();
      String ns = apis.namespace(request);
      // Every topic's description first (local reads), for per-partition errors.
      Map<String, CompletableFuture<Optional<StreamDescription>>> topics = new LinkedHashMap<>();
      d.topics().forEach(t -> topics.computeIfAbsent(t.name(), n -> apis.topic(ns, n)));
      CompletableFuture<?> all =
          CompletableFuture.allOf(topics.values().toArray(CompletableFuture[]::new));
      ConsumerGroup modern = apis.coordinator.loadedConsumer(ns, d.groupId());
      if (modern != null && d.generationIdOrMemberEpoch() >= 0 && modern.hasMember(d.memberId())) {
        return all.thenCompose(v -> apis.coordinator.loadConsumer(ns, d.groupId()))
            .thenCompose(g -> commitInConsumerGroup(apis, g, d, topics))
            .exceptionally(t -> respond(d, p -> GroupErrors.of(t)))
            .thenApply(r -> Optional.of((ApiMessage) r));
      }
      return all.thenCompose(v -> apis.coordinator.load(ns, d.groupId()))
          .thenCompose(g -> commitIn(apis, g, d, topics))
          .exceptionally(t -> respond(d, p -> GroupErrors.of(t)))
          .thenApply(r -> Optional.of((ApiMessage) r));
    };
  }

  /** A KIP-848 member's commit: fenced by its member epoch here, by the coordinator epoch there. */
  private static CompletableFuture<OffsetCommitResponseData> commitInConsumerGroup(
      GroupApis apis,
      ConsumerGroup g,
      OffsetCommitRequestData d,
      Map<String, CompletableFuture<Optional<StreamDescription>>> topics) {
    Errors e;
    synchronized (g) {
      e = g.checkCommit(d.memberId(), d.generationIdOrMemberEpoch());
    }
    if (e != Errors.NONE) {
      Errors err = e;
      return CompletableFuture.completedFuture(respond(d, p -> err));
    }
    return write(apis, g.coordination, -1, d, topics, null);
  }

  private static CompletableFuture<OffsetCommitResponseData> commitIn(
      GroupApis apis,
      ClassicGroup g,
      OffsetCommitRequestData d,
      Map<String, CompletableFuture<Optional<StreamDescription>>> topics) {
    int generation;
    synchronized (g) {
      Errors e;
      if (d.generationIdOrMemberEpoch() < 0 && g.members.isEmpty()) {
        e = Errors.NONE; // a group without members: a simple consumer or an admin tool
      } else {
        e = g.checkMember(d.memberId(), d.groupInstanceId(), d.generationIdOrMemberEpoch());
        if (e == Errors.NONE
            && (g.state == ClassicGroup.State.COMPLETING_REBALANCE || g.advancing())) {
          e = Errors.REBALANCE_IN_PROGRESS;
        }
      }
      if (e != Errors.NONE) {
        Errors err = e;
        return CompletableFuture.completedFuture(respond(d, p -> err));
      }
      g.touch(d.memberId(), apis.coordinator.now());
      generation = d.generationIdOrMemberEpoch() < 0 ? -1 : g.generation;
    }
    return write(apis, g.coordination, generation, d, topics, g);
  }

  /** Validates each partition, then commits the valid ones in one proposal. */
  private static CompletableFuture<OffsetCommitResponseData> write(
      GroupApis apis,
      dev.loam.api.GroupCoordination coordination,
      int generation,
      OffsetCommitRequestData d,
      Map<String, CompletableFuture<Optional<StreamDescription>>> topics,
      ClassicGroup classic) {
    Map<String, Errors> refused = new HashMap<>();
    List<CommittedOffset> offsets = new ArrayList<>();
    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : d.topics()) {
      Optional<StreamDescription> s = topics.get(t.name()).join();
      for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
        String metadata = p.committedMetadata() == null ? "" : p.committedMetadata();
        Errors e = Errors.NONE;
        if (s.isEmpty()
            || p.partitionIndex() < 0
            || p.partitionIndex() >= s.get().partitions().size()) {
          e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
        } else if (metadata.length() > MAX_METADATA_LENGTH) {
          e = Errors.OFFSET_METADATA_TOO_LARGE;
        } else if (p.committedOffset() < 0) {
          e = Errors.INVALID_COMMIT_OFFSET_SIZE;
        }
        if (e != Errors.NONE) {
          refused.put(t.name() + "/" + p.partitionIndex(), e);
        } else {
          offsets.add(
              new CommittedOffset(
                  t.name(),
                  p.partitionIndex(),
                  p.committedOffset(),
                  p.committedLeaderEpoch(),
                  metadata));
        }
      }
    }
    CompletableFuture<Errors> done =
        offsets.isEmpty()
            ? CompletableFuture.completedFuture(Errors.NONE)
            : apis.log
                .commitGroupOffsets(coordination, generation, offsets)
                .handle((v, t) -> t == null ? Errors.NONE : GroupErrors.of(t));
    return done.thenApply(
        result -> {
          if (result == Errors.NOT_COORDINATOR && classic != null) {
            apis.coordinator.forget(classic);
          }
          return respond(d, key -> refused.getOrDefault(key, result));
        });
  }

  private static OffsetCommitResponseData respond(
      OffsetCommitRequestData d, java.util.function.Function<String, Errors> errorOf) {
    OffsetCommitResponseData r = new OffsetCommitResponseData();
    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : d.topics()) {
      OffsetCommitResponseTopic rt = new OffsetCommitResponseTopic().setName(t.name());
      for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
        rt.partitions()
            .add(
                new OffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(errorOf.apply(t.name() + "/" + p.partitionIndex()).code()));
      }
      r.topics().add(rt);
    }
    return r;
  }

  // ---------------------------------------------------------------- OffsetFetch

  /** One group's asked topics (null: every committed offset) and its answer. */
  private record Asked(String group, Map<String, List<Integer>> topics) {}

  /** OffsetFetch. */
  public static ApiHandler fetch(GroupApis apis) {
    return request -> {
      OffsetFetchRequestData d = ((OffsetFetchRequest) request.body()).data();
      short v = request.version();
      String ns = apis.namespace(request);
      List<Asked> asked = new ArrayList<>();
      if (v >= 8) {
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : d.groups()) {
          Map<String, List<Integer>> topics = null;
          if (g.topics() != null) {
            topics = new LinkedHashMap<>();
            for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
              topics.put(t.name(), t.partitionIndexes());
            }
          }
          asked.add(new Asked(g.groupId(), topics));
        }
      } else {
        Map<String, List<Integer>> topics = null;
        if (d.topics() != null) {
          topics = new LinkedHashMap<>();
          for (OffsetFetchRequestData.OffsetFetchRequestTopic t : d.topics()) {
            topics.put(t.name(), t.partitionIndexes());
          }
        }
        asked.add(new Asked(d.groupId(), topics));
      }
      List<CompletableFuture<OffsetFetchResponseGroup>> each = new ArrayList<>();
      for (Asked a : asked) {
        each.add(fetchGroup(apis, ns, a));
      }
      return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
          .thenApply(
              x -> {
                OffsetFetchResponseData r = new OffsetFetchResponseData();
                if (v >= 8) {
                  each.forEach(f -> r.groups().add(f.join()));
                } else {
                  OffsetFetchResponseGroup g = each.get(0).join();
                  if (v >= 2) {
                    r.setErrorCode(g.errorCode());
                  }
                  for (OffsetFetchResponseTopics t : g.topics()) {
                    OffsetFetchResponseTopic ot = new OffsetFetchResponseTopic().setName(t.name());
                    for (OffsetFetchResponsePartitions p : t.partitions()) {
                      OffsetFetchResponsePartition op =
                          new OffsetFetchResponsePartition()
                              .setPartitionIndex(p.partitionIndex())
                              .setCommittedOffset(p.committedOffset())
                              .setMetadata(p.metadata())
                              .setErrorCode(
                                  v < 2 && g.errorCode() != 0 ? g.errorCode() : p.errorCode());
                      if (v >= 5) {
                        op.setCommittedLeaderEpoch(p.committedLeaderEpoch());
                      }
                      ot.partitions().add(op);
                    }
                    r.topics().add(ot);
                  }
                }
                return Optional.of((ApiMessage) r);
              });
    };
  }

  private static CompletableFuture<OffsetFetchResponseGroup> fetchGroup(
      GroupApis apis, String ns, Asked a) {
    return apis.coordinator
        .load(ns, a.group())
        .thenCompose(g -> apis.log.describeGroup(ns, a.group()))
        .thenApply(stored -> answer(a, stored))
        .exceptionally(t -> answer(a, Optional.empty()).setErrorCode(GroupErrors.of(t).code()));
  }

  private static OffsetFetchResponseGroup answer(Asked a, Optional<GroupDescription> stored) {
    Map<String, Map<Integer, CommittedOffset>> byTopic = new LinkedHashMap<>();
    stored.ifPresent(
        s ->
            s.offsets()
                .forEach(
                    o ->
                        byTopic
                            .computeIfAbsent(o.stream(), k -> new LinkedHashMap<>())
                            .put(o.partition(), o)));
    OffsetFetchResponseGroup g = new OffsetFetchResponseGroup().setGroupId(a.group());
    Map<String, List<Integer>> topics = a.topics();
    if (topics == null) {
      topics = new LinkedHashMap<>();
      for (Map.Entry<String, Map<Integer, CommittedOffset>> e : byTopic.entrySet()) {
        topics.put(e.getKey(), new ArrayList<>(e.getValue().keySet()));
      }
    }
    for (Map.Entry<String, List<Integer>> t : topics.entrySet()) {
      OffsetFetchResponseTopics rt = new OffsetFetchResponseTopics().setName(t.getKey());
      Map<Integer, CommittedOffset> have = byTopic.getOrDefault(t.getKey(), Map.of());
      for (int p : t.getValue()) {
        CommittedOffset o = have.get(p);
        rt.partitions()
            .add(
                new OffsetFetchResponsePartitions()
                    .setPartitionIndex(p)
                    .setCommittedOffset(o == null ? -1 : o.offset())
                    .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
                    .setMetadata(o == null ? "" : o.metadata())
                    .setErrorCode(Errors.NONE.code()));
      }
      g.topics().add(rt);
    }
    return g;
  }
}
