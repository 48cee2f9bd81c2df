package dev.loam.meta.command;

import java.util.Objects;

/**
 * An owner-bound command carrying the stream epoch its proposer opened the stream at: applied only
 * if the proposer still holds {@code streamId} open at exactly {@code streamEpoch} (refused
 * NOT_OWNER otherwise), then exactly as {@code inner}. The owner's background work (segmenter,
 * retention, compaction) and its admin changes travel in it, so a step decided under an earlier
 * opening can never land after a reopen or a transfer.
 *
 * @param inner an owner-bound command about {@code streamId}: {@link SwapSegment}, {@link
 *     TrimPartition}, {@link UpdateStreamConfig}, {@link AddPartitions}, {@link DeleteStream},
 *     {@link AcquireConsumerLease}, {@link CommitConsumerOffset}, or a group command about the
 *     group's coordinator stream ({@link AdvanceGroupGeneration}, {@link CommitGroupOffsets},
 *     {@link DeleteGroupOffsets})
 */
public record OwnerFenced(long streamId, long streamEpoch, Command inner) implements Command {
  public OwnerFenced {
    Objects.requireNonNull(inner, "inner");
    if (inner instanceof OwnerFenced) {
      throw new IllegalArgumentException("an OwnerFenced command cannot wrap another");
    }
  }

  @Override
  public Origin origin() {
    return inner.origin();
  }

  /** True for the command types that are owner-bound (DESIGN.md "The synthesis"). */
  public static boolean ownerBound(Command c) {
    return c instanceof SwapSegment
        || c instanceof TrimPartition
        || c instanceof UpdateStreamConfig
        || c instanceof AddPartitions
        || c instanceof DeleteStream
        || c instanceof AcquireConsumerLease
        || c instanceof CommitConsumerOffset
        || c instanceof AdvanceGroupGeneration
        || c instanceof CommitGroupOffsets
        || c instanceof DeleteGroupOffsets;
  }
}
