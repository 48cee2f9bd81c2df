package dev.loam.client;

import java.util.List;

/**
 * The answer to a produce: each record's position in request order, the consistency token, and
 * whether an idempotent retry matched an earlier append (the positions are then the earlier ones).
 *
 * @param token pass it as {@code minToken} to read this write on any node; the client also
 *     remembers the highest token it saw (read-your-writes)
 */
public record ProduceResult(List<Position> positions, long token, boolean duplicate) {
  /** Where one record landed. */
  public record Position(int partition, long offset) {}
}
