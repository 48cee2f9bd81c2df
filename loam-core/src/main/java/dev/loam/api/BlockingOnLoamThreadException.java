package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * A Loam future's {@code join()} or {@code get()} was called on one of Loam's own threads (inside a
 * callback of another Loam future, or inside a simulation) before the future was done. The wait
 * could never end, since the future may need that thread to complete, so it is refused at once
 * instead of deadlocking the node. Compose instead ({@code thenCompose}, {@code thenAccept}), or
 * move the blocking call to a thread of the host ({@code thenAcceptAsync(fn, hostExecutor)}). Kind
 * INVALID: the call is wrong, not the node. Thrown by the waiting call itself; the future it waited
 * for is unaffected.
 */
public class BlockingOnLoamThreadException extends LoamException {
  private static final long serialVersionUID = 1L;

  public BlockingOnLoamThreadException(String message) {
    super(Kind.INVALID, message);
  }
}
