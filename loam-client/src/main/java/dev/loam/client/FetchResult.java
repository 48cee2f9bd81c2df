package dev.loam.client;

import java.util.List;

/**
 * A fetch's records in offset order and where to continue: fetch again at {@link #nextOffset()}.
 */
public record FetchResult(
    List<FetchedRecord> records, long nextOffset, long highWatermark, long logStartOffset) {}
