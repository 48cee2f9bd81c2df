package dev.loam.kafka.internal.group;

import dev.loam.api.GroupCoordination;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One classic-protocol group this node coordinates (docs/design/consumer-groups.md "Rebalances"):
 * its members and the rebalance state machine of Kafka's classic protocol — Empty,
 * PreparingRebalance, CompletingRebalance, Stable. Every method runs under the group's lock
 * (callers synchronize on the group); the one asynchronous step, recording a new generation in the
 * metastore, completes through {@link GroupCoordinator#advance}.
 */
final class ClassicGroup {
  /** The classic protocol's group states, with Kafka's names. */
  enum State {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    final String kafkaName;

    State(String kafkaName) {
      this.kafkaName = kafkaName;
    }
  }

  final GroupCoordination coordination;
  private final GroupCoordinator coordinator;
  final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
  private final Map<String, String> staticMembers = new HashMap<>();

  State state = State.EMPTY;
  int generation;
  String protocolType;
  String protocolName;
  String leaderId;

  /** When the join phase ends at the latest; and whether it is the first join of an empty group. */
  private long joinDeadline;

  private long initialDelayEnd = -1;
  private long syncDeadline;

  /** A generation being recorded in the metastore: members learn it once it is applied. */
  private boolean advancing;

  ClassicGroup(GroupCoordinator coordinator, GroupCoordination coordination) {
    this.coordinator = coordinator;
    this.coordination = coordination;
    this.generation = coordination.generation();
  }

  String groupId() {
    return coordination.group();
  }

  // ---------------------------------------------------------------- JoinGroup

  CompletableFuture<JoinGroupResponseData> join(
      JoinGroupRequestData req, short version, String clientId, String clientHost, long now) {
    if (state == State.DEAD) {
      return error(Errors.NOT_COORDINATOR);
    }
    int rebalanceTimeout = version >= 1 ? req.rebalanceTimeoutMs() : req.sessionTimeoutMs();
    if (req.sessionTimeoutMs() < coordinator.minSessionTimeoutMs()
        || req.sessionTimeoutMs() > coordinator.maxSessionTimeoutMs()) {
      return error(Errors.INVALID_SESSION_TIMEOUT);
    }
    List<Member.Protocol> protocols = new ArrayList<>();
    req.protocols().forEach(p -> protocols.add(new Member.Protocol(p.name(), p.metadata())));
    if (req.protocolType() == null || req.protocolType().isEmpty() || protocols.isEmpty()) {
      return error(Errors.INCONSISTENT_GROUP_PROTOCOL);
    }
    if (!members.isEmpty()
        && (!req.protocolType().equals(protocolType) || !supportsAny(protocols))) {
      return error(Errors.INCONSISTENT_GROUP_PROTOCOL);
    }
    String instanceId = req.groupInstanceId();
    Member m;
    if (req.memberId().isEmpty()) {
      String id = clientId + "-" + UUID.randomUUID();
      String previous = instanceId == null ? null : staticMembers.get(instanceId);
      if (previous != null && members.containsKey(previous)) {
        // A static member restarting: it takes its previous member's place and assignment.
        Member old = members.remove(previous);
        m = new Member(id, instanceId, clientId, clientHost);
        m.assignment = old.assignment;
        failPending(old, Errors.FENCED_INSTANCE_ID);
        members.put(id, m);
        staticMembers.put(instanceId, id);
        if (previous.equals(leaderId)) {
          leaderId = id;
        }
        boolean same = old.protocols != null && old.sameProtocols(protocols);
        update(m, req, rebalanceTimeout, protocols, now);
        if (same && state == State.STABLE) {
          // Nothing changed for the group: answer the current generation without a rebalance.
          JoinGroupResponseData r = response(m, version, id.equals(leaderId));
          if (version >= 9 && id.equals(leaderId)) {
            r.setSkipAssignment(true);
          }
          return CompletableFuture.completedFuture(r);
        }
      } else {
        m = new Member(id, instanceId, clientId, clientHost);
        members.put(id, m);
        if (instanceId != null) {
          staticMembers.put(instanceId, id);
        }
        update(m, req, rebalanceTimeout, protocols, now);
      }
    } else {
      m = members.get(req.memberId());
      if (m == null) {
        return error(
            instanceId != null && staticMembers.containsKey(instanceId)
                ? Errors.FENCED_INSTANCE_ID
                : Errors.UNKNOWN_MEMBER_ID);
      }
      if (instanceId != null && !instanceId.equals(m.instanceId)) {
        return error(Errors.FENCED_INSTANCE_ID);
      }
      boolean same = m.sameProtocols(protocols);
      update(m, req, rebalanceTimeout, protocols, now);
      if (same && !advancing && !m.memberId.equals(leaderId) && state == State.STABLE) {
        // A follower rejoining with what it had: the current generation, no rebalance.
        return CompletableFuture.completedFuture(response(m, version, false));
      }
      if (same && !advancing && state == State.COMPLETING_REBALANCE) {
        return CompletableFuture.completedFuture(response(m, version, m.memberId.equals(leaderId)));
      }
    }
    if (m.pendingJoin != null) {
      // The client gave up on its previous JoinGroup and sent another: answer the old one.
      m.pendingJoin.complete(errorData(Errors.REBALANCE_IN_PROGRESS));
    }
    m.pendingJoin = new CompletableFuture<>();
    m.joinVersion = version;
    CompletableFuture<JoinGroupResponseData> f = m.pendingJoin;
    if (members.size() == 1 || protocolType == null) {
      protocolType = req.protocolType();
    }
    if (state == State.PREPARING_REBALANCE && initialDelayEnd >= 0) {
      // The first rebalance of an empty group waits for more members, up to the rebalance timeout.
      joinDeadline = Math.min(now + coordinator.initialRebalanceDelayMs(), initialDelayEnd);
    } else if (state != State.PREPARING_REBALANCE) {
      prepareRebalance(now);
    }
    maybeCompleteJoin(now);
    return f;
  }

  private void update(
      Member m, JoinGroupRequestData req, int rebalanceTimeout, List<Member.Protocol> p, long now) {
    m.sessionTimeoutMs = req.sessionTimeoutMs();
    m.rebalanceTimeoutMs = rebalanceTimeout;
    m.protocols = p;
    m.sessionDeadline = now + m.sessionTimeoutMs;
  }

  private boolean supportsAny(List<Member.Protocol> protocols) {
    for (Member.Protocol p : protocols) {
      boolean all = true;
      for (Member o : members.values()) {
        all &= o.protocols == null || o.metadata(p.name()) != null;
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /** Starts a rebalance: every member must rejoin within the largest rebalance timeout. */
  void prepareRebalance(long now) {
    if (state == State.COMPLETING_REBALANCE) {
      for (Member m : members.values()) {
        failSync(m, Errors.REBALANCE_IN_PROGRESS);
      }
    }
    int timeout = 0;
    for (Member m : members.values()) {
      timeout = Math.max(timeout, m.rebalanceTimeoutMs);
    }
    if (state == State.EMPTY) {
      initialDelayEnd = now + timeout;
      joinDeadline = Math.min(now + coordinator.initialRebalanceDelayMs(), initialDelayEnd);
    } else {
      initialDelayEnd = -1;
      joinDeadline = now + timeout;
    }
    state = State.PREPARING_REBALANCE;
  }

  /** Ends the join phase when every member rejoined (outside the initial delay) or time is up. */
  void maybeCompleteJoin(long now) {
    if (state != State.PREPARING_REBALANCE || advancing) {
      return;
    }
    boolean all = true;
    for (Member m : members.values()) {
      all &= m.pendingJoin != null;
    }
    boolean delayed = initialDelayEnd >= 0;
    if (!(now >= joinDeadline || (all && !delayed && !members.isEmpty()))) {
      return;
    }
    // Members that did not rejoin in time leave the group.
    members.values().removeIf(m -> m.pendingJoin == null && forget(m));
    initialDelayEnd = -1;
    int next = generation + 1;
    advancing = true;
    List<String> included = new ArrayList<>(members.keySet());
    coordinator.advance(this, next, included);
  }

  /**
   * The new generation is recorded: members learn it; {@code included} are the members of the
   * generation. Runs under the lock.
   */
  void generationRecorded(int next, List<String> included, long now) {
    advancing = false;
    if (state == State.DEAD) {
      return;
    }
    generation = next;
    if (members.isEmpty()) {
      state = State.EMPTY;
      protocolName = null;
      leaderId = null;
      return;
    }
    protocolName = selectProtocol();
    if (leaderId == null || !members.containsKey(leaderId)) {
      leaderId = members.keySet().iterator().next();
    }
    state = State.COMPLETING_REBALANCE;
    int timeout = 0;
    for (Member m : members.values()) {
      timeout = Math.max(timeout, m.rebalanceTimeoutMs);
    }
    syncDeadline = now + timeout;
    boolean late = false;
    for (Member m : members.values()) {
      m.assignment = new byte[0];
      if (!included.contains(m.memberId)) {
        late = true;
        continue;
      }
      if (m.pendingJoin != null) {
        CompletableFuture<JoinGroupResponseData> f = m.pendingJoin;
        m.pendingJoin = null;
        m.sessionDeadline = now + m.sessionTimeoutMs;
        f.complete(response(m, m.joinVersion, m.memberId.equals(leaderId)));
      }
    }
    if (late) {
      // Members joined while the generation was being recorded: one more round includes them.
      prepareRebalance(now);
    }
  }

  /** The recording failed (the coordination was lost): the group is unloaded. */
  void generationFailed(Errors error) {
    advancing = false;
    unload(error);
  }

  private String selectProtocol() {
    // The first protocol of the first member that every member supports (the leader's preference).
    for (Member.Protocol p : members.values().iterator().next().protocols) {
      boolean all = true;
      for (Member m : members.values()) {
        all &= m.metadata(p.name()) != null;
      }
      if (all) {
        return p.name();
      }
    }
    return members.values().iterator().next().protocols.get(0).name();
  }

  private JoinGroupResponseData response(Member m, short version, boolean leader) {
    JoinGroupResponseData r =
        new JoinGroupResponseData()
            .setErrorCode(Errors.NONE.code())
            .setGenerationId(generation)
            .setProtocolName(protocolName)
            .setLeader(leaderId)
            .setMemberId(m.memberId);
    if (version >= 7) {
      r.setProtocolType(protocolType);
    }
    if (leader) {
      for (Member o : members.values()) {
        JoinGroupResponseData.JoinGroupResponseMember jm =
            new JoinGroupResponseData.JoinGroupResponseMember()
                .setMemberId(o.memberId)
                .setMetadata(o.metadata(protocolName));
        if (version >= 5) {
          jm.setGroupInstanceId(o.instanceId);
        }
        r.members().add(jm);
      }
    }
    return r;
  }

  // ---------------------------------------------------------------- SyncGroup

  CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData req, long now) {
    Errors e = checkMember(req.memberId(), req.groupInstanceId(), req.generationId());
    if (e != Errors.NONE) {
      return CompletableFuture.completedFuture(syncError(e));
    }
    if ((req.protocolType() != null && !req.protocolType().equals(protocolType))
        || (req.protocolName() != null && !req.protocolName().equals(protocolName))) {
      return CompletableFuture.completedFuture(syncError(Errors.INCONSISTENT_GROUP_PROTOCOL));
    }
    Member m = members.get(req.memberId());
    m.sessionDeadline = now + m.sessionTimeoutMs;
    if (state == State.PREPARING_REBALANCE || advancing) {
      return CompletableFuture.completedFuture(syncError(Errors.REBALANCE_IN_PROGRESS));
    }
    if (state == State.STABLE) {
      return CompletableFuture.completedFuture(syncOk(m.assignment));
    }
    // CompletingRebalance: wait for the leader's assignment.
    failSync(m, Errors.REBALANCE_IN_PROGRESS);
    m.pendingSync = new CompletableFuture<>();
    CompletableFuture<SyncGroupResponseData> f = m.pendingSync;
    if (m.memberId.equals(leaderId)) {
      Map<String, byte[]> given = new HashMap<>();
      req.assignments().forEach(a -> given.put(a.memberId(), a.assignment()));
      for (Member o : members.values()) {
        o.assignment = given.getOrDefault(o.memberId, new byte[0]);
      }
      state = State.STABLE;
      for (Member o : members.values()) {
        if (o.pendingSync != null) {
          CompletableFuture<SyncGroupResponseData> s = o.pendingSync;
          o.pendingSync = null;
          s.complete(syncOk(o.assignment));
        }
      }
    }
    return f;
  }

  private SyncGroupResponseData syncOk(byte[] assignment) {
    return new SyncGroupResponseData()
        .setErrorCode(Errors.NONE.code())
        .setProtocolType(protocolType)
        .setProtocolName(protocolName)
        .setAssignment(assignment);
  }

  private static SyncGroupResponseData syncError(Errors e) {
    return new SyncGroupResponseData().setErrorCode(e.code()).setAssignment(new byte[0]);
  }

  // ---------------------------------------------------------------- Heartbeat, LeaveGroup

  Errors heartbeat(String memberId, String instanceId, int generationId, long now) {
    Errors e = checkMember(memberId, instanceId, generationId);
    if (e != Errors.NONE) {
      return e;
    }
    Member m = members.get(memberId);
    m.sessionDeadline = now + m.sessionTimeoutMs;
    return state == State.PREPARING_REBALANCE || advancing
        ? Errors.REBALANCE_IN_PROGRESS
        : Errors.NONE;
  }

  /** Removes one member; the member is named by id, or (static members) by instance id. */
  Errors leave(String memberId, String instanceId, long now) {
    if (state == State.DEAD) {
      return Errors.NOT_COORDINATOR;
    }
    String id = memberId;
    if ((id == null || id.isEmpty()) && instanceId != null) {
      id = staticMembers.get(instanceId);
    }
    Member m = id == null ? null : members.get(id);
    if (m == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    if (instanceId != null && !instanceId.equals(m.instanceId)) {
      return Errors.FENCED_INSTANCE_ID;
    }
    remove(m, now);
    return Errors.NONE;
  }

  /** Removes a member (left, or its session expired) and rebalances the rest. */
  private void remove(Member m, long now) {
    members.remove(m.memberId);
    forget(m);
    failPending(m, Errors.UNKNOWN_MEMBER_ID);
    if (state == State.STABLE || state == State.COMPLETING_REBALANCE) {
      prepareRebalance(now);
    }
    maybeCompleteJoin(now);
  }

  /** Drops a member's static mapping; true, for use in removeIf. */
  private boolean forget(Member m) {
    if (m.instanceId != null && m.memberId.equals(staticMembers.get(m.instanceId))) {
      staticMembers.remove(m.instanceId);
    }
    if (m.pendingSync != null) {
      failSync(m, Errors.UNKNOWN_MEMBER_ID);
    }
    return true;
  }

  /**
   * Whether a member may act at {@code generationId}: NONE, or the error Kafka answers (an unknown
   * member, a fenced static instance, another generation).
   */
  Errors checkMember(String memberId, String instanceId, int generationId) {
    if (state == State.DEAD) {
      return Errors.NOT_COORDINATOR;
    }
    Member m = members.get(memberId);
    if (m == null) {
      return instanceId != null && staticMembers.containsKey(instanceId)
          ? Errors.FENCED_INSTANCE_ID
          : Errors.UNKNOWN_MEMBER_ID;
    }
    if (instanceId != null && !instanceId.equals(m.instanceId)) {
      return Errors.FENCED_INSTANCE_ID;
    }
    if (generationId != generation) {
      return Errors.ILLEGAL_GENERATION;
    }
    return Errors.NONE;
  }

  /** Refreshes a member's session (an offset commit proves it is alive). */
  void touch(String memberId, long now) {
    Member m = members.get(memberId);
    if (m != null) {
      m.sessionDeadline = now + m.sessionTimeoutMs;
    }
  }

  boolean advancing() {
    return advancing;
  }

  // ---------------------------------------------------------------- time

  /** Expires silent members, ends join phases that timed out, and syncs the leader never sent. */
  void tick(long now) {
    if (state == State.DEAD) {
      return;
    }
    for (Member m : new ArrayList<>(members.values())) {
      // A member waiting in JoinGroup is bounded by the join phase, not by its session.
      if (m.pendingJoin == null && now >= m.sessionDeadline && members.containsKey(m.memberId)) {
        remove(m, now);
      }
    }
    if (state == State.COMPLETING_REBALANCE && !advancing && now >= syncDeadline) {
      // The leader's assignment did not come: members that did not sync leave, the rest rejoin.
      for (Member m : new ArrayList<>(members.values())) {
        if (m.pendingSync == null) {
          members.remove(m.memberId);
          forget(m);
          failPending(m, Errors.UNKNOWN_MEMBER_ID);
        }
      }
      prepareRebalance(now);
    }
    maybeCompleteJoin(now);
  }

  /** The coordination is gone: every waiting request gets {@code error}; the group is dead here. */
  void unload(Errors error) {
    state = State.DEAD;
    for (Member m : members.values()) {
      failPending(m, error);
    }
  }

  private void failPending(Member m, Errors e) {
    if (m.pendingJoin != null) {
      CompletableFuture<JoinGroupResponseData> f = m.pendingJoin;
      m.pendingJoin = null;
      f.complete(errorData(e));
    }
    failSync(m, e);
  }

  private static void failSync(Member m, Errors e) {
    if (m.pendingSync != null) {
      CompletableFuture<SyncGroupResponseData> f = m.pendingSync;
      m.pendingSync = null;
      f.complete(syncError(e));
    }
  }

  static JoinGroupResponseData errorData(Errors e) {
    return new JoinGroupResponseData()
        .setErrorCode(e.code())
        .setGenerationId(-1)
        .setMemberId("")
        .setLeader("")
        .setProtocolName("");
  }

  private static CompletableFuture<JoinGroupResponseData> error(Errors e) {
    return CompletableFuture.completedFuture(errorData(e));
  }
}
