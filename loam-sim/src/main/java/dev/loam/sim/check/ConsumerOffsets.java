package dev.loam.sim.check;

import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.StreamInfo;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimMetastore;
import dev.loam.sim.SimStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The named-consumer invariants (stream-engine.txt §7; docs/design/simulation.md "Named
 * consumers"), judged against the commits each consumer was told are committed:
 *
 * <ul>
 *   <li>a consumer resumes (after a new lease) at a committed offset at or after its last
 *       acknowledged commit, and acknowledged commits never go backwards;
 *   <li>on every applied commit, and at the end, the committed offset in the replicated state is at
 *       or after the consumer's last acknowledged commit.
 * </ul>
 */
public final class ConsumerOffsets {
  private static final class Tracked {
    final String name;
    final SimStream stream;
    final int partition;
    long lastAckedCommit = -1;

    Tracked(String name, SimStream stream, int partition) {
      this.name = name;
      this.stream = stream;
      this.partition = partition;
    }
  }

  private final SimContext ctx;
  private final SimMetastore meta;
  private final Checker checker;
  private final List<Tracked> consumers = new ArrayList<>();

  /** Judges the consumers registered with {@link #track}; violations go to {@code checker}. */
  public ConsumerOffsets(SimContext ctx, SimMetastore meta, Checker checker) {
    this.ctx = ctx;
    this.meta = meta;
    this.checker = checker;
  }

  /** A named consumer of the run, reading one partition; names are unique. */
  public void track(String name, SimStream stream, int partition) {
    consumers.add(new Tracked(name, stream, partition));
  }

  private Tracked tracked(String name) {
    return consumers.stream().filter(k -> k.name.equals(name)).findFirst().orElseThrow();
  }

  /** Consumer {@code name} took the lease and found {@code committed} (-1 for none). */
  public void resumed(String name, long committed) {
    long last = tracked(name).lastAckedCommit;
    if (committed < last) {
      checker.violation(
          "consumer "
              + name
              + " resumes at "
              + committed
              + " behind its last acknowledged commit "
              + last);
    }
  }

  /** Consumer {@code name} was told that {@code offset} is committed. */
  public void acknowledged(String name, long offset) {
    Tracked k = tracked(name);
    if (offset < k.lastAckedCommit) {
      checker.violation(
          "consumer "
              + name
              + " acknowledged commit went backwards from "
              + k.lastAckedCommit
              + " to "
              + offset);
    }
    k.lastAckedCommit = Math.max(k.lastAckedCommit, offset);
  }

  /** After every applied (not rejected) consumer commit. */
  public void onCommitApplied(CommitConsumerOffset c) {
    long now =
        meta.read(
            r ->
                r.consumerLease(c.streamId(), c.partition(), c.consumer())
                    .map(ConsumerLease::committedOffset)
                    .orElse(-1L));
    String key = c.streamId() + "/" + c.partition() + "/" + c.consumer();
    ctx.trace()
        .add(
            "applied commit "
                + key
                + " offset="
                + c.offset()
                + " gen="
                + c.generation()
                + " from="
                + c.origin().nodeId()
                + "@"
                + c.origin().nodeEpoch()
                + " stamp="
                + c.origin().stampMillis());
    // Not "never decreases": a commit whose answer was lost (never acknowledged) may be followed
    // by a lower one from the same consumer re-reading (seed 2654); what may not happen is a
    // committed offset below one the consumer was told is committed.
    for (Tracked k : consumers) {
      if (k.name.equals(c.consumer()) && now < k.lastAckedCommit) {
        checker.violation(
            "committed offset below the last acknowledged commit consumer="
                + key
                + " committed="
                + now
                + " lastAcknowledged="
                + k.lastAckedCommit);
      }
    }
  }

  /** At the end: every consumer's committed offset is at or after its last acknowledged commit. */
  public void checkAfterHealing() {
    for (Tracked c : consumers) {
      StreamInfo info = meta.read(r -> r.stream(SimContext.NS, c.stream.name())).orElseThrow();
      long committed =
          meta.read(
              r ->
                  r.consumerLease(info.id(), c.partition, c.name)
                      .map(ConsumerLease::committedOffset)
                      .orElse(-1L));
      if (committed < c.lastAckedCommit) {
        checker.violation(
            "consumer "
                + c.name
                + " committed offset "
                + committed
                + " is behind its last acknowledged commit "
                + c.lastAckedCommit);
      }
      ctx.add("consumer.finalCommitted", Math.max(committed, 0));
    }
  }
}
