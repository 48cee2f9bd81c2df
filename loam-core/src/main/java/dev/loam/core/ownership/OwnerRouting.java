package dev.loam.core.ownership;

import dev.loam.meta.MetaReader;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.StreamOwnership.State;

/**
 * The routing rules of ownership-and-routing.txt as a pure function of a node's local (possibly
 * stale) view: what this node does with an owner-bound request for a stream. Correctness never
 * depends on it (the metastore fences every owner-bound command); a stale view costs a redirect.
 */
final class OwnerRouting {
  private OwnerRouting() {}

  /** What to do. */
  enum Action {
    /** This node holds the stream open at its epoch: serve it. */
    SERVE,
    /**
     * Open it here, then serve: placed on this node, the target of a pending transfer, held at an
     * older epoch of this node, or closed (a closed stream is served locally and revived).
     */
    OPEN,
    /** Never placed: place it (the placement function picks the owner), then route again. */
    PLACE,
    /** Another node owns it, or is the target of its pending transfer: redirect there. */
    REDIRECT
  }

  /** The action and, for REDIRECT, the node to redirect to. */
  record Decision(Action action, String target) {}

  static Decision decide(MetaReader r, String nodeId, long nodeEpoch, long streamId) {
    StreamOwnership o = r.ownership(streamId).orElse(StreamOwnership.unplaced(streamId));
    if (o.transferTarget() != null) {
      return nodeId.equals(o.transferTarget())
          ? new Decision(Action.OPEN, null)
          : new Decision(Action.REDIRECT, o.transferTarget());
    }
    if (o.owned()) {
      if (!nodeId.equals(o.owner())) {
        return new Decision(Action.REDIRECT, o.owner());
      }
      return o.state() == State.OPEN && o.ownerEpoch() == nodeEpoch
          ? new Decision(Action.SERVE, null)
          : new Decision(Action.OPEN, null);
    }
    return o.state() == State.CLOSED
        ? new Decision(Action.OPEN, null)
        : new Decision(Action.PLACE, null);
  }
}
