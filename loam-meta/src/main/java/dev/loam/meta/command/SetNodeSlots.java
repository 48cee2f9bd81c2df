package dev.loam.meta.command;

/**
 * Changes a registered node's slots (its capacity weight for placement) at runtime. Only future
 * placements move; nothing already placed moves. 0 takes the node out of placement. A later
 * registration of the node (a process restart) sets the slots it registers with.
 */
public record SetNodeSlots(Origin origin, String nodeId, int slots) implements Command {
  /** The largest slot count. */
  public static final int MAX_SLOTS = 1 << 20;
}
