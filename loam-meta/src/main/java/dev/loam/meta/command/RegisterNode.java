package dev.loam.meta.command;

/**
 * Registers {@code origin.nodeId()} at {@code origin.nodeEpoch()} (ms wall clock at process start).
 * A lower epoch than the recorded one is refused; the same epoch again is an idempotent success; a
 * higher one replaces the record and fences every command of the earlier epoch.
 */
public record RegisterNode(Origin origin, String advertisedAddress, int slots, String zone)
    implements Command {}
