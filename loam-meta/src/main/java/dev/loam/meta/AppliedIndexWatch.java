package dev.loam.meta;

import dev.loam.error.LoamException;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The applied-index half of a {@link Metastore} that every implementation shares: the index of the
 * last command applied on the replica, the {@link Metastore#awaitApplied} futures waiting for a
 * later one, and the {@link ApplyListener}s told of each apply.
 *
 * <p>This class never completes a future itself: {@link #advance} and {@link #drain} hand the
 * futures back, so that each metastore completes them where it must (after its locks are released,
 * or on an executor, off the apply thread, so a caller's continuation cannot stall apply).
 *
 * <p>Thread-safe. The waiters and the index are guarded by this object's monitor. A metastore that
 * must make a refusal (closing, a fatal failure) atomic with {@link #await}'s check holds the same
 * monitor while it records it; then no future registers after the refusal and escapes {@link
 * #drain}.
 */
public final class AppliedIndexWatch {
  /** Futures by the index they wait for; guarded by {@code this}. */
  private final TreeMap<Long, List<CompletableFuture<Void>>> waiters = new TreeMap<>();

  private final CopyOnWriteArrayList<ApplyListener> listeners = new CopyOnWriteArrayList<>();

  /** Written under {@code this}; read without it by {@link #appliedIndex()}. */
  private volatile long appliedIndex;

  /** A watch whose replica has applied up to {@code appliedIndex} (0 for an empty state). */
  public AppliedIndexWatch(long appliedIndex) {
    this.appliedIndex = appliedIndex;
  }

  /** The index of the last command applied. */
  public long appliedIndex() {
    return appliedIndex;
  }

  /**
   * A future completing once {@code index} is applied: completed at once if it already is; else
   * failed at once with {@code refusal}'s exception if it gives one (the metastore is closed or
   * failed); else pending until {@link #advance} reaches {@code index} or {@link #drain} hands it
   * back to be failed. {@code refusal} is asked under this object's monitor.
   */
  public synchronized CompletableFuture<Void> await(long index, Supplier<LoamException> refusal) {
    if (appliedIndex >= index) {
      return CompletableFuture.completedFuture(null);
    }
    LoamException refused = refusal.get();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    waiters.computeIfAbsent(index, k -> new ArrayList<>()).add(f);
    return f;
  }

  /**
   * Records that everything up to {@code index} is applied and returns the futures that this
   * satisfies, removed from the watch, for the caller to complete. An index not above the current
   * one changes nothing and returns none.
   */
  public synchronized List<CompletableFuture<Void>> advance(long index) {
    if (index <= appliedIndex) {
      return List.of();
    }
    appliedIndex = index;
    if (waiters.isEmpty()) {
      return List.of();
    }
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    Map<Long, List<CompletableFuture<Void>>> head = waiters.headMap(index, true);
    head.values().forEach(ready::addAll);
    head.clear();
    return ready;
  }

  /** Removes and returns every pending future, for the caller to fail (on close or failure). */
  public synchronized List<CompletableFuture<Void>> drain() {
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    waiters.values().forEach(pending::addAll);
    waiters.clear();
    return pending;
  }

  /** Adds a listener told of every later apply. */
  public void addListener(ApplyListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Tells every listener, in the order they were added, of one apply. A listener that throws is
   * handed to {@code onFailure} with its exception; if {@code onFailure} returns, the remaining
   * listeners are still told.
   */
  public void notifyApplied(
      long index,
      Command command,
      Outcome outcome,
      BiConsumer<ApplyListener, RuntimeException> onFailure) {
    for (ApplyListener l : listeners) {
      try {
        l.onApplied(index, command, outcome);
      } catch (RuntimeException e) {
        onFailure.accept(l, e);
      }
    }
  }
}
