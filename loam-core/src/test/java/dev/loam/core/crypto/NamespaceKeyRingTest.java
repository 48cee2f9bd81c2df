package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.core.runtime.SystemDrivers;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.object.KeyEncryptionKey;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key handling in the node on the real PKCS#12 KMS and the in-memory store: keys created, found,
 * fetched once per ttl, rotated, and a slow, unavailable or destroyed KMS key failing only its
 * namespace with a typed error.
 */
class NamespaceKeyRingTest {
  static final Duration TTL = Duration.ofHours(1);

  @TempDir Path dir;
  final AtomicLong now = new AtomicLong(1_760_000_000_000L);
  final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
  InMemoryObjectStore store;
  ControlledKms kms;

  @BeforeEach
  void setUp() {
    store = new InMemoryObjectStore(clock);
    kms =
        new ControlledKms(new Pkcs12KeyManagementService(dir.resolve("k.p12"), "pw".toCharArray()));
  }

  @AfterEach
  void tearDown() {
    kms.close();
  }

  NamespaceKeyRing ring() {
    return new NamespaceKeyRing(
        store, kms, "cluster-1", clock, TTL, Duration.ofMillis(2500), SystemDrivers.secureRandom());
  }

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(10, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
        c = c.getCause();
      }
      return c;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aNamespaceWithoutKeyHasNoCurrentKey() throws Exception {
    assertThat(await(ring().currentKey("plain"))).isEmpty();
  }

  @Test
  void anAddedKeyIsStoredWrappedAndEveryNodeFindsTheSameKey() throws Exception {
    NamespaceKeyRing a = ring();
    KeyEncryptionKey k = await(a.addKey("secret"));
    assertThat(k.id()).startsWith("secret/");
    List<String> keys =
        await(store.list("ns/cluster-1/secret/keys/", "", 10)).objects().stream()
            .map(o -> o.key())
            .toList();
    assertThat(keys)
        .containsExactly(
            "ns/cluster-1/secret/keys/" + k.id().substring("secret/".length()) + ".key");
    // Another node: lists, fetches, unwraps; the same key opens what the first one sealed.
    NamespaceKeyRing b = ring();
    Optional<KeyEncryptionKey> found = await(b.currentKey("secret"));
    assertThat(found).map(KeyEncryptionKey::id).contains(k.id());
    assertThat(SealedRoundTrip.opens(k, found.get())).isTrue();
  }

  @Test
  void theKmsIsAskedOncePerKeyAndTtl() throws Exception {
    String id = await(ring().addKey("secret")).id();
    NamespaceKeyRing b = ring();
    for (int i = 0; i < 50; i++) {
      b.resolve(id);
    }
    assertThat(kms.unwrapCount("secret")).isEqualTo(1);
    now.addAndGet(TTL.toMillis() - 1);
    b.resolve(id);
    assertThat(kms.unwrapCount("secret")).isEqualTo(1);
    now.addAndGet(2);
    b.resolve(id);
    assertThat(kms.unwrapCount("secret")).isEqualTo(2);
  }

  @Test
  void rotationStartsANewKeyAndKeepsTheOldOne() throws Exception {
    NamespaceKeyRing a = ring();
    KeyEncryptionKey first = await(a.addKey("secret"));
    now.addAndGet(1000);
    KeyEncryptionKey second = await(a.addKey("secret"));
    assertThat(second.id()).isNotEqualTo(first.id());
    assertThat(await(a.currentKey("secret"))).map(KeyEncryptionKey::id).contains(second.id());
    NamespaceKeyRing b = ring();
    assertThat(await(b.currentKey("secret"))).map(KeyEncryptionKey::id).contains(second.id());
    assertThat(SealedRoundTrip.opens(first, b.resolve(first.id()))).isTrue();
  }

  @Test
  void aSlowKmsKeyFailsItsNamespaceInTimeAndDoesNotHoldUpOthers() throws Exception {
    String slowId = await(ring().addKey("slow")).id();
    String fastId = await(ring().addKey("fast")).id();
    NamespaceKeyRing b = ring();
    kms.delayMillis.put("slow", 8_000L);
    long t0 = System.nanoTime();
    CompletableFuture<KeyEncryptionKey> slow = b.resolveAsync(slowId);
    KeyEncryptionKey fast = await(b.resolveAsync(fastId));
    long fastMillis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(fast.id()).isEqualTo(fastId);
    assertThat(fastMillis).as("fast namespace waited for the slow one").isLessThan(1_500);
    Throwable e = failure(slow);
    long slowMillis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(e).isInstanceOf(LoamException.class);
    assertThat(((LoamException) e).kind()).isEqualTo(LoamException.Kind.UNAVAILABLE);
    assertThat(e.getMessage())
        .contains("kms did not answer within 2500 ms")
        .contains("namespace=slow");
    assertThat(slowMillis).isBetween(2_400L, 6_000L);
    // Not cached: once the KMS answers again, the key resolves.
    kms.delayMillis.remove("slow");
    assertThat(b.resolve(slowId).id()).isEqualTo(slowId);
  }

  @Test
  void anUnavailableKmsFailsAddingAndFetchingKeysOfThatNamespaceOnly() throws Exception {
    String id = await(ring().addKey("secret")).id();
    kms.unavailable.put("secret", true);
    NamespaceKeyRing b = ring();
    assertThatThrownBy(() -> b.resolve(id))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("namespace key unavailable")
        .hasMessageContaining("namespace=secret")
        .matches(t -> ((LoamException) t).isRetriable());
    Throwable add = failure(b.addKey("secret"));
    assertThat(((LoamException) add).kind()).isEqualTo(LoamException.Kind.UNAVAILABLE);
    assertThat(await(b.addKey("other")).id()).startsWith("other/");
  }

  @Test
  void aDestroyedMasterKeyFailsWithTheNamespaceNamedOnceTheKeyIsForgotten() throws Exception {
    NamespaceKeyRing a = ring();
    KeyEncryptionKey k = await(a.addKey("secret"));
    await(kms.destroy("secret"));
    // Held in memory: still usable until forgotten or the ttl ends (docs/security.md).
    assertThat(a.resolve(k.id()).id()).isEqualTo(k.id());
    a.forget("secret");
    assertThatThrownBy(() -> a.resolve(k.id()))
        .isInstanceOf(KeyDestroyedException.class)
        .hasMessageContaining("namespace=secret")
        .hasMessageContaining("keyId=" + k.id());
    assertThat(failure(ring().currentKey("secret"))).isInstanceOf(KeyDestroyedException.class);
    Throwable add = failure(a.addKey("secret"));
    assertThat(add).isInstanceOf(KeyDestroyedException.class);
  }
}
