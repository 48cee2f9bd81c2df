package dev.loam.client;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * How a fetch waits and how much it reads (docs/reference/http-api.md "Fetch").
 *
 * @param maxBytes about this many bytes of batches (at least one batch); 0 for the server default
 *     (1 MiB)
 * @param maxWait at the high watermark, wait up to this long for records (long-poll); at most the
 *     server's {@code maxFetchWait} (30 s by default), else the server answers 400
 * @param minToken the node first applies this consistency token; empty means the client's session
 *     token (the highest it saw from a produce), so a client reads its own writes on any node
 */
public record FetchOptions(int maxBytes, Duration maxWait, OptionalLong minToken) {
  public FetchOptions {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must be >= 0: " + maxBytes);
    }
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
    }
  }

  /** No wait, the server's default size, the session token. */
  public static FetchOptions defaults() {
    return new FetchOptions(0, Duration.ZERO, OptionalLong.empty());
  }

  public FetchOptions withMaxBytes(int n) {
    return new FetchOptions(n, maxWait, minToken);
  }

  public FetchOptions withMaxWait(Duration d) {
    return new FetchOptions(maxBytes, d, minToken);
  }

  public FetchOptions withMinToken(long token) {
    return new FetchOptions(maxBytes, maxWait, OptionalLong.of(token));
  }
}
