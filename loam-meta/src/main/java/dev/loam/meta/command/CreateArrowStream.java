package dev.loam.meta.command;

/**
 * Creates an arrow stream (docs/reference/arrow.md): a stream as {@link CreateStream} creates it,
 * whose appends are stored as Arrow IPC batches of a registered schema; {@code schemaJson} (Arrow's
 * schema JSON, validated by the proposing node, which has the Arrow library) becomes schema version
 * 1. Refused as CreateStream is, and INVALID for an empty or oversized schema text.
 */
public record CreateArrowStream(
    Origin origin, String namespace, String name, StreamConfig config, String schemaJson)
    implements Command {}
