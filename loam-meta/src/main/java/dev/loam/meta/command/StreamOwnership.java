package dev.loam.meta.command;

/**
 * Who owns a stream (ownership-and-routing.txt): its state, its owner and the owner's node epoch,
 * the stream epoch (bumped by every open, so owner-bound work of an earlier opening is refused) and
 * a pending transfer target.
 *
 * @param owner the owning node in {@link State#PLACED} and {@link State#OPEN}, else null
 * @param ownerEpoch the owner's node epoch when it was placed or opened, else 0
 * @param streamEpoch 0 before the first open; only grows
 * @param transferTarget the node a pending transfer moves the stream to, or null
 */
public record StreamOwnership(
    long streamId,
    State state,
    String owner,
    long ownerEpoch,
    long streamEpoch,
    String transferTarget) {

  /** The ownership of a stream that was never placed. */
  public static StreamOwnership unplaced(long streamId) {
    return new StreamOwnership(streamId, State.UNPLACED, null, 0, 0, null);
  }

  /** True when a node owns the stream (placed or open). */
  public boolean owned() {
    return state == State.PLACED || state == State.OPEN;
  }

  /** The lifecycle of a stream's ownership; codes are stable wire values. */
  public enum State {
    /** Created, never placed: the first owner-bound need places it. */
    UNPLACED(0),
    /** Placed on {@code owner}, which has not opened it yet: requests route to the owner. */
    PLACED(1),
    /** Opened by {@code owner} at {@code streamEpoch}: the owner serves owner-bound requests. */
    OPEN(2),
    /** Closed by its owner or because its owner died or left: served locally, re-placed next. */
    CLOSED(3);

    private final int code;

    State(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    /** The state with this wire code, or null. */
    public static State ofCode(int code) {
      for (State s : values()) {
        if (s.code == code) {
          return s;
        }
      }
      return null;
    }
  }
}
