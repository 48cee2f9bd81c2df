package dev.loam.client;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** A record read back: its offset and timestamp, key, value and headers as raw bytes. */
public record FetchedRecord(
    long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
  /** The key as UTF-8 text (null for a null key). */
  public String keyAsString() {
    return key == null ? null : new String(key, StandardCharsets.UTF_8);
  }

  /** The value as UTF-8 text (null for a tombstone). */
  public String valueAsString() {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }
}
