package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * Claims CloudEvents idempotency keys of one stream for the proposing node, pending for {@code
 * pendingMillis} (docs/formats/metastore-commands.md "The CloudEvents dedupe ledger"). Answered
 * {@link Outcome.EventsClaimed}: per key CLAIMED, DUPLICATE (done: the first write's partition and
 * offset) or IN_FLIGHT (pending under another claim).
 */
public record ClaimEvents(Origin origin, long streamId, long pendingMillis, List<EventKey> keys)
    implements Command {
  public ClaimEvents {
    Objects.requireNonNull(origin, "origin");
    keys = List.copyOf(keys);
  }
}
