package dev.loam.core.node;

import dev.loam.api.BlockingOnLoamThreadException;
import dev.loam.core.runtime.LoamThreads;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future a host receives from {@code LoamNode.log()}: a {@link CompletableFuture} whose
 * blocking waits ({@link #join}, {@link #get}) refuse to start on one of Loam's threads ({@link
 * LoamThreads}) while it is not done, with {@link BlockingOnLoamThreadException}, instead of
 * waiting forever. Every stage derived from it ({@code thenApply}, {@code thenCompose}...) is one
 * too. A done future answers at once on any thread.
 */
final class HostFuture<T> extends CompletableFuture<T> {

  /**
   * A host future that completes as {@code inner} does: on {@code callbacks} when {@code inner} is
   * not done yet (so the host's stages run there), at once when it is. A callbacks executor that
   * refuses (shut down at close) leaves the completion on the completing thread.
   */
  static <T> HostFuture<T> of(CompletableFuture<T> inner, Executor callbacks) {
    HostFuture<T> f = new HostFuture<>();
    if (inner.isDone()) {
      f.completeFrom(inner);
      return f;
    }
    inner.whenComplete(
        (v, t) -> {
          try {
            callbacks.execute(() -> f.completeFrom(inner));
          } catch (RejectedExecutionException e) {
            f.completeFrom(inner);
          }
        });
    return f;
  }

  private void completeFrom(CompletableFuture<T> inner) {
    inner.whenComplete(
        (v, t) -> {
          if (t != null) {
            completeExceptionally(t);
          } else {
            complete(v);
          }
        });
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new HostFuture<>();
  }

  @Override
  public T join() {
    refuseBlockingOnLoamThread("join()");
    return super.join();
  }

  @Override
  public T get() throws InterruptedException, ExecutionException {
    refuseBlockingOnLoamThread("get()");
    return super.get();
  }

  @Override
  public T get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    refuseBlockingOnLoamThread("get(timeout)");
    return super.get(timeout, unit);
  }

  private void refuseBlockingOnLoamThread(String call) {
    if (!isDone() && LoamThreads.isLoamThread()) {
      BlockingOnLoamThreadException e = refusal(call);
      LoamThreads.refused(e);
      throw e;
    }
  }

  private static BlockingOnLoamThreadException refusal(String call) {
    return new BlockingOnLoamThreadException(
        "a Loam future's "
            + call
            + " was called on Loam thread "
            + Thread.currentThread().getName()
            + " (owner="
            + LoamThreads.currentOwner()
            + ") before it completed: it would wait forever, since completing it may need this"
            + " thread. Compose with thenCompose/thenAccept, or block on a thread of your own"
            + " (thenAcceptAsync(fn, yourExecutor))");
  }
}
