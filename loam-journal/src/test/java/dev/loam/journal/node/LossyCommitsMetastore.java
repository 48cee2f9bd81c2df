package dev.loam.journal.node;

import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitJournalSegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A metastore whose first journal-segment commits fail: {@code lostBefore} of them without being
 * proposed (UNAVAILABLE, nothing logged), then {@code lostAfter} after being applied (the answer
 * lost: OUTCOME_UNKNOWN).
 */
final class LossyCommitsMetastore implements Metastore {
  final Metastore delegate;
  final AtomicInteger lostBefore;
  final AtomicInteger lostAfter;

  LossyCommitsMetastore(Metastore delegate, AtomicInteger lostBefore, AtomicInteger lostAfter) {
    this.delegate = delegate;
    this.lostBefore = lostBefore;
    this.lostAfter = lostAfter;
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    if (command instanceof CommitJournalSegment) {
      if (lostBefore.getAndDecrement() > 0) {
        return CompletableFuture.failedFuture(
            new LoamException(LoamException.Kind.UNAVAILABLE, "injected: not proposed"));
      }
      if (lostAfter.getAndDecrement() > 0) {
        return delegate
            .propose(command)
            .thenCompose(
                a ->
                    CompletableFuture.failedFuture(
                        new LoamException(
                            LoamException.Kind.OUTCOME_UNKNOWN, "injected: answer lost")));
      }
    }
    return delegate.propose(command);
  }

  @Override
  public <T> T read(Function<MetaReader, T> query) {
    return delegate.read(query);
  }

  @Override
  public long appliedIndex() {
    return delegate.appliedIndex();
  }

  @Override
  public CompletableFuture<Void> awaitApplied(long index) {
    return delegate.awaitApplied(index);
  }

  @Override
  public CompletableFuture<Void> awaitLatest() {
    return delegate.awaitLatest();
  }

  @Override
  public void addApplyListener(ApplyListener listener) {
    delegate.addApplyListener(listener);
  }

  @Override
  public void close() {}
}
