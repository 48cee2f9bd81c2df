package dev.loam.wal.batch;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record decoded from a {@link RecordBatch}: absolute offset and timestamp, nullable key and
 * value (fresh arrays owned by the caller), and headers.
 */
public record Record(long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
  /**
   * A null {@code headers} means no headers.
   *
   * @throws NullPointerException if {@code headers} contains null
   */
  public Record {
    headers = headers == null ? List.of() : List.copyOf(headers);
  }

  /** The same content as input to the encoder (drops the offset). */
  public RecordData toData() {
    return new RecordData(timestamp, key, value, headers);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Record r
        && offset == r.offset
        && timestamp == r.timestamp
        && Arrays.equals(key, r.key)
        && Arrays.equals(value, r.value)
        && headers.equals(r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(offset, timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
  }

  @Override
  public String toString() {
    return "Record[offset="
        + offset
        + ", timestamp="
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
