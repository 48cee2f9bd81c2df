package dev.loam.meta.command;

/**
 * Adds a schema version to an arrow stream. {@code expectedVersions} is the number of versions the
 * proposer saw when it checked that {@code schemaJson} is a valid evolution of the newest one
 * (node-side, docs/reference/arrow.md "Evolution"): the command applies only if the stream still
 * has exactly that many, so the check and the write are one atomic step (CONFLICT otherwise).
 * NOT_FOUND for a missing stream, INVALID for a stream without a schema or an empty or oversized
 * schema text.
 */
public record AddStreamSchema(
    Origin origin, String namespace, String name, int expectedVersions, String schemaJson)
    implements Command {}
