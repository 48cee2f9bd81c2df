package dev.loam.wal.batch;

import java.util.Arrays;
import java.util.Objects;

/**
 * One Kafka record header. The key is a non-null string (UTF-8 on the wire, decoded leniently like
 * Kafka); the value is nullable bytes. The array is not copied: callers must not mutate it after
 * construction.
 */
public record Header(String key, byte[] value) {
  /**
   * @throws NullPointerException if {@code key} is null
   */
  public Header {
    Objects.requireNonNull(key, "header key");
  }

  // Records compare arrays by identity; headers are values, so compare contents.
  @Override
  public boolean equals(Object o) {
    return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "Header[key=" + key + ", value=" + Bytes.describe(value) + "]";
  }
}
