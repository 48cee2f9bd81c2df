package dev.loam.meta.ratis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
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

  /** How long a hand-over call may stay unanswered before the guard watches again. */
  private final long transferBoundMillis;

  private final long cooldownNanos;
  private final StuckFollowerDetector detector;
  private final long answeredWithinMillis;
  private final UnaryOperator<List<StuckFollowerDetector.Follower>> view;
  private final AtomicLong handOvers = new AtomicLong();
  private volatile boolean stopped;

  /** When the view of followers standing still was last logged, or null. */
  private Timestamp lastReport;

  /** When a stuck follower without a voter to hand over to was last logged, or null. */
  private Timestamp lastNoTarget;

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
    this(
        server,
        groupId,
        localId,
        voters,
        adminClient,
        executor,
        stuckFor,
        answeredWithin,
        transferTimeout,
        cooldown,
        UnaryOperator.identity());
  }

  /**
   * @param view applied to each sample of the followers before it is judged: the identity, except
   *     in tests that stand in for the Ratis state that cannot be produced on demand (an appender
   *     holding a restarted follower's old match index)
   */
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
      Duration cooldown,
      UnaryOperator<List<StuckFollowerDetector.Follower>> view) {
    this.server = server;
    this.groupId = groupId;
    this.localId = localId;
    this.voters = Set.copyOf(voters);
    this.adminClient = adminClient;
    this.executor = executor;
    this.transferTimeout = transferTimeout;
    this.transferBoundMillis = Math.max(30_000, transferTimeout.toMillis() * 4);
    this.cooldownNanos = cooldown.toNanos();
    this.detector = new StuckFollowerDetector(stuckFor.toMillis(), answeredWithin.toMillis());
    this.answeredWithinMillis = answeredWithin.toMillis();
    this.view = view;
    this.lastTransfer = null;
  }

  void start() {
    schedule();
  }

  void stop() {
    stopped = true;
  }

  /** Hand-overs this watchdog started. */
  long handOvers() {
    return handOvers.get();
  }

  /**
   * The leader's followers as it sees them now: id, match index and the age of the last answer,
   * paired by position (both lists come from the leader's log appenders, in their order); empty
   * when this replica does not lead or the follower list changed between the two reads.
   */
  static Optional<List<StuckFollowerDetector.Follower>> followers(DivisionInfo info) {
    RoleInfoProto role = info.getRoleInfoProto();
    long[] match = info.getFollowerMatchIndices();
    if (match == null
        || !role.hasLeaderInfo()
        || role.getLeaderInfo().getFollowerInfoCount() != match.length) {
      return Optional.empty();
    }
    List<StuckFollowerDetector.Follower> followers = new ArrayList<>();
    for (int i = 0; i < match.length; i++) {
      ServerRpcProto f = role.getLeaderInfo().getFollowerInfo(i);
      followers.add(
          new StuckFollowerDetector.Follower(
              f.getId().getId().toStringUtf8(), match[i], f.getLastRpcElapsedTimeMs()));
    }
    return Optional.of(List.copyOf(followers));
  }

  private void schedule() {
    if (stopped) {
      return;
    }
    try {
      TimeoutExecutor.getInstance()
          .onTimeout(
              PERIOD, this::tick, LOG, () -> "metastore follower watchdog failed peer=" + localId);
    } catch (RuntimeException e) {
      // Ratis's shared timer refused the task (a timer thread that died): say so, loudly, since
      // the guard is off from here on.
      LOG.error(
          "metastore follower watchdog stopped: its timer refused the next look peer={}",
          localId,
          e);
    }
  }

  private synchronized void tick() {
    try {
      if (!stopped) {
        check();
      }
    } catch (RuntimeException e) {
      LOG.warn("metastore follower watchdog check failed peer={} cause={}", localId, e.toString());
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
    if (transferring && lastTransfer.elapsedTimeMs() > transferBoundMillis) {
      // A hand-over whose call never returned must not keep the guard off for good.
      LOG.warn(
          "metastore leadership hand-over still unanswered after {} ms; watching again peer={}",
          lastTransfer.elapsedTimeMs(),
          localId);
      transferring = false;
    }
    if (!info.isLeader() || !info.isLeaderReady() || transferring) {
      detector.reset();
      return;
    }
    Optional<List<StuckFollowerDetector.Follower>> seen = followers(info);
    if (seen.isEmpty()) {
      return; // the follower list changed between the two reads; look again next time
    }
    List<StuckFollowerDetector.Follower> followers = view.apply(seen.get());
    long now = origin.elapsedTimeMs();
    long applied = info.getLastAppliedIndex();
    Optional<String> stuck = detector.sample(now, applied, followers);
    boolean coolingDown =
        lastTransfer != null && lastTransfer.elapsedTimeMs() < cooldownNanos / 1_000_000;
    report(now, applied, followers, stuck, coolingDown);
    if (stuck.isEmpty() || coolingDown) {
      return;
    }
    Optional<StuckFollowerDetector.Follower> target =
        followers.stream()
            .filter(f -> voters.contains(f.id()) && !f.id().equals(stuck.get()))
            .filter(f -> f.lastRpcElapsedMillis() >= 0 && f.lastRpcElapsedMillis() < 2_000)
            .max((a, b) -> Long.compare(a.matchIndex(), b.matchIndex()));
    if (target.isEmpty()) {
      if (lastNoTarget != null && lastNoTarget.elapsedTimeMs() < 30_000) {
        return;
      }
      lastNoTarget = Timestamp.currentTime();
      LOG.warn(
          "metastore follower answers but does not catch up and no other voter answered in the"
              + " last 2 s to hand the leadership to follower={} leaderAppliedIndex={} followers={}"
              + " peer={}",
          stuck.get(),
          applied,
          followers,
          localId);
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
    handOvers.incrementAndGet();
    detector.reset();
    RaftPeerId to = RaftPeerId.valueOf(target.get().id());
    executor.execute(() -> transfer(to));
  }

  /**
   * Logs, at most every 10 s, each follower that has stood still behind this leader for longer than
   * the answer bound, with what the rule makes of it: the evidence an operator (or the chaos test's
   * reader) needs when a follower does not catch up and no hand-over follows.
   */
  private void report(
      long now,
      long applied,
      List<StuckFollowerDetector.Follower> followers,
      Optional<String> stuck,
      boolean coolingDown) {
    if (lastReport != null && lastReport.elapsedTimeMs() < 10_000) {
      return;
    }
    List<String> still = new ArrayList<>();
    for (StuckFollowerDetector.Follower f : followers) {
      long standing = detector.standingStillMillis(f.id(), now);
      if (standing >= answeredWithinMillis) {
        boolean answering =
            f.lastRpcElapsedMillis() >= 0 && f.lastRpcElapsedMillis() <= answeredWithinMillis;
        String verdict =
            stuck.filter(f.id()::equals).isPresent()
                ? coolingDown ? "stuck, hand-over cooling down" : "stuck"
                : answering ? "answering, window not over" : "not answering";
        still.add(
            f.id()
                + "(matchIndex="
                + f.matchIndex()
                + " lastAnswerMs="
                + f.lastRpcElapsedMillis()
                + " standingStillMs="
                + standing
                + " "
                + verdict
                + ")");
      }
    }
    if (!still.isEmpty()) {
      lastReport = Timestamp.currentTime();
      LOG.info(
          "metastore followers behind without progress {} leaderAppliedIndex={} peer={}",
          still,
          applied,
          localId);
    }
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
