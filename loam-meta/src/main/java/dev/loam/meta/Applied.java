package dev.loam.meta;

import dev.loam.meta.command.Outcome;

/**
 * A proposal's result: the log index it was applied at (a consistency token) and its outcome. A
 * command refused before logging (FUTURE_STAMP) reports the replica's applied index at the time.
 */
public record Applied(long index, Outcome outcome) {}
