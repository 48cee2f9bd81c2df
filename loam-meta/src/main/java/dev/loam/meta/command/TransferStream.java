package dev.loam.meta.command;

/**
 * The owner of a stream open at {@code streamEpoch} hands it to {@code targetNodeId}, a live node:
 * the transfer is pending (requests route to the target) until the target opens the stream, which
 * bumps the epoch and fences the old owner. A transfer to the current target is idempotent.
 */
public record TransferStream(Origin origin, long streamId, long streamEpoch, String targetNodeId)
    implements Command {}
