package dev.loam.meta.ratis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.util.TimeoutExecutor;
import org.apache.ratis.util.Timestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On the metastore leader, looks at its followers once a second and, when {@link
 * StuckFollowerDetector} finds one that answers but has not caught up at all for a while, hands the
 * leadership to the most caught-up other voter: the new leader's log appenders start from what each
 * follower says it has, so the stuck follower catches up (docs/design/metastore-ratis.md "Followers
 * that do not catch up"). At most one hand-over per {@code cooldown}, so a follower that cannot
 * catch up for some other reason (its disk, say) costs an election now and then, not a leader that
 * never settles. Runs on Ratis's shared timer; the hand-over itself on the metastore's executor.
 */
final class FollowerWatchdog {
  private static final Logger LOG = LoggerFactory.getLogger(FollowerWatchdog.class);
  private static final TimeDuration PERIOD = TimeDuration.valueOf(1, TimeUnit.SECONDS);

  private final RaftServer server;
  private final RaftGroupId groupId;
  private final RaftPeerId localId;
  private final Set<String> voters;
  private final Supplier<RaftClient> adminClient;
  private final Executor executor;
  private final Duration transferTimeout;
  private final long cooldownNanos;
  private final StuckFollowerDetector detector;
  private volatile boolean stopped;

  /** When the last hand-over started; Ratis's monotonic time, as its own timeouts use. */
  private Timestamp lastTransfer;

  /** The origin of the detector's millisecond clock. */
  private final Timestamp origin = Timestamp.currentTime();

  private boolean transferring;

  FollowerWatchdog(
      RaftServer server,
      RaftGroupId groupId,
      RaftPeerId localId,
      Set<String> voters,
      Supplier<RaftClient> adminClient,
      Executor executor,
      Duration stuckFor,
      Duration answeredWithin,
      Duration transferTimeout,
      Duration cooldown) {
    this.server = server;
    this.groupId = groupId;
    this.localId = localId;
    this.voters = Set.copyOf(voters);
    this.adminClient = adminClient;
    this.executor = executor;
    this.transferTimeout = transferTimeout;
    this.cooldownNanos = cooldown.toNanos();
    this.detector = new StuckFollowerDetector(stuckFor.toMillis(), answeredWithin.toMillis());
    this.lastTransfer = null;
  }

  void start() {
    schedule();
  }

  void stop() {
    stopped = true;
  }

  private void schedule() {
    if (stopped) {
      return;
    }
    TimeoutExecutor.getInstance()
        .onTimeout(
            PERIOD, this::tick, LOG, () -> "metastore follower watchdog failed peer=" + localId);
  }

  private synchronized void tick() {
    try {
      if (!stopped) {
        check();
      }
    } finally {
      schedule();
    }
  }

  private void check() {
    DivisionInfo info;
    try {
      info = server.getDivision(groupId).getInfo();
    } catch (Exception e) {
      detector.reset();
      return;
    }
    if (!info.isLeader() || !info.isLeaderReady() || transferring) {
      detector.reset();
      return;
    }
    RoleInfoProto role = info.getRoleInfoProto();
    long[] match = info.getFollowerMatchIndices();
    if (!role.hasLeaderInfo() || role.getLeaderInfo().getFollowerInfoCount() != match.length) {
      return; // the follower list changed between the two reads; look again next time
    }
    List<StuckFollowerDetector.Follower> followers = new ArrayList<>();
    for (int i = 0; i < match.length; i++) {
      ServerRpcProto f = role.getLeaderInfo().getFollowerInfo(i);
      followers.add(
          new StuckFollowerDetector.Follower(
              f.getId().getId().toStringUtf8(), match[i], f.getLastRpcElapsedTimeMs()));
    }
    Optional<String> stuck =
        detector.sample(origin.elapsedTimeMs(), info.getLastAppliedIndex(), followers);
    boolean coolingDown =
        lastTransfer != null && lastTransfer.elapsedTimeMs() < cooldownNanos / 1_000_000;
    if (stuck.isEmpty() || coolingDown) {
      return;
    }
    Optional<StuckFollowerDetector.Follower> target =
        followers.stream()
            .filter(f -> voters.contains(f.id()) && !f.id().equals(stuck.get()))
            .filter(f -> f.lastRpcElapsedMillis() >= 0 && f.lastRpcElapsedMillis() < 2_000)
            .max((a, b) -> Long.compare(a.matchIndex(), b.matchIndex()));
    if (target.isEmpty()) {
      return;
    }
    long stuckAt =
        followers.stream()
            .filter(f -> f.id().equals(stuck.get()))
            .mapToLong(StuckFollowerDetector.Follower::matchIndex)
            .findFirst()
            .orElse(-1);
    LOG.warn(
        "metastore follower answers but does not catch up; handing leadership over so a new"
            + " leader resends its log follower={} followerMatchIndex={} leaderAppliedIndex={}"
            + " newLeader={} peer={}",
        stuck.get(),
        stuckAt,
        info.getLastAppliedIndex(),
        target.get().id(),
        localId);
    lastTransfer = Timestamp.currentTime();
    transferring = true;
    detector.reset();
    RaftPeerId to = RaftPeerId.valueOf(target.get().id());
    executor.execute(() -> transfer(to));
  }

  private void transfer(RaftPeerId to) {
    try {
      RaftClientReply reply =
          adminClient.get().admin().transferLeadership(to, localId, transferTimeout.toMillis());
      if (!reply.isSuccess()) {
        LOG.warn(
            "metastore leadership hand-over refused newLeader={} peer={} cause={}",
            to,
            localId,
            String.valueOf(reply.getException()));
      }
    } catch (Exception e) {
      LOG.warn(
          "metastore leadership hand-over failed newLeader={} peer={} cause={}",
          to,
          localId,
          e.toString());
    } finally {
      synchronized (this) {
        transferring = false;
      }
    }
  }
}
