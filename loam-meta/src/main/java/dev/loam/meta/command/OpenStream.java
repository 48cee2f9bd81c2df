package dev.loam.meta.command;

/**
 * The proposer opens a stream, bumping its stream epoch: allowed for the owner of a placed or open
 * stream (a restarted owner re-opens at its new node epoch), for the target of a pending transfer
 * (completing it), and for any node on a stream without an owner (a closed stream is revived by the
 * node that serves it). Opening a stream the proposer already holds open at its epoch is an
 * idempotent success. Otherwise NOT_OWNER naming the owner.
 */
public record OpenStream(Origin origin, long streamId) implements Command {}
