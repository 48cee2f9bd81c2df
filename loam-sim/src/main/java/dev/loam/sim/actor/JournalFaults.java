package dev.loam.sim.actor;

import dev.loam.core.quorum.QuorumStreams;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.quorum.SimRaft;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The faults of a run's quorum journal (docs/design/simulation.md "Quorum streams"), drawn from a
 * stream of their own so that every other draw of the seed is unchanged: crashes and pauses of the
 * journal's leader at the time they hit (whoever leads then), a replica cut off from the journal
 * network for a while (every message to or from it lost), and a slow link (every message of a node
 * held back). The per-message losses and delays are the {@link SimRaft}'s own, on while the
 * per-call faults are.
 */
public final class JournalFaults {
  private final SimContext ctx;
  private final SimCluster cluster;
  private final SimRaft raft;
  private final SplittableRandom random;
  private final int nodeCount;

  /**
   * @param random the seed's journal fault stream
   */
  public JournalFaults(
      SimContext ctx, SimCluster cluster, SimRaft raft, SplittableRandom random, int nodeCount) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.raft = raft;
    this.random = random;
    this.nodeCount = nodeCount;
  }

  /** Draws and schedules the journal faults within {@code workloadMillis}. */
  public void schedule(long workloadMillis) {
    int crashes = 1 + random.nextInt(2);
    for (int i = 0; i < crashes; i++) {
      long at = random.nextLong(workloadMillis);
      long down = 200 + random.nextInt(4_000);
      ctx.planned("t+" + at + "ms crash the journal leader for " + down + "ms");
      at(
          at,
          () ->
              raft.leaderOf(QuorumStreams.JOURNAL)
                  .ifPresent(
                      id -> {
                        ctx.count("journal.fault.leaderCrash");
                        ctx.trace().add("journal fault crash leader " + id);
                        cluster.crash(id, down);
                      }));
    }
    int pauses = random.nextInt(3);
    for (int i = 0; i < pauses; i++) {
      long at = random.nextLong(workloadMillis);
      long length = 300 + random.nextInt(3_000);
      ctx.planned("t+" + at + "ms pause the journal leader for " + length + "ms");
      at(
          at,
          () ->
              raft.leaderOf(QuorumStreams.JOURNAL)
                  .ifPresent(
                      id -> {
                        ctx.count("journal.fault.leaderPause");
                        ctx.trace().add("journal fault pause leader " + id);
                        cluster.pause(id, length);
                      }));
    }
    int isolations = random.nextInt(3);
    for (int i = 0; i < isolations; i++) {
      long at = random.nextLong(workloadMillis);
      long length = 300 + random.nextInt(4_000);
      boolean leader = random.nextBoolean();
      String other = "n" + random.nextInt(nodeCount);
      ctx.planned(
          "t+"
              + at
              + "ms cut "
              + (leader ? "the journal leader" : other)
              + " off the journal network for "
              + length
              + "ms");
      at(
          at,
          () -> {
            String id = leader ? raft.leaderOf(QuorumStreams.JOURNAL).orElse(other) : other;
            ctx.count("journal.fault.isolate");
            raft.isolate(id);
            at(length, () -> raft.reconnect(id));
          });
    }
    if (random.nextBoolean()) {
      long at = random.nextLong(workloadMillis);
      long length = 1_000 + random.nextInt(4_000);
      long extra = 20 + random.nextInt(300);
      String id = "n" + random.nextInt(nodeCount);
      ctx.planned("t+" + at + "ms journal messages of " + id + " slow by " + extra + "ms");
      at(
          at,
          () -> {
            ctx.count("journal.fault.slow");
            raft.slow(id, extra);
            at(length, () -> raft.slow(id, 0));
          });
    }
  }

  private void at(long millis, Runnable fault) {
    ctx.scheduler().schedule(fault, millis, TimeUnit.MILLISECONDS);
  }
}
