package dev.loam.meta.ratis;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides, from a leader's periodic view of its followers, when a follower is stuck: it answers the
 * leader's requests, the leader's log moves past it, and yet its match index has not moved for
 * {@code stuckFor}. That is the state an Apache Ratis 3.3 log appender can fall into after a
 * follower restarts while requests to its previous process were in flight: the appender keeps the
 * match index that process had acknowledged, the restarted follower answers every heartbeat
 * INCONSISTENCY with the index it really needs, and the appender never sends it (a heartbeat's
 * inconsistency answer is overruled by the old match index). The follower then never catches up,
 * and its node, which waits for its own replica to apply what it proposed, never becomes ready. A
 * follower that is down does not answer, so it is not stuck; one that is slow still moves. Since
 * the appender answers a stuck follower only between its error back-offs, answers can come further
 * apart than {@code answeredWithin}; a second, longer rule catches that follower too.
 *
 * <p>The remedy, chosen by {@link FollowerWatchdog}, is a new leader: its appenders start from what
 * each follower says it has. Pure logic, fed samples by the caller; not thread-safe.
 */
final class StuckFollowerDetector {
  /** One follower as the leader sees it at one instant. */
  record Follower(String id, long matchIndex, long lastRpcElapsedMillis) {}

  private record Progress(long matchIndex, long sinceMillis) {}

  private final long stuckForMillis;
  private final long answeredWithinMillis;

  /** How long a follower may stand behind, answering now and then, before it is stuck anyway. */
  private final long longStuckMillis;

  private final Map<String, Progress> progress = new HashMap<>();

  /**
   * Since when each follower has been behind with the same match index, answering or not: what the
   * leader's log reports when a follower stands still, so an operator can see a follower the rule
   * does not (yet) call stuck.
   */
  private final Map<String, Progress> behind = new HashMap<>();

  /**
   * @param stuckForMillis how long a follower's match index may stand still while the leader's log
   *     is ahead of it
   * @param answeredWithinMillis a follower whose last answer is older than this is treated as down,
   *     not stuck; shorter than {@code stuckForMillis}
   */
  StuckFollowerDetector(long stuckForMillis, long answeredWithinMillis) {
    // A follower that dies stays "answering" for answeredWithin after its last answer; the
    // stand-still window must be longer, or a dead follower would look stuck.
    if (answeredWithinMillis <= 0 || stuckForMillis <= answeredWithinMillis) {
      throw new IllegalArgumentException(
          "need 0 < answeredWithinMillis < stuckForMillis stuckForMillis="
              + stuckForMillis
              + " answeredWithinMillis="
              + answeredWithinMillis);
    }
    this.stuckForMillis = stuckForMillis;
    this.answeredWithinMillis = answeredWithinMillis;
    this.longStuckMillis = Math.max(stuckForMillis, 2 * answeredWithinMillis) * 12 / 5;
  }

  /**
   * Takes one sample: the leader's last applied index and its followers, at {@code nowMillis}
   * (monotonic). Returns the id of a follower that is stuck, if any.
   */
  Optional<String> sample(long nowMillis, long leaderAppliedIndex, Iterable<Follower> followers) {
    Objects.requireNonNull(followers, "followers");
    Map<String, Progress> seen = new HashMap<>();
    Map<String, Progress> behindNow = new HashMap<>();
    String stuck = null;
    for (Follower f : followers) {
      if (leaderAppliedIndex > f.matchIndex()) {
        // Silent for longer than twice the answer bound: down, so the long rule's clock starts
        // again (a follower down for long needs its own time to catch up once back).
        Progress b = behind.get(f.id());
        boolean down =
            f.lastRpcElapsedMillis() < 0 || f.lastRpcElapsedMillis() > 2 * answeredWithinMillis;
        behindNow.put(
            f.id(),
            b == null || b.matchIndex() != f.matchIndex() || down
                ? new Progress(f.matchIndex(), nowMillis)
                : b);
      }
      Progress before = progress.get(f.id());
      Progress now =
          before == null || before.matchIndex() != f.matchIndex()
              ? new Progress(f.matchIndex(), nowMillis)
              : before;
      seen.put(f.id(), now);
      boolean behind = leaderAppliedIndex > f.matchIndex();
      boolean answering =
          f.lastRpcElapsedMillis() >= 0 && f.lastRpcElapsedMillis() <= answeredWithinMillis;
      if (!behind || !answering) {
        // Caught up, or down: the clock of a stand-still starts again when it answers behind.
        seen.put(f.id(), new Progress(f.matchIndex(), nowMillis));
      } else if (stuck == null && nowMillis - now.sinceMillis() >= stuckForMillis) {
        stuck = f.id();
      }
      // The long rule: the appender answers a stuck follower only between its error back-offs,
      // which can leave more than answeredWithin between two answers (5 s and more were seen), so
      // the window above may restart for ever. A follower that has stood behind with the same
      // match index for longLimit, and answered within twice the bound, is stuck too: a restarted
      // follower catches up well within that, and a dead one stops answering.
      Progress b = behindNow.get(f.id());
      if (stuck == null
          && b != null
          && nowMillis - b.sinceMillis() >= longStuckMillis
          && f.lastRpcElapsedMillis() >= 0
          && f.lastRpcElapsedMillis() <= 2 * answeredWithinMillis) {
        stuck = f.id();
      }
    }
    progress.clear();
    progress.putAll(seen);
    behind.clear();
    behind.putAll(behindNow);
    return Optional.ofNullable(stuck);
  }

  /**
   * How long the follower has been behind the leader with the same match index as of the last
   * sample at {@code nowMillis}, answering or not; 0 when it was not behind then.
   */
  long standingStillMillis(String id, long nowMillis) {
    Progress b = behind.get(id);
    return b == null ? 0 : nowMillis - b.sinceMillis();
  }

  /** Forgets every follower (this replica stopped leading, or a remedy was applied). */
  void reset() {
    progress.clear();
    behind.clear();
  }
}
