package dev.loam.http.internal;

import dev.loam.error.LoamException.Kind;
import dev.loam.http.IngestQuota;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The per-namespace ingest-bytes quotas of one HTTP server (node-local, not cluster-wide): one
 * {@link TokenBucket} per namespace, created on its first produce, with the default quota or the
 * namespace's override.
 */
public final class IngestQuotas {
  /** Above this many buckets, full ones (equivalent to new ones) are dropped. */
  static final int SWEEP_ABOVE = 4096;

  private final IngestQuota defaultQuota;
  private final Map<String, IngestQuota> overrides;
  private final LongSupplier nanoClock;
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();

  public IngestQuotas(
      IngestQuota defaultQuota, Map<String, IngestQuota> overrides, LongSupplier nanoClock) {
    this.defaultQuota = defaultQuota;
    this.overrides = Map.copyOf(overrides);
    this.nanoClock = nanoClock;
  }

  /** No quota anywhere. */
  public static IngestQuotas unlimited() {
    return new IngestQuotas(IngestQuota.unlimited(), Map.of(), System::nanoTime);
  }

  /** The quota of a namespace. */
  public IngestQuota quotaOf(String namespace) {
    return overrides.getOrDefault(namespace, defaultQuota);
  }

  /**
   * Charges a produce of {@code bytes} to its namespace, or throws 429 {@code quota_exceeded} with
   * the seconds to wait (rounded up, at least 1); nothing is charged then.
   */
  public void charge(String namespace, long bytes) {
    IngestQuota q = quotaOf(namespace);
    if (q.isUnlimited()) {
      return;
    }
    TokenBucket b = buckets.get(namespace);
    if (b == null) {
      if (buckets.size() >= SWEEP_ABOVE) {
        buckets.values().removeIf(TokenBucket::isFull);
      }
      b =
          buckets.computeIfAbsent(
              namespace, k -> new TokenBucket(q.bytesPerSecond(), q.burstBytes(), nanoClock));
    }
    long waitNanos = b.tryAcquire(bytes);
    if (waitNanos == 0) {
      return;
    }
    long seconds = Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("namespace", namespace);
    extra.put("limit_bytes_per_sec", q.bytesPerSecond());
    extra.put("burst_bytes", q.burstBytes());
    extra.put("request_bytes", bytes);
    extra.put(Errors.RETRY_AFTER_MEMBER, seconds);
    throw new ApiException(
        HttpResponseStatus.TOO_MANY_REQUESTS,
        "quota_exceeded",
        Kind.UNAVAILABLE,
        "ingest quota exceeded (per node) namespace="
            + namespace
            + " limitBytesPerSec="
            + q.bytesPerSecond()
            + " burstBytes="
            + q.burstBytes()
            + " requestBytes="
            + bytes
            + " retryAfterSeconds="
            + seconds,
        extra);
  }

  /** Buckets currently held (for tests). */
  int buckets() {
    return buckets.size();
  }
}
