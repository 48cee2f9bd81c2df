package dev.loam.api;

/**
 * This node coordinates a Kafka consumer group (docs/design/consumer-groups.md): it holds the
 * group's coordinator stream open at {@code coordinatorEpoch}. Every group write is proposed with
 * that epoch, so once another node takes the group over (or this node reopens it), writes made
 * under this coordination are refused.
 *
 * @param coordinatorStreamId the group's coordinator stream
 * @param generation the generation stored when the coordination was acquired (0: none yet)
 */
public record GroupCoordination(
    String namespace,
    String group,
    long coordinatorStreamId,
    long coordinatorEpoch,
    int generation) {}
