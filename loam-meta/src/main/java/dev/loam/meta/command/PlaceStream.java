package dev.loam.meta.command;

/**
 * Places a stream that has no owner (never placed, or closed) on the live node with the lowest
 * ratio of assigned streams to slots, ties broken by node id: a pure function of the replicated
 * state. A stream that already has an owner is left as it is (a racing second placement is a
 * no-op).
 */
public record PlaceStream(Origin origin, long streamId) implements Command {}
