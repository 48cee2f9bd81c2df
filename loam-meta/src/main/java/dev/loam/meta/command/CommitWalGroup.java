package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * Commits several WAL objects of one node in one log entry (one proposal, one fsync, one fate).
 * Applied member by member, in order, exactly as each {@link CommitWal} would be applied at that
 * point: dedupe by object key, the stale-commit window against the member's own object time, the
 * structure checks and the sequencer. The node checks run once, on the group's origin. A group with
 * no member, more than {@link #MAX_MEMBERS}, or one object key twice is refused {@code INVALID}
 * before any member is applied (docs/formats/metastore-commands.md).
 *
 * @param members the objects, oldest first; each carries the group's origin
 */
public record CommitWalGroup(Origin origin, List<CommitWal> members) implements Command {
  /** The most members the state machine accepts: the most objects one writer has in flight. */
  public static final int MAX_MEMBERS = 64;

  public CommitWalGroup {
    Objects.requireNonNull(origin, "origin");
    members = List.copyOf(members);
    for (CommitWal m : members) {
      if (!origin.equals(m.origin())) {
        throw new IllegalArgumentException(
            "a group member carries the group's origin object="
                + m.objectKey()
                + " origin="
                + m.origin()
                + " groupOrigin="
                + origin);
      }
    }
  }
}
