package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * Removes the keys pending under claim {@code claimId}, after an append that definitely committed
 * nothing. Answered {@link Outcome.EventsRemoved}.
 */
public record ReleaseEvents(Origin origin, long streamId, long claimId, List<EventKey> keys)
    implements Command {
  public ReleaseEvents {
    Objects.requireNonNull(origin, "origin");
    keys = List.copyOf(keys);
  }
}
