package dev.loam.client;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One record to produce. Keys, values and header values are raw bytes (the client sends them
 * base64, so any bytes round-trip); a null value is a tombstone.
 *
 * @param timestamp ms since the epoch; empty for the node's clock
 * @param partition empty for murmur2 of the key (or a sticky partition without a key)
 */
public record ProduceRecord(
    byte[] key, byte[] value, List<Header> headers, OptionalLong timestamp, OptionalInt partition) {
  public ProduceRecord {
    headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(partition, "partition");
  }

  /** A record with UTF-8 key and value (either may be null). */
  public static ProduceRecord of(String key, String value) {
    return new ProduceRecord(
        utf8(key), utf8(value), List.of(), OptionalLong.empty(), OptionalInt.empty());
  }

  public static ProduceRecord of(byte[] key, byte[] value) {
    return new ProduceRecord(key, value, List.of(), OptionalLong.empty(), OptionalInt.empty());
  }

  public ProduceRecord withHeaders(List<Header> h) {
    return new ProduceRecord(key, value, h, timestamp, partition);
  }

  public ProduceRecord withTimestamp(long millis) {
    return new ProduceRecord(key, value, headers, OptionalLong.of(millis), partition);
  }

  public ProduceRecord withPartition(int p) {
    return new ProduceRecord(key, value, headers, timestamp, OptionalInt.of(p));
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }
}
