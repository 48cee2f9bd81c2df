package dev.loam.core.read;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.WalCommits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Long-poll waiters keyed by partition, woken by the metastore's applied-index watch
 * (stream-engine.txt §6 step 3) when a commit advances a partition, or by their deadline. A waiter
 * is a future, not a parked thread; waking hops to {@code executor} so the apply thread never runs
 * fetch work.
 */
public final class PartitionWatch implements ApplyListener {
  private record Key(long streamId, int partition) {}

  private final Map<Key, List<CompletableFuture<Void>>> waiters = new ConcurrentHashMap<>();
  private final AtomicInteger count = new AtomicInteger();
  private volatile boolean closed;
  private final int maxWaiters;
  private final ScheduledExecutorService scheduler;
  private final Executor executor;

  public PartitionWatch(int maxWaiters, ScheduledExecutorService scheduler) {
    this.maxWaiters = maxWaiters;
    this.scheduler = scheduler;
    this.executor = scheduler;
  }

  /**
   * A future that completes (normally) when the partition may have new records or after {@code
   * timeoutNanos}. The caller re-checks the state either way, after registering, to close the race
   * with a commit applied just before.
   */
  public CompletableFuture<Void> await(long streamId, int partition, long timeoutNanos) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.UNAVAILABLE, "node is closing; long-poll ended"));
    }
    if (count.incrementAndGet() > maxWaiters) {
      count.decrementAndGet();
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.UNAVAILABLE, "too many waiting fetches maxWaitingFetches=" + maxWaiters));
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    Key k = new Key(streamId, partition);
    waiters.compute(
        k,
        (key, list) -> {
          List<CompletableFuture<Void>> l = list == null ? new ArrayList<>() : list;
          l.add(f);
          return l;
        });
    var timer = scheduler.schedule(() -> wake(k, f), timeoutNanos, TimeUnit.NANOSECONDS);
    f.whenComplete((v, e) -> timer.cancel(false));
    return f;
  }

  /** Completes one waiter now and forgets it (the caller saw new records itself). */
  public void release(long streamId, int partition, CompletableFuture<Void> f) {
    wake(new Key(streamId, partition), f);
  }

  private void wake(Key k, CompletableFuture<Void> f) {
    boolean[] removed = {false};
    waiters.computeIfPresent(
        k,
        (key, list) -> {
          removed[0] = list.remove(f);
          return list.isEmpty() ? null : list;
        });
    if (removed[0]) {
      count.decrementAndGet();
    }
    f.complete(null);
  }

  /** Wakes every waiter of one partition. */
  void wakeAll(long streamId, int partition) {
    List<CompletableFuture<Void>> list = waiters.remove(new Key(streamId, partition));
    if (list == null) {
      return;
    }
    // The list is no longer reachable from the map, so nobody else changes it now.
    List<CompletableFuture<Void>> copy = List.copyOf(list);
    count.addAndGet(-copy.size());
    try {
      executor.execute(() -> copy.forEach(f -> f.complete(null)));
    } catch (RejectedExecutionException e) {
      // The node is stopping: complete here rather than leave the waiters hanging.
      copy.forEach(f -> f.complete(null));
    }
  }

  /** Ends every long-poll now and refuses new ones (node closing). */
  public void close() {
    closed = true;
    wakeEveryone();
  }

  private void wakeEveryone() {
    for (Key k : List.copyOf(waiters.keySet())) {
      wakeAll(k.streamId(), k.partition());
    }
  }

  @Override
  public void onApplied(long index, Command command, Outcome outcome) {
    if (closed) {
      return;
    }
    for (WalCommits.Committed committed : WalCommits.of(command, outcome)) {
      CommitWal c = committed.commit();
      Outcome.WalCommitted wc = committed.outcome();
      if (wc.deduplicated()) {
        continue;
      }
      for (int i = 0; i < c.chunks().size(); i++) {
        boolean appended =
            wc.chunks().get(i).stream().anyMatch(r -> r.status() == Outcome.BatchStatus.APPENDED);
        if (appended) {
          CommitWal.ChunkCommit chunk = c.chunks().get(i);
          wakeAll(chunk.streamId(), chunk.partition());
        }
      }
    }
  }
}
