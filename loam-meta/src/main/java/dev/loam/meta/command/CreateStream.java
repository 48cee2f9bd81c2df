package dev.loam.meta.command;

/**
 * Creates a stream in an existing namespace with a fresh cluster-unique stream id; refused with
 * ALREADY_EXISTS when the name is taken, NOT_FOUND when the namespace is missing, INVALID for a bad
 * configuration.
 */
public record CreateStream(Origin origin, String namespace, String name, StreamConfig config)
    implements Command {}
