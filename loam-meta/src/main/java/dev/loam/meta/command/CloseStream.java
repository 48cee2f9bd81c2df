package dev.loam.meta.command;

/**
 * The owner closes a stream it holds open at {@code streamEpoch}; a stale epoch or a non-owner
 * NOT_OWNER. A closed stream has no owner: it is served locally and re-placed by the next open or
 * placement.
 */
public record CloseStream(Origin origin, long streamId, long streamEpoch) implements Command {}
