package dev.loam.testing;

import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWalGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Wraps a real metastore and injects failures into commit proposals (CommitWal and CommitWalGroup,
 * one fault per proposal, so a group shares one fate): refuse before logging (UNAVAILABLE), or
 * apply and then lose the answer (OUTCOME_UNKNOWN), as a timed-out Raft proposal would; or reorder
 * proposals in flight together: answer late (later proposals are answered first), or apply late and
 * lose the answer at once (later proposals are applied first, as a Raft entry that commits after
 * its client timed out). Records every CommitWal it forwarded (a group's members one by one), the
 * size of every proposal and the most proposals that were unanswered at once.
 */
public final class FaultyMetastore extends ForwardingMetastore {
  /** What to do with one CommitWal proposal. */
  public enum Fault {
    NONE,
    UNAVAILABLE_BEFORE_LOGGING,
    APPLIED_BUT_ANSWER_LOST,
    UNKNOWN_NOT_APPLIED,
    ANSWER_LATE,
    APPLIED_LATE_ANSWER_LOST
  }

  /**
   * How late {@link Fault#ANSWER_LATE} answers and {@link Fault#APPLIED_LATE_ANSWER_LOST} applies.
   */
  public static final long LATE_MILLIS = 60;

  private final List<Fault> script = new ArrayList<>();
  private Fault afterScript = Fault.NONE;
  private final List<CommitWal> forwarded = new ArrayList<>();
  private final List<Integer> proposalSizes = new ArrayList<>();
  private int unanswered;
  private int mostUnanswered;

  public FaultyMetastore(Metastore delegate) {
    super(delegate);
  }

  /** The faults for the next CommitWal proposals, in order; then {@code then} forever. */
  public synchronized FaultyMetastore script(List<Fault> faults, Fault then) {
    script.clear();
    script.addAll(faults);
    afterScript = then;
    return this;
  }

  public synchronized List<CommitWal> forwardedCommits() {
    return List.copyOf(forwarded);
  }

  /** Per commit proposal made (faulted or not), how many objects it carried, in order. */
  public synchronized List<Integer> proposalSizes() {
    return List.copyOf(proposalSizes);
  }

  /** The most commit proposals that were made and not yet answered at one time. */
  public synchronized int mostUnanswered() {
    return mostUnanswered;
  }

  private synchronized Fault next() {
    return script.isEmpty() ? afterScript : script.remove(0);
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    List<CommitWal> members;
    if (command instanceof CommitWal c) {
      members = List.of(c);
    } else if (command instanceof CommitWalGroup g) {
      members = g.members();
    } else {
      return delegate.propose(command);
    }
    synchronized (this) {
      proposalSizes.add(members.size());
    }
    synchronized (this) {
      mostUnanswered = Math.max(mostUnanswered, ++unanswered);
    }
    return faulted(command, members)
        .whenComplete(
            (a, e) -> {
              synchronized (this) {
                unanswered--;
              }
            });
  }

  private CompletableFuture<Applied> faulted(Command command, List<CommitWal> members) {
    Fault f = next();
    Executor late = CompletableFuture.delayedExecutor(LATE_MILLIS, TimeUnit.MILLISECONDS);
    switch (f) {
      case ANSWER_LATE:
        synchronized (this) {
          forwarded.addAll(members);
        }
        return delegate.propose(command).thenApplyAsync(a -> a, late);
      case APPLIED_LATE_ANSWER_LOST:
        synchronized (this) {
          forwarded.addAll(members);
        }
        late.execute(() -> delegate.propose(command));
        return CompletableFuture.failedFuture(
            new LoamException(
                LoamException.Kind.OUTCOME_UNKNOWN, "injected: timed out, applied later"));
      case UNAVAILABLE_BEFORE_LOGGING:
        return CompletableFuture.failedFuture(
            new LoamException(LoamException.Kind.UNAVAILABLE, "injected: leader unavailable"));
      case UNKNOWN_NOT_APPLIED:
        return CompletableFuture.failedFuture(
            new LoamException(LoamException.Kind.OUTCOME_UNKNOWN, "injected: proposal timed out"));
      case APPLIED_BUT_ANSWER_LOST:
        synchronized (this) {
          forwarded.addAll(members);
        }
        return delegate
            .propose(command)
            .thenApply(
                a -> {
                  throw new LoamException(
                      LoamException.Kind.OUTCOME_UNKNOWN, "injected: answer lost after apply");
                });
      default:
        synchronized (this) {
          forwarded.addAll(members);
        }
        return delegate.propose(command);
    }
  }
}
