package dev.loam.http;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;

/**
 * A namespace's ingest-bytes quota on the produce route (docs/reference/http-api.md "Ingest
 * quota"): a token bucket refilled at {@code bytesPerSecond} that holds at most {@code burstBytes}.
 * A produce is charged the bytes of its records (keys, values, header names and values, after
 * decoding).
 *
 * <p>The quota is enforced by each HTTP server on its own: it is per node, not cluster-wide. A
 * namespace served by three nodes can ingest up to three times its quota.
 *
 * @param bytesPerSecond the refill rate; 0 means unlimited
 * @param burstBytes the bucket's capacity (ignored when unlimited)
 */
public record IngestQuota(long bytesPerSecond, long burstBytes) {
  private static final IngestQuota UNLIMITED = new IngestQuota(0, 0);

  public IngestQuota {
    if (bytesPerSecond < 0 || (bytesPerSecond > 0 && burstBytes < 1)) {
      throw new LoamException(
          Kind.INVALID,
          "invalid ingest quota bytesPerSecond="
              + bytesPerSecond
              + " burstBytes="
              + burstBytes
              + " (bytesPerSecond >= 0, 0 for unlimited; burstBytes >= 1)");
    }
  }

  /** No limit (the default). */
  public static IngestQuota unlimited() {
    return UNLIMITED;
  }

  /** {@code bytesPerSecond} with a burst of one second's worth. */
  public static IngestQuota of(long bytesPerSecond) {
    return new IngestQuota(bytesPerSecond, bytesPerSecond);
  }

  /** {@code bytesPerSecond} with a bucket of {@code burstBytes}. */
  public static IngestQuota of(long bytesPerSecond, long burstBytes) {
    return new IngestQuota(bytesPerSecond, burstBytes);
  }

  /** Whether this quota limits nothing. */
  public boolean isUnlimited() {
    return bytesPerSecond == 0;
  }
}
