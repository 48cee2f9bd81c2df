package dev.loam.meta.command;

import java.util.Objects;

/**
 * Removes up to {@code maxEntries} expired ledger entries, oldest expiry first (then stream id,
 * then key), so every replica removes the same ones. Answered {@link Outcome.EventsRemoved}.
 */
public record PruneEvents(Origin origin, int maxEntries) implements Command {
  public PruneEvents {
    Objects.requireNonNull(origin, "origin");
  }
}
