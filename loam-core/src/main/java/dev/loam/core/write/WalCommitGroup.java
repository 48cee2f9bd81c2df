package dev.loam.core.write;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One commit proposal in flight on a {@link WalWriter}: a run of written objects, in seal order.
 * Each attempt proposes the members still within their commit budget (a CommitWal for one, a
 * CommitWalGroup for more: one proposal, one fsync, one fate); an answer reaches every member at
 * once, and an unknown outcome marks every member unknown. The members leave as they get their
 * verdicts; the writer may have other groups in flight, over other partitions.
 */
final class WalCommitGroup {
  private final WalWriter writer;
  // Guarded by the writer; the oldest first.
  final List<WalFlight> members;

  WalCommitGroup(WalWriter writer, List<WalFlight> members) {
    this.writer = writer;
    this.members = new ArrayList<>(members);
  }

  private List<WalFlight> live() {
    synchronized (writer) {
      return new ArrayList<>(members);
    }
  }

  /** Makes attempt {@code attempt} (0 first). Runs on the scheduler. */
  void commit(int attempt) {
    if (writer.abandoned()) {
      return;
    }
    long now = writer.clock.millis();
    List<WalFlight> proposing = new ArrayList<>();
    for (WalFlight f : live()) {
      if (now < f.deadlineMillis) {
        proposing.add(f);
      } else if (attempt == 0) {
        // Waited behind older objects past the budget: no attempt was ever made, so nothing can
        // have been committed (§3: no new attempt after the budget).
        f.fail(
            new LoamException(
                Kind.UNAVAILABLE, "commit budget spent before the first attempt object=" + f.key));
      } else {
        f.failCommit("the commit budget ran out", null);
      }
    }
    if (proposing.isEmpty()) {
      return;
    }
    Optional<String> unreachable = writer.meta.unavailableReason();
    if (unreachable.isPresent()) {
      // Not proposed: without a reachable majority a proposal could only wait out the budget,
      // and an attempt never handed to the metastore cannot have committed. Tried again after
      // the backoff (an election ends within about a second); a closing node stops waiting and
      // answers through abandon().
      if (retry(attempt)) {
        return;
      }
      for (WalFlight f : proposing) {
        f.failCommit(
            "the metastore has no reachable majority, the commit was never proposed: "
                + unreachable.get(),
            null);
      }
      return;
    }
    Origin origin = writer.ctx.origin();
    List<CommitWal> commands = new ArrayList<>(proposing.size());
    for (WalFlight f : proposing) {
      commands.add(f.command(origin));
    }
    Command cmd = commands.size() == 1 ? commands.get(0) : new CommitWalGroup(origin, commands);
    long t0 = writer.clock.millis();
    synchronized (writer) {
      // Atomic with abandon(): it either sees these members as proposing (outcome unknown) or
      // this attempt sees it and proposes nothing.
      if (writer.abandoned()) {
        return;
      }
      for (WalFlight f : proposing) {
        f.proposing = true;
      }
    }
    writer
        .meta
        .propose(cmd)
        .whenCompleteAsync(
            (applied, e) -> {
              writer.stats.recordCommit(writer.clock.millis() - t0);
              if (e == null) {
                // Still "proposing" until the verdicts are decided (WalWriter.decide): a concurrent
                // abandon() must not call an applied commit "nothing appended".
                answer(proposing, applied);
                return;
              }
              Throwable cause = WriteRetry.unwrap(e);
              boolean definite = cause instanceof LoamException le && le.kind() == Kind.UNAVAILABLE;
              synchronized (writer) {
                for (WalFlight f : proposing) {
                  f.commitUnknown |= !definite;
                  f.proposing = false;
                }
              }
              if (!writer.abandoned() && retry(attempt)) {
                return;
              }
              for (WalFlight f : proposing) {
                f.failCommit(
                    definite ? "the metastore is unavailable" : "the commit budget ran out", cause);
              }
            },
            writer.scheduler);
  }

  /** Hands each member its own outcome; a refusal of the whole group reaches every member. */
  private void answer(List<WalFlight> proposed, Applied applied) {
    Outcome o = applied.outcome();
    if (o instanceof Outcome.WalGroupCommitted g) {
      for (int i = 0; i < proposed.size(); i++) {
        proposed.get(i).onApplied(applied.index(), g.members().get(i));
      }
    } else {
      for (WalFlight f : proposed) {
        f.onApplied(applied.index(), o);
      }
    }
  }

  /**
   * Schedules the next attempt after a backoff unless the newest member's budget (the latest
   * deadline) is spent; members past their own deadline then leave at the next attempt.
   */
  private boolean retry(int attempt) {
    List<WalFlight> now = live();
    if (now.isEmpty()) {
      return false;
    }
    long latest = Long.MIN_VALUE;
    for (WalFlight f : now) {
      latest = Math.max(latest, f.deadlineMillis);
    }
    long backoff = WriteRetry.backoffMillis(writer.backoffInitial, attempt);
    if (!WriteRetry.startsBefore(writer.clock.millis(), backoff, latest)) {
      return false;
    }
    writer.scheduler.schedule(() -> commit(attempt + 1), backoff, TimeUnit.MILLISECONDS);
    return true;
  }
}
