package dev.loam.api;

import java.util.List;

/**
 * Records read from one partition in offset order, the offset to fetch next, and the partition's
 * bounds as this node saw them.
 */
public record FetchResult(
    List<FetchedRecord> records, long nextOffset, long highWatermark, long logStartOffset) {
  public FetchResult {
    records = List.copyOf(records);
  }
}
