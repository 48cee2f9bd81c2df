package dev.loam.meta.command;

import java.util.Objects;

/**
 * Records that a Kafka consumer group completed a rebalance at {@code generation}
 * (docs/design/consumer-groups.md). Owner-bound on the group's coordinator stream. Applied only if
 * {@code generation} is above the stored one ({@code FENCED} otherwise), so a new coordinator's
 * generations stay above every earlier coordinator's and their members' commits stay refused.
 * Creates the group's record if it has none.
 */
public record AdvanceGroupGeneration(
    Origin origin, long coordinatorStreamId, String namespace, String group, int generation)
    implements Command {
  public AdvanceGroupGeneration {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(group, "group");
  }
}
