package dev.loam.api;

/**
 * A change to a stream's retention and cleanup policy for {@link Log#updateStream}: each field is
 * optional, {@code null} keeping the current value, and the change of the fields given is atomic.
 * Retention values are {@code -1} (unlimited) or positive. The partition count grows only by {@link
 * Log#addPartitions}; the durability class never changes.
 */
public record StreamUpdate(Long retentionMillis, Long retentionBytes, Boolean compacted) {

  /** An update that changes nothing yet; refused as INVALID if sent as it is. */
  public static StreamUpdate none() {
    return new StreamUpdate(null, null, null);
  }

  /** This update with a new time retention ({@code -1}: unlimited). */
  public StreamUpdate withRetentionMillis(long millis) {
    return new StreamUpdate(millis, retentionBytes, compacted);
  }

  /** This update with a new size retention per partition ({@code -1}: unlimited). */
  public StreamUpdate withRetentionBytes(long bytes) {
    return new StreamUpdate(retentionMillis, bytes, compacted);
  }

  /** This update with a new cleanup policy: compact when true, delete when false. */
  public StreamUpdate withCompacted(boolean compact) {
    return new StreamUpdate(retentionMillis, retentionBytes, compact);
  }

  /** True when no field is set. */
  public boolean isEmpty() {
    return retentionMillis == null && retentionBytes == null && compacted == null;
  }
}
