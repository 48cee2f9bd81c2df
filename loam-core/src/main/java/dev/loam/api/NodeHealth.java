package dev.loam.api;

import java.util.List;
import java.util.Objects;

/**
 * Whether a node can serve now, and if not, why (docs/operations/running-a-cluster.md "Health"): a
 * momentary view from {@link LoamNode#health()}, cheap to take (it sends nothing) and the one
 * signal every listener of the node (HTTP readiness, the Kafka gateway, a host's own checks)
 * answers from.
 *
 * <p>A node is ready when no check fails. The checks, in the order their reasons are listed:
 *
 * <ul>
 *   <li>{@value #STOPPING}: {@link LoamNode#close()} has begun;
 *   <li>{@value #METASTORE}: the metastore cannot commit (closed, stopped after a failure, or no
 *       majority reachable as far as this replica knows, see {@code Metastore.unavailableReason});
 *   <li>{@value #STORE}: the most recent call to an object store failed as unreachable (UNAVAILABLE
 *       or OUTCOME_UNKNOWN) less than {@link #STORE_FAILURE_HOLD_MILLIS} ms ago, with no successful
 *       call since.
 * </ul>
 *
 * @param ready true exactly when {@code reasons} is empty
 * @param reasons one entry per failing check
 */
public record NodeHealth(boolean ready, List<Reason> reasons) {
  /** The check that fails while the node is closing. */
  public static final String STOPPING = "stopping";

  /** The check that fails while the metastore cannot commit. */
  public static final String METASTORE = "metastore";

  /** The check that fails while the object store is unreachable. */
  public static final String STORE = "store";

  /**
   * How long one unreachable-store failure keeps the node unready when no other store call follows
   * it (any successful call clears it at once): 30 s, so a node whose maintenance lists the store
   * every few seconds reports a store outage for as long as it lasts, and an idle node does not
   * stay unready forever on one old failure.
   */
  public static final long STORE_FAILURE_HOLD_MILLIS = 30_000;

  /**
   * One failing check.
   *
   * @param check {@value #STOPPING}, {@value #METASTORE} or {@value #STORE}
   * @param detail what was found, ending with identifiers as {@code key=value}
   */
  public record Reason(String check, String detail) {
    public Reason {
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(detail, "detail");
    }
  }

  public NodeHealth {
    reasons = List.copyOf(reasons);
    if (ready != reasons.isEmpty()) {
      throw new IllegalArgumentException("ready must be true exactly when there is no reason");
    }
  }

  /** The health with these reasons (ready when there are none). */
  public static NodeHealth of(List<Reason> reasons) {
    return new NodeHealth(reasons.isEmpty(), reasons);
  }
}
