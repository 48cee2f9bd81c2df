package dev.loam.api;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One record to append. Without a partition, records with a key go to Kafka's default partition
 * (murmur2 of the key) and records without a key to a sticky partition that moves on after each
 * flush. Without a timestamp, the node's clock at append time is used.
 */
public record AppendRecord(
    byte[] key, byte[] value, List<Header> headers, OptionalLong timestamp, OptionalInt partition) {
  public AppendRecord {
    headers = List.copyOf(headers);
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(partition, "partition");
  }

  /** A record with a key and value, no headers, stamped at append time. */
  public static AppendRecord of(byte[] key, byte[] value) {
    return new AppendRecord(key, value, List.of(), OptionalLong.empty(), OptionalInt.empty());
  }

  /** A record with UTF-8 key (may be null) and value. */
  public static AppendRecord of(String key, String value) {
    return of(
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  /** This record sent to an explicit partition. */
  public AppendRecord toPartition(int p) {
    return new AppendRecord(key, value, headers, timestamp, OptionalInt.of(p));
  }

  /** This record with an explicit timestamp (ms since the epoch). */
  public AppendRecord withTimestamp(long millis) {
    return new AppendRecord(key, value, headers, OptionalLong.of(millis), partition);
  }

  /** This record with headers. */
  public AppendRecord withHeaders(List<Header> h) {
    return new AppendRecord(key, value, h, timestamp, partition);
  }
}
