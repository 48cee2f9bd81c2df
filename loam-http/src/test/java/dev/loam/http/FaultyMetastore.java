package dev.loam.http;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.embedded.EmbeddedMetastore;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * An embedded metastore with two switchable faults, as a replicated one shows them: {@link
 * #noMajority} (it reports no reachable majority, as a Ratis replica cut off from its peers does,
 * and a proposal sent anyway gets no answer: OUTCOME_UNKNOWN, as when the Ratis client's retries
 * run out) and {@link #loseCommitAnswers} (a WAL commit is applied but its answer is lost:
 * OUTCOME_UNKNOWN, as when a leader fails after logging it).
 */
final class FaultyMetastore implements Metastore {
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final EmbeddedMetastore delegate;
  volatile String noMajority;
  volatile boolean loseCommitAnswers;

  /** WAL commits proposed while {@link #noMajority} was set. */
  final java.util.concurrent.atomic.AtomicInteger proposedWithoutMajority =
      new java.util.concurrent.atomic.AtomicInteger();

  FaultyMetastore(Path dir) {
    delegate =
        EmbeddedMetastore.open(
            dir,
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            executor);
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    if (noMajority != null) {
      if (command instanceof CommitWal || command instanceof CommitWalGroup) {
        proposedWithoutMajority.incrementAndGet();
      }
      return CompletableFuture.failedFuture(
          new LoamException(Kind.OUTCOME_UNKNOWN, "no answer from a majority: " + noMajority));
    }
    CompletableFuture<Applied> f = delegate.propose(command);
    if (loseCommitAnswers && (command instanceof CommitWal || command instanceof CommitWalGroup)) {
      return f.thenCompose(
          a ->
              CompletableFuture.failedFuture(
                  new LoamException(Kind.OUTCOME_UNKNOWN, "answer lost for the test")));
    }
    return f;
  }

  @Override
  public Optional<String> unavailableReason() {
    String r = noMajority;
    return r != null ? Optional.of(r) : delegate.unavailableReason();
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
  public void close() {
    delegate.close();
    executor.shutdownNow();
  }
}
