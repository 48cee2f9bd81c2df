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

/**
 * Wraps a real metastore and injects failures into commit proposals (CommitWal and CommitWalGroup,
 * one fault per proposal, so a group shares one fate): refuse before logging (UNAVAILABLE), or
 * apply and then lose the answer (OUTCOME_UNKNOWN), as a timed-out Raft proposal would. Records
 * every CommitWal it forwarded (a group's members one by one) and the size of every proposal.
 */
public final class FaultyMetastore extends ForwardingMetastore {
  /** What to do with one CommitWal proposal. */
  public enum Fault {
    NONE,
    UNAVAILABLE_BEFORE_LOGGING,
    APPLIED_BUT_ANSWER_LOST,
    UNKNOWN_NOT_APPLIED
  }

  private final List<Fault> script = new ArrayList<>();
  private Fault afterScript = Fault.NONE;
  private final List<CommitWal> forwarded = new ArrayList<>();
  private final List<Integer> proposalSizes = new ArrayList<>();

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
    Fault f = next();
    switch (f) {
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
