package dev.loam.meta.command;

/**
 * Hands out {@code count} fresh producer ids (stream-engine.txt §7 idempotent producers): the ids
 * {@code [first, first + count)} of a counter that only grows, so no id is handed out twice, also
 * across snapshots and leader changes. A retry after an unknown outcome may waste a range, never
 * reuse one. {@code count} is 1..{@link #MAX_COUNT}.
 */
public record AllocateProducerIds(Origin origin, int count) implements Command {
  /** The largest range one command may take: a bound on what one apply hands out. */
  public static final int MAX_COUNT = 1000;
}
