package dev.loam.client.internal;

import java.time.Duration;
import java.util.List;

/**
 * The client's plain settings, validated by {@code LoamClient.Builder}; every retry loop and wait
 * has a bound here (STYLE.md §9).
 *
 * @param bootstrap base URLs used to discover the cluster (and as a last resort)
 * @param zone the client's zone; empty for none
 * @param followRedirects follow 307 answers to the owner (else NotOwnerException)
 * @param maxRedirects hops followed per attempt
 * @param maxAttempts attempts per call, over different nodes where possible
 * @param retryBackoff first wait between attempts, doubled up to {@code maxRetryBackoff}
 * @param maxRetryBackoff the longest wait between attempts
 * @param connectTimeout TCP connect timeout
 * @param requestTimeout the answer's deadline (a fetch adds its long-poll wait)
 * @param refreshInterval how often the node list is refreshed while the client is used
 * @param nodeBackoff how long a node that failed is skipped
 * @param readYourWrites fetches carry the highest token the client saw from a produce
 */
public record Settings(
    List<String> bootstrap,
    String zone,
    boolean followRedirects,
    int maxRedirects,
    int maxAttempts,
    Duration retryBackoff,
    Duration maxRetryBackoff,
    Duration connectTimeout,
    Duration requestTimeout,
    Duration refreshInterval,
    Duration nodeBackoff,
    boolean readYourWrites) {

  public Settings {
    bootstrap = List.copyOf(bootstrap);
    if (bootstrap.isEmpty()) {
      throw new IllegalArgumentException("at least one bootstrap URL is needed");
    }
    if (maxRedirects < 0 || maxRedirects > 16) {
      throw new IllegalArgumentException("maxRedirects must be 0..16: " + maxRedirects);
    }
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new IllegalArgumentException("maxAttempts must be 1..100: " + maxAttempts);
    }
    for (Duration d :
        List.of(
            retryBackoff,
            maxRetryBackoff,
            connectTimeout,
            requestTimeout,
            refreshInterval,
            nodeBackoff)) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("durations must be positive: " + d);
      }
    }
  }
}
