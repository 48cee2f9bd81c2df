package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * Commits a Kafka consumer group's offsets: every partition of one OffsetCommit request, applied
 * all or nothing (docs/design/consumer-groups.md). Owner-bound on the group's coordinator stream.
 * Refused {@code FENCED} unless {@code generation} is the stored generation, or -1 (the commit of a
 * group without members, which only the coordinator can vouch for); {@code NOT_FOUND} for a
 * partition that does not exist.
 */
public record CommitGroupOffsets(
    Origin origin,
    long coordinatorStreamId,
    String namespace,
    String group,
    int generation,
    List<GroupOffset> offsets)
    implements Command {
  /** The generation of a commit made without group membership. */
  public static final int NO_GENERATION = -1;

  public CommitGroupOffsets {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(group, "group");
    offsets = List.copyOf(offsets);
  }
}
