package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * Marks keys pending under claim {@code claimId} done with their offsets, kept for {@code
 * windowMillis}. Keys no longer pending under that claim are left alone and counted as not held.
 * Answered {@link Outcome.EventsCompleted}.
 */
public record CompleteEvents(
    Origin origin, long streamId, long claimId, long windowMillis, List<CompletedEvent> events)
    implements Command {
  public CompleteEvents {
    Objects.requireNonNull(origin, "origin");
    events = List.copyOf(events);
  }
}
