package dev.loam.core.crypto;

import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KeyVersion;
import dev.loam.kms.KmsUnavailableException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Wraps a real {@link KeyManagementService} (the PKCS#12 one) with per-namespace faults and call
 * counts: a namespace can be made slow (its calls are delayed without holding the real service's
 * thread) or unavailable, as a throttled or unreachable KMS key would be.
 */
final class ControlledKms implements KeyManagementService {
  private final KeyManagementService real;
  final Map<String, Long> delayMillis = new ConcurrentHashMap<>();
  final Map<String, Boolean> unavailable = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> unwraps = new ConcurrentHashMap<>();

  ControlledKms(KeyManagementService real) {
    this.real = real;
  }

  int unwrapCount(String ns) {
    AtomicInteger n = unwraps.get(ns);
    return n == null ? 0 : n.get();
  }

  private <T> CompletableFuture<T> call(String ns, Supplier<CompletableFuture<T>> op) {
    if (unavailable.getOrDefault(ns, false)) {
      return CompletableFuture.failedFuture(
          new KmsUnavailableException("kms unavailable (injected) namespace=" + ns));
    }
    long d = delayMillis.getOrDefault(ns, 0L);
    if (d == 0) {
      return op.get();
    }
    return CompletableFuture.supplyAsync(
            () -> null, CompletableFuture.delayedExecutor(d, TimeUnit.MILLISECONDS))
        .thenCompose(x -> op.get());
  }

  @Override
  public CompletableFuture<KeyVersion> create(String ns) {
    return call(ns, () -> real.create(ns));
  }

  @Override
  public CompletableFuture<KeyVersion> current(String ns) {
    return call(ns, () -> real.current(ns));
  }

  @Override
  public CompletableFuture<byte[]> wrap(String ns, byte[] plaintext) {
    return call(ns, () -> real.wrap(ns, plaintext));
  }

  @Override
  public CompletableFuture<byte[]> unwrap(String ns, byte[] wrapped) {
    unwraps.computeIfAbsent(ns, k -> new AtomicInteger()).incrementAndGet();
    return call(ns, () -> real.unwrap(ns, wrapped));
  }

  @Override
  public CompletableFuture<KeyVersion> rotate(String ns) {
    return call(ns, () -> real.rotate(ns));
  }

  @Override
  public CompletableFuture<Void> destroy(String ns) {
    return call(ns, () -> real.destroy(ns));
  }

  @Override
  public void close() {
    real.close();
  }
}
