package dev.loam.meta.command;

/**
 * Declares {@code nodeId} at {@code nodeEpoch} dead because it stopped renewing: applied only if
 * the metastore clock is at least {@code timeoutMillis} past its last renewal (the state machine
 * checks with its own clock, so a proposer with a stale view or a fast clock cannot kill a live
 * node early), else CONFLICT. Its streams are closed and transfers to it cancelled. Any live node
 * may propose it; a second proposal for the same death is an idempotent success.
 *
 * @param timeoutMillis at least {@link #MIN_TIMEOUT_MILLIS}
 */
public record ExpireNode(Origin origin, String nodeId, long nodeEpoch, long timeoutMillis)
    implements Command {
  /** The shortest liveness timeout accepted. */
  public static final long MIN_TIMEOUT_MILLIS = 1_000;
}
