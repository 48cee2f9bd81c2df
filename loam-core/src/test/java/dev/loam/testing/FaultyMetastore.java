package dev.loam.testing;

import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Wraps a real metastore and injects failures into CommitWal proposals: refuse before logging
 * (UNAVAILABLE), or apply and then lose the answer (OUTCOME_UNKNOWN), as a timed-out Raft proposal
 * would. Records every CommitWal it forwarded.
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

  private synchronized Fault next() {
    return script.isEmpty() ? afterScript : script.remove(0);
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    if (!(command instanceof CommitWal c)) {
      return delegate.propose(command);
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
          forwarded.add(c);
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
          forwarded.add(c);
        }
        return delegate.propose(command);
    }
  }
}
