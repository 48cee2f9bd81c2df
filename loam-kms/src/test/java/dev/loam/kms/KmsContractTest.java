package dev.loam.kms;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The conformance kit of {@link KeyManagementService}: every implementation extends this class and
 * passes every case unchanged (a subclass may override a case only to assert a documented
 * deviation, repeating {@code @Test}). Each case gets a fresh service from {@link #newKms()} and
 * closes it afterwards; {@link #openAnotherHandle()} opens a second handle on the same service, as
 * every node of a cluster does. Every failure is asserted to arrive through the future.
 *
 * <p>Shipped as the test-jar of {@code dev.loam:loam-kms} (type {@code test-jar}, test scope); it
 * needs JUnit 5 and AssertJ on the test classpath.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class KmsContractTest {
  /** The service under test; fresh and empty for each case. */
  protected KeyManagementService kms;

  private final List<KeyManagementService> others = new ArrayList<>();

  /** A new service holding no keys (a fresh file, account, or key ring). */
  protected abstract KeyManagementService newKms() throws Exception;

  /** A second handle on the service {@link #newKms()} last returned. */
  protected abstract KeyManagementService openAnotherHandle() throws Exception;

  @BeforeEach
  void openKms() throws Exception {
    kms = newKms();
  }

  @AfterEach
  void closeKms() {
    others.forEach(KeyManagementService::close);
    if (kms != null) {
      kms.close();
    }
  }

  /** A second handle, closed after the case. */
  protected KeyManagementService another() throws Exception {
    KeyManagementService k = openAnotherHandle();
    others.add(k);
    return k;
  }

  protected static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("future failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("future did not complete: " + e, e);
    }
  }

  /** Asserts that the call returns a future (does not throw) that fails with {@code type}. */
  protected static <E extends Throwable> E assertFailsWith(
      Class<E> type, Supplier<CompletableFuture<?>> call) {
    CompletableFuture<?> f;
    try {
      f = call.get();
    } catch (RuntimeException e) {
      throw new AssertionError("threw instead of failing the future: " + e, e);
    }
    try {
      Object v = f.get(30, TimeUnit.SECONDS);
      return fail("expected %s, completed with %s", type.getSimpleName(), v);
    } catch (ExecutionException e) {
      Throwable c = e.getCause() instanceof CompletionException ce ? ce.getCause() : e.getCause();
      assertThat(c).isInstanceOf(type);
      return type.cast(c);
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("future did not complete: " + e, e);
    }
  }

  static byte[] key(int seed) {
    byte[] k = new byte[32];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (seed * 31 + i);
    }
    return k;
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  protected void createThenWrapAndUnwrapRoundTrips() {
    assertThat(await(kms.create("ns-a"))).isEqualTo(new KeyVersion("ns-a", 1));
    byte[] wrapped = await(kms.wrap("ns-a", key(1)));
    assertThat(wrapped).isNotEqualTo(key(1));
    assertThat(new String(wrapped, UTF_8)).doesNotContain(new String(key(1), UTF_8));
    assertThat(await(kms.unwrap("ns-a", wrapped))).isEqualTo(key(1));
    assertThat(await(kms.current("ns-a"))).isEqualTo(new KeyVersion("ns-a", 1));
  }

  @Test
  protected void wrappingTheSameKeyTwiceGivesDifferentBytes() {
    await(kms.create("ns-a"));
    byte[] a = await(kms.wrap("ns-a", key(1)));
    byte[] b = await(kms.wrap("ns-a", key(1)));
    assertThat(a).isNotEqualTo(b);
    assertThat(await(kms.unwrap("ns-a", b))).isEqualTo(key(1));
  }

  @Test
  protected void createTwiceFailsWithExists() {
    await(kms.create("ns-a"));
    KmsKeyExistsException e =
        assertFailsWith(KmsKeyExistsException.class, () -> kms.create("ns-a"));
    assertThat(e.kind()).isEqualTo(LoamException.Kind.CONFLICT);
    assertThat(e.getMessage()).contains("namespace=ns-a");
  }

  @Test
  protected void everyCallOnAnUnknownNamespaceFailsWithNotFound() {
    for (Supplier<CompletableFuture<?>> call :
        List.<Supplier<CompletableFuture<?>>>of(
            () -> kms.current("nope"),
            () -> kms.wrap("nope", key(1)),
            () -> kms.unwrap("nope", new byte[64]),
            () -> kms.rotate("nope"),
            () -> kms.destroy("nope"))) {
      KmsKeyNotFoundException e = assertFailsWith(KmsKeyNotFoundException.class, call);
      assertThat(e.kind()).isEqualTo(LoamException.Kind.NOT_FOUND);
      assertThat(e.getMessage()).contains("namespace=nope");
    }
  }

  @Test
  protected void invalidArgumentsFailTheFutureWithInvalid() {
    for (Supplier<CompletableFuture<?>> call :
        List.<Supplier<CompletableFuture<?>>>of(
            () -> kms.create(""),
            () -> kms.create("a/b"),
            () -> kms.create("x".repeat(129)),
            () -> kms.wrap("ns-a", new byte[0]),
            () -> kms.wrap("ns-a", new byte[1025]))) {
      LoamException e = assertFailsWith(LoamException.class, call);
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
    }
  }

  @Test
  protected void namespacesDifferingOnlyInCaseHaveTheirOwnKeys() {
    await(kms.create("Tenant"));
    assertFailsWith(KmsKeyNotFoundException.class, () -> kms.current("tenant"));
    await(kms.create("tenant"));
    byte[] w = await(kms.wrap("Tenant", key(1)));
    assertFailsWith(CorruptionException.class, () -> kms.unwrap("tenant", w));
  }

  @Test
  protected void aWrappedKeyOfOneNamespaceDoesNotUnwrapInAnother() {
    await(kms.create("ns-a"));
    await(kms.create("ns-b"));
    byte[] w = await(kms.wrap("ns-a", key(1)));
    CorruptionException e = assertFailsWith(CorruptionException.class, () -> kms.unwrap("ns-b", w));
    assertThat(e.getMessage()).contains("namespace=ns-b");
  }

  @Test
  protected void everyChangedByteOfAWrappedKeyFailsWithCorruption() {
    await(kms.create("ns-a"));
    byte[] w = await(kms.wrap("ns-a", key(1)));
    for (int i = 0; i < w.length; i++) {
      byte[] bad = w.clone();
      bad[i] ^= 0x01;
      CorruptionException e =
          assertFailsWith(CorruptionException.class, () -> kms.unwrap("ns-a", bad));
      assertThat(e.getMessage()).as("flip at %d", i).contains("namespace=ns-a");
    }
    assertFailsWith(CorruptionException.class, () -> kms.unwrap("ns-a", new byte[3]));
    assertFailsWith(CorruptionException.class, () -> kms.unwrap("ns-a", new byte[0]));
  }

  @Test
  protected void rotationWrapsWithTheNewVersionAndKeepsOldWrappedKeysReadable() {
    await(kms.create("ns-a"));
    byte[] v1 = await(kms.wrap("ns-a", key(1)));
    assertThat(await(kms.rotate("ns-a"))).isEqualTo(new KeyVersion("ns-a", 2));
    assertThat(await(kms.current("ns-a"))).isEqualTo(new KeyVersion("ns-a", 2));
    byte[] v2 = await(kms.wrap("ns-a", key(2)));
    assertThat(await(kms.rotate("ns-a"))).isEqualTo(new KeyVersion("ns-a", 3));
    assertThat(await(kms.unwrap("ns-a", v1))).isEqualTo(key(1));
    assertThat(await(kms.unwrap("ns-a", v2))).isEqualTo(key(2));
  }

  @Test
  protected void destroyShredsEveryVersionOfThatNamespaceOnly() {
    await(kms.create("ns-a"));
    await(kms.create("ns-b"));
    byte[] a1 = await(kms.wrap("ns-a", key(1)));
    await(kms.rotate("ns-a"));
    byte[] a2 = await(kms.wrap("ns-a", key(2)));
    byte[] b = await(kms.wrap("ns-b", key(3)));
    await(kms.destroy("ns-a"));
    for (Supplier<CompletableFuture<?>> call :
        List.<Supplier<CompletableFuture<?>>>of(
            () -> kms.unwrap("ns-a", a1),
            () -> kms.unwrap("ns-a", a2),
            () -> kms.wrap("ns-a", key(4)),
            () -> kms.current("ns-a"),
            () -> kms.rotate("ns-a"))) {
      KeyDestroyedException e = assertFailsWith(KeyDestroyedException.class, call);
      assertThat(e.namespace()).isEqualTo("ns-a");
      assertThat(e.getMessage()).contains("namespace=ns-a");
      assertThat(e.isRetriable()).isFalse();
    }
    assertThat(await(kms.unwrap("ns-b", b))).isEqualTo(key(3));
    // Destroying again succeeds; re-creating is refused: shredded data never becomes readable.
    await(kms.destroy("ns-a"));
    assertFailsWith(KmsKeyExistsException.class, () -> kms.create("ns-a"));
    assertFailsWith(KeyDestroyedException.class, () -> kms.unwrap("ns-a", a1));
  }

  @Test
  protected void anotherHandleSeesCreateRotateAndDestroy() throws Exception {
    KeyManagementService other = another();
    await(kms.create("ns-a"));
    byte[] w = await(kms.wrap("ns-a", key(1)));
    assertThat(await(other.unwrap("ns-a", w))).isEqualTo(key(1));
    await(other.rotate("ns-a"));
    assertThat(await(kms.current("ns-a")).version()).isEqualTo(2);
    byte[] w2 = await(kms.wrap("ns-a", key(2)));
    assertThat(await(other.unwrap("ns-a", w2))).isEqualTo(key(2));
    await(other.destroy("ns-a"));
    assertFailsWith(KeyDestroyedException.class, () -> kms.unwrap("ns-a", w));
  }

  @Test
  protected void concurrentCallsAllComplete() {
    await(kms.create("ns-a"));
    await(kms.create("ns-b"));
    List<CompletableFuture<byte[]>> wraps = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      wraps.add(kms.wrap(i % 2 == 0 ? "ns-a" : "ns-b", key(i)));
    }
    for (int i = 0; i < 40; i++) {
      byte[] w = await(wraps.get(i));
      assertThat(await(kms.unwrap(i % 2 == 0 ? "ns-a" : "ns-b", w))).isEqualTo(key(i));
    }
  }

  @Test
  protected void callsAfterCloseFailWithUnavailable() {
    await(kms.create("ns-a"));
    kms.close();
    kms.close();
    KmsUnavailableException e =
        assertFailsWith(KmsUnavailableException.class, () -> kms.wrap("ns-a", key(1)));
    assertThat(e.isRetriable()).isTrue();
    assertFailsWith(KmsUnavailableException.class, () -> kms.create("ns-b"));
  }
}
