package dev.loam.testing;

import dev.loam.meta.Applied;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A metastore that forwards every call to another; tests extend it and override the call they break
 * or observe (usually {@link #propose}).
 */
public class ForwardingMetastore implements Metastore {
  /** The metastore every call goes to. */
  protected final Metastore delegate;

  public ForwardingMetastore(Metastore delegate) {
    this.delegate = delegate;
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
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
  public void close() {
    delegate.close();
  }
}
