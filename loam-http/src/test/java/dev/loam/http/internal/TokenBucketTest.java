package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.http.IngestQuota;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final long SECOND = 1_000_000_000L;
  private final AtomicLong now = new AtomicLong(42 * SECOND);

  @Test
  void startsFullAndRefillsAtTheRateUpToTheBurst() {
    TokenBucket b = new TokenBucket(100, 1000, now::get);
    assertThat(b.tryAcquire(600)).isZero();
    assertThat(b.tryAcquire(400)).isZero();
    // Empty: 100 bytes take one second.
    assertThat(b.tryAcquire(100)).isEqualTo(SECOND);
    now.addAndGet(SECOND / 2);
    assertThat(b.tryAcquire(100)).isEqualTo(SECOND / 2);
    now.addAndGet(SECOND / 2);
    assertThat(b.tryAcquire(100)).isZero();
    // A long idle period refills only up to the burst.
    now.addAndGet(3600 * SECOND);
    assertThat(b.available()).isEqualTo(1000.0);
    assertThat(b.isFull()).isTrue();
    assertThat(b.tryAcquire(1000)).isZero();
    assertThat(b.tryAcquire(1)).isPositive();
  }

  @Test
  void aRefusedRequestTakesNothing() {
    TokenBucket b = new TokenBucket(100, 1000, now::get);
    assertThat(b.tryAcquire(900)).isZero();
    assertThat(b.tryAcquire(300)).isEqualTo(2 * SECOND);
    assertThat(b.tryAcquire(300)).isEqualTo(2 * SECOND);
    assertThat(b.available()).isEqualTo(100.0);
    assertThat(b.tryAcquire(100)).isZero();
  }

  @Test
  void aRequestAboveTheBurstIsAdmittedWhenFullAndLeavesDebt() {
    TokenBucket b = new TokenBucket(100, 1000, now::get);
    assertThat(b.tryAcquire(1)).isZero();
    // Needs a full bucket: 1 byte short, 10 ms at 100 B/s.
    assertThat(b.tryAcquire(5000)).isEqualTo(SECOND / 100);
    now.addAndGet(SECOND / 100);
    assertThat(b.tryAcquire(5000)).isZero();
    assertThat(b.available()).isEqualTo(-4000.0);
    // The debt is paid back at the rate: 4000 + 1 bytes take 40.01 s.
    assertThat(b.tryAcquire(1)).isEqualTo(40 * SECOND + SECOND / 100);
  }

  @Test
  void aClockThatDoesNotMoveOrGoesBackRefillsNothing() {
    TokenBucket b = new TokenBucket(100, 1000, now::get);
    assertThat(b.tryAcquire(1000)).isZero();
    now.addAndGet(-SECOND);
    assertThat(b.available()).isEqualTo(0.0);
    assertThatThrownBy(() -> new TokenBucket(0, 1, now::get))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void quotasAreKeptPerNamespaceWithOverridesAndA429RoundedUp() {
    IngestQuotas q =
        new IngestQuotas(
            IngestQuota.of(100, 1000),
            Map.of("vip", IngestQuota.unlimited(), "small", IngestQuota.of(10, 10)),
            now::get);
    q.charge("a", 1000);
    ApiException e = catchQuota(() -> q.charge("a", 150));
    assertThat(e.status().code()).isEqualTo(429);
    assertThat(e.code()).isEqualTo("quota_exceeded");
    assertThat(e.extra())
        .containsEntry("namespace", "a")
        .containsEntry("limit_bytes_per_sec", 100L)
        .containsEntry("burst_bytes", 1000L)
        .containsEntry("retry_after_seconds", 2L);
    assertThat(e.getMessage()).contains("namespace=a", "limitBytesPerSec=100");
    HttpReply r = Errors.toReply(e);
    assertThat(r.headers()).containsEntry("Retry-After", "2");
    assertThat(new String(r.body(), StandardCharsets.UTF_8))
        .contains("\"code\":\"quota_exceeded\"", "\"namespace\":\"a\"");
    // Other namespaces have their own bucket; an unlimited override is never refused.
    q.charge("b", 1000);
    for (int i = 0; i < 100; i++) {
      q.charge("vip", 1 << 20);
    }
    assertThat(q.buckets()).isEqualTo(2);
    q.charge("small", 10);
    // A wait below one second is still answered Retry-After: 1.
    assertThat(catchQuota(() -> q.charge("small", 1)).extra())
        .containsEntry("retry_after_seconds", 1L);
    now.addAndGet(SECOND / 10);
    q.charge("small", 1);
  }

  @Test
  void unlimitedQuotasKeepNoBuckets() {
    IngestQuotas q = IngestQuotas.unlimited();
    q.charge("a", Long.MAX_VALUE / 2);
    assertThat(q.buckets()).isZero();
    assertThatThrownBy(() -> IngestQuota.of(-1)).hasMessageContaining("bytesPerSecond=-1");
    assertThatThrownBy(() -> IngestQuota.of(10, 0)).hasMessageContaining("burstBytes=0");
  }

  private static ApiException catchQuota(Runnable r) {
    try {
      r.run();
    } catch (ApiException e) {
      return e;
    }
    throw new AssertionError("expected a 429");
  }
}
