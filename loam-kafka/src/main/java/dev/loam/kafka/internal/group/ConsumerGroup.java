package dev.loam.kafka.internal.group;

import dev.loam.api.GroupCoordination;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.protocol.Errors;

/**
 * One KIP-848 group ({@code group.protocol=consumer}) this node coordinates: the server assigns
 * (the uniform or range assignor) and each member reconciles towards its target assignment by
 * heartbeats. A partition moves only once its previous owner has reported it revoked, so no two
 * members ever own one partition at once. Every method runs under the group's lock.
 *
 * <p>Committed offsets use the metastore's generation -1 (no generation): members are fenced by
 * their member epoch here, and a coordinator that lost the group by its coordinator epoch.
 */
final class ConsumerGroup {
  /** A partition of a topic, by name. */
  record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {
    @Override
    public int compareTo(TopicPartition o) {
      int c = topic.compareTo(o.topic);
      return c != 0 ? c : Integer.compare(partition, o.partition);
    }
  }

  /** One member. */
  static final class ConsumerMember {
    final String memberId;
    String instanceId;
    String clientId;
    int epoch;
    List<String> subscribed = List.of();
    String assignor;

    /** What this member was last told it owns. */
    Set<TopicPartition> current = new TreeSet<>();

    /** What the member last reported it owns. */
    Set<TopicPartition> owned = new TreeSet<>();

    long deadline;

    ConsumerMember(String memberId) {
      this.memberId = memberId;
    }
  }

  /**
   * What a heartbeat answers: an error, or the member's epoch and, when it changed, its assignment.
   */
  record Answer(
      Errors error, String message, String memberId, int epoch, Set<TopicPartition> assignment) {}

  static final String UNIFORM = "uniform";
  static final String RANGE = "range";

  final GroupCoordination coordination;
  final LinkedHashMap<String, ConsumerMember> members = new LinkedHashMap<>();
  int groupEpoch;
  private Map<String, Set<TopicPartition>> target = new HashMap<>();
  private final Map<String, Set<TopicPartition>> lastSent = new HashMap<>();
  boolean dead;

  ConsumerGroup(GroupCoordination coordination) {
    this.coordination = coordination;
  }

  /**
   * One ConsumerGroupHeartbeat. {@code partitionsOf} gives a subscribed topic's partition count (0
   * for a topic that does not exist); {@code owned} is what the member reports (null: unchanged).
   */
  Answer heartbeat(
      String memberId,
      int memberEpoch,
      String instanceId,
      String clientId,
      List<String> subscribed,
      String assignor,
      Set<TopicPartition> owned,
      java.util.function.ToIntFunction<String> partitionsOf,
      long now,
      long sessionTimeoutMs) {
    if (dead) {
      return error(Errors.NOT_COORDINATOR, "the group moved");
    }
    if (assignor != null && !assignor.equals(UNIFORM) && !assignor.equals(RANGE)) {
      return error(
          Errors.UNSUPPORTED_ASSIGNOR,
          "server assignor " + assignor + " is not supported; Loam has uniform and range");
    }
    if (memberEpoch < 0) {
      // -1 leaves; -2 is a static member's temporary leave: both give the partitions up.
      ConsumerMember m = members.remove(memberId);
      lastSent.remove(memberId);
      if (m != null) {
        bump(partitionsOf);
      }
      return new Answer(Errors.NONE, null, memberId, memberEpoch, null);
    }
    ConsumerMember m = members.get(memberId);
    if (memberEpoch == 0) {
      if (subscribed == null) {
        return error(Errors.INVALID_REQUEST, "a joining member must send its subscription");
      }
      String id = memberId == null || memberId.isEmpty() ? UUID.randomUUID().toString() : memberId;
      m = new ConsumerMember(id);
      members.put(id, m);
      lastSent.remove(id);
      m.subscribed = List.copyOf(subscribed);
      m.assignor = assignor;
      m.instanceId = instanceId;
      m.clientId = clientId;
      m.deadline = now + sessionTimeoutMs;
      bump(partitionsOf);
      return reconcile(m, true);
    }
    if (m == null) {
      return error(Errors.UNKNOWN_MEMBER_ID, "member " + memberId + " is not in the group");
    }
    if (memberEpoch != m.epoch) {
      return error(
          Errors.FENCED_MEMBER_EPOCH,
          "member epoch " + memberEpoch + " is not the member's epoch " + m.epoch);
    }
    m.deadline = now + sessionTimeoutMs;
    if (owned != null) {
      m.owned = new TreeSet<>(owned);
    }
    boolean changed = false;
    if (subscribed != null && !subscribed.equals(m.subscribed)) {
      m.subscribed = List.copyOf(subscribed);
      changed = true;
    }
    if (assignor != null && !assignor.equals(m.assignor)) {
      m.assignor = assignor;
      changed = true;
    }
    if (changed) {
      bump(partitionsOf);
    }
    return reconcile(m, false);
  }

  /** Membership or subscriptions changed: a new group epoch and target assignment. */
  private void bump(java.util.function.ToIntFunction<String> partitionsOf) {
    groupEpoch++;
    target = assign(partitionsOf);
  }

  /** Moves {@code m} towards its target as far as the other members' releases allow. */
  private Answer reconcile(ConsumerMember m, boolean joining) {
    Set<TopicPartition> want = target.getOrDefault(m.memberId, Set.of());
    Set<TopicPartition> keep = new TreeSet<>(m.current);
    keep.retainAll(want);
    if (keep.size() < m.current.size()) {
      // Revoke first, at the member's current epoch; its next heartbeat reports them gone.
      m.current = keep;
    } else if (want.containsAll(m.owned)) {
      Set<TopicPartition> taken = new HashSet<>();
      for (ConsumerMember o : members.values()) {
        if (o != m) {
          taken.addAll(o.current);
          taken.addAll(o.owned);
        }
      }
      Set<TopicPartition> next = new TreeSet<>(keep);
      for (TopicPartition tp : want) {
        if (!taken.contains(tp)) {
          next.add(tp);
        }
      }
      m.current = next;
      m.epoch = groupEpoch;
    }
    Set<TopicPartition> sent = lastSent.get(m.memberId);
    Set<TopicPartition> assignment = null;
    if (joining || !Objects.equals(sent, m.current)) {
      assignment = new TreeSet<>(m.current);
      lastSent.put(m.memberId, assignment);
    }
    return new Answer(Errors.NONE, null, m.memberId, m.epoch, assignment);
  }

  /** The target assignment of every member for the current subscriptions. */
  private Map<String, Set<TopicPartition>> assign(
      java.util.function.ToIntFunction<String> partitionsOf) {
    Map<String, Set<TopicPartition>> out = new HashMap<>();
    TreeMap<String, List<String>> subscribers = new TreeMap<>();
    boolean range = false;
    for (ConsumerMember m : members.values()) {
      out.put(m.memberId, new TreeSet<>());
      for (String t : m.subscribed) {
        subscribers.computeIfAbsent(t, k -> new ArrayList<>()).add(m.memberId);
      }
      range |= RANGE.equals(m.assignor);
    }
    subscribers.values().forEach(l -> l.sort(String::compareTo));
    if (range) {
      // Range: each topic's partitions in contiguous ranges over its subscribers.
      subscribers.forEach(
          (topic, subs) -> {
            int n = partitionsOf.applyAsInt(topic);
            int per = n / subs.size();
            int extra = n % subs.size();
            int p = 0;
            for (int i = 0; i < subs.size(); i++) {
              int count = per + (i < extra ? 1 : 0);
              for (int j = 0; j < count; j++) {
                out.get(subs.get(i)).add(new TopicPartition(topic, p++));
              }
            }
          });
    } else {
      // Uniform: every partition to the subscriber of its topic holding the fewest so far,
      // keeping a partition with its current owner when that owner is not above its share.
      List<TopicPartition> all = new ArrayList<>();
      subscribers.forEach(
          (topic, subs) -> {
            for (int p = 0; p < partitionsOf.applyAsInt(topic); p++) {
              all.add(new TopicPartition(topic, p));
            }
          });
      int quota = members.isEmpty() ? 0 : (all.size() + members.size() - 1) / members.size();
      List<TopicPartition> rest = new ArrayList<>();
      for (TopicPartition tp : all) {
        String owner = null;
        for (ConsumerMember m : members.values()) {
          if (m.current.contains(tp)) {
            owner = m.memberId;
          }
        }
        if (owner != null
            && subscribers.get(tp.topic()).contains(owner)
            && out.get(owner).size() < quota) {
          out.get(owner).add(tp);
        } else {
          rest.add(tp);
        }
      }
      for (TopicPartition tp : rest) {
        String best = null;
        for (String s : subscribers.get(tp.topic())) {
          if (best == null || out.get(s).size() < out.get(best).size()) {
            best = s;
          }
        }
        out.get(best).add(tp);
      }
    }
    return out;
  }

  /** Removes members whose sessions expired; true when the group changed. */
  boolean expire(long now, java.util.function.ToIntFunction<String> partitionsOf) {
    boolean any = members.values().removeIf(m -> now >= m.deadline);
    if (any) {
      lastSent.keySet().retainAll(members.keySet());
      bump(partitionsOf);
    }
    return any;
  }

  /** Whether {@code memberId} is a member here (a commit of it is a KIP-848 member's). */
  synchronized boolean hasMember(String memberId) {
    return members.containsKey(memberId);
  }

  /** The member's target assignment at the group epoch. */
  Set<TopicPartition> targetOf(String memberId) {
    return target.getOrDefault(memberId, Set.of());
  }

  /** Kafka's state name: empty, reconciling (some member not at its target yet) or stable. */
  String stateName() {
    if (members.isEmpty()) {
      return "Empty";
    }
    for (ConsumerMember m : members.values()) {
      if (m.epoch != groupEpoch || !m.current.equals(targetOf(m.memberId))) {
        return "Reconciling";
      }
    }
    return "Stable";
  }

  /** The assignor the members asked for (the group's; uniform when none named one). */
  String assignorName() {
    for (ConsumerMember m : members.values()) {
      if (RANGE.equals(m.assignor)) {
        return RANGE;
      }
    }
    return UNIFORM;
  }

  /** Whether a member may commit at {@code epoch}: NONE, or the error Kafka answers. */
  Errors checkCommit(String memberId, int epoch) {
    if (dead) {
      return Errors.NOT_COORDINATOR;
    }
    ConsumerMember m = members.get(memberId);
    if (m == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    return epoch == m.epoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
  }

  private static Answer error(Errors e, String message) {
    return new Answer(e, message, null, -1, null);
  }
}
