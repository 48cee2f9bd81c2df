package dev.loam.wal.batch;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record to encode with {@link RecordBatchEncoder}: timestamp, nullable key and value, and
 * headers. Arrays are not copied: callers must not mutate them until encoding returns.
 */
public record RecordData(long timestamp, byte[] key, byte[] value, List<Header> headers) {
  /**
   * A null {@code headers} means no headers.
   *
   * @throws NullPointerException if {@code headers} contains null
   */
  public RecordData {
    headers = headers == null ? List.of() : List.copyOf(headers);
  }

  /** A record without headers. */
  public static RecordData of(long timestamp, byte[] key, byte[] value) {
    return new RecordData(timestamp, key, value, List.of());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordData r
        && timestamp == r.timestamp
        && Arrays.equals(key, r.key)
        && Arrays.equals(value, r.value)
        && headers.equals(r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
  }

  @Override
  public String toString() {
    return "RecordData[timestamp="
        + timestamp
        + ", key="
        + Bytes.describe(key)
        + ", value="
        + Bytes.describe(value)
        + ", headers="
        + headers
        + "]";
  }
}
