package dev.loam.api;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** A record read back from a partition, with its offset and timestamp. */
public record FetchedRecord(
    int partition, long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
  public FetchedRecord {
    headers = List.copyOf(headers);
  }

  /** The value as UTF-8 text, or null. */
  public String valueAsString() {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  /** The key as UTF-8 text, or null. */
  public String keyAsString() {
    return key == null ? null : new String(key, StandardCharsets.UTF_8);
  }
}
