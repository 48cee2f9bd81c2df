package dev.loam.store.tck;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.store.tck.FaultInjectingObjectStore.Fault;
import dev.loam.store.tck.FaultInjectingObjectStore.Operation;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FaultInjectingObjectStoreTest {
  private final InMemoryObjectStore inner = new InMemoryObjectStore(InstantSource.system());
  private final FaultInjectingObjectStore store = new FaultInjectingObjectStore(inner);

  @AfterEach
  void close() {
    store.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static Throwable failure(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isNotNull();
    Throwable t = f.handle((v, e) -> e).join();
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  @Test
  void failBeforeNeverReachesTheStoreAndNothingChanges() {
    store.failNext(Fault.FAIL_BEFORE, 1, Operation.CREATE);
    Throwable e = failure(store.create("k", b("x")));
    assertThat(e)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("before it reached the store")
        .hasMessageEndingWith("key=k");
    assertThat(inner.head("k").join()).isEmpty();
    assertThat(store.requestsReached(Operation.CREATE)).isZero();
    assertThat(store.injected(Fault.FAIL_BEFORE)).isEqualTo(1);
    // The rule fired once; the retry goes through.
    store.create("k", b("x")).join();
    assertThat(inner.get("k").join()).isEqualTo(b("x"));
    assertThat(store.requestsReached(Operation.CREATE)).isEqualTo(1);
  }

  @Test
  void failAfterAppliesTheWriteAndReportsAnUnknownOutcome() {
    store.failNext(Fault.FAIL_AFTER, 2, Operation.CREATE, Operation.PUT);
    assertThat(failure(store.create("c", b("created"))))
        .isInstanceOf(StoreOutcomeUnknownException.class)
        .hasMessageEndingWith("key=c");
    assertThat(failure(store.put("p", b("put")))).isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(inner.get("c").join()).isEqualTo(b("created"));
    assertThat(inner.get("p").join()).isEqualTo(b("put"));
    // The SPI's recipe after an unknown outcome: retry the create, then compare.
    assertThat(failure(store.create("c", b("created")))).isInstanceOf(ObjectExistsException.class);
    assertThat(store.get("c").join()).isEqualTo(b("created"));
  }

  @Test
  void failAfterOnAReadOrDeleteIsUnavailableButTheDeleteHappened() {
    inner.create("d", b("x")).join();
    store.failNext(Fault.FAIL_AFTER, 1, Operation.GET);
    store.failNext(Fault.FAIL_AFTER, 1, Operation.DELETE);
    assertThat(failure(store.get("d"))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.delete(List.of("d")))).isInstanceOf(StoreUnavailableException.class);
    assertThat(inner.head("d").join()).isEmpty();
    // A lost answer stays lost even when the store's own answer was a failure.
    store.failNext(Fault.FAIL_AFTER, 1, Operation.GET);
    assertThat(failure(store.get("d"))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.get("d"))).isInstanceOf(ObjectNotFoundException.class);
  }

  @Test
  void throttlingSaysSoAndLeavesTheStoreAlone() {
    store.failNext(Fault.THROTTLE, 3, Operation.PUT);
    for (int i = 0; i < 3; i++) {
      assertThat(failure(store.put("t", b("x"))))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("throttled");
    }
    assertThat(store.requestsReached(Operation.PUT)).isZero();
    assertThat(inner.head("t").join()).isEmpty();
    store.put("t", b("x")).join();
    assertThat(store.injected(Fault.THROTTLE)).isEqualTo(3);
  }

  @Test
  void aRuleAimsAtItsOperationsAndKeyPrefixOnly() {
    store.failNext(Fault.FAIL_BEFORE, 10, "wal/", Operation.CREATE, Operation.DELETE);
    store.create("seg/1", b("x")).join();
    store.put("wal/1", b("x")).join();
    assertThat(failure(store.create("wal/2", b("x"))))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.delete(List.of("seg/1", "wal/1"))))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(store.delete(List.of("seg/1")).join()).isEmpty();
    assertThat(store.list("wal/", "", 10).join().objects()).hasSize(1);
    store.clearFaults();
    store.create("wal/2", b("x")).join();
  }

  @Test
  void randomFaultsAreRepeatableForOneSeed() {
    List<Boolean> first = randomRun(42);
    List<Boolean> second = randomRun(42);
    assertThat(first).isEqualTo(second);
    long failed = first.stream().filter(f -> f).count();
    assertThat(failed).isBetween(60L, 140L); // rate 0.5 over 200 calls
    assertThat(randomRun(43)).isNotEqualTo(first);
  }

  private List<Boolean> randomRun(long seed) {
    FaultInjectingObjectStore s =
        new FaultInjectingObjectStore(new InMemoryObjectStore(InstantSource.system()))
            .failRandomly(Fault.THROTTLE, 0.5, seed, Operation.HEAD);
    List<Boolean> failed = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      failed.add(s.head("k").isCompletedExceptionally());
    }
    s.close();
    return failed;
  }

  @Test
  void aDelayHoldsTheCallBack() {
    store.delay(Duration.ofMillis(200), Operation.GET);
    inner.create("k", b("x")).join();
    long start = System.nanoTime();
    CompletableFuture<byte[]> read = store.get("k");
    assertThat(read).isNotDone();
    assertThat(read.join()).isEqualTo(b("x"));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
    store.delay(Duration.ZERO, Operation.GET);
    assertThat(store.get("k")).isCompleted();
  }

  @Test
  void badRulesAreRejectedWithTheValue() {
    assertThatThrownBy(() -> store.failNext(Fault.FAIL_BEFORE, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("times=0");
    assertThatThrownBy(() -> store.failRandomly(Fault.FAIL_BEFORE, 1.5, 1))
        .hasMessageContaining("rate=1.5");
    assertThatThrownBy(() -> store.delay(Duration.ofMillis(-1)))
        .hasMessageContaining("delay=PT-0.001S");
  }
}
