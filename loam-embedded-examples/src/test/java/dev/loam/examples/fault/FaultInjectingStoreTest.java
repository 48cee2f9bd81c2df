package dev.loam.examples.fault;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingStoreTest {
  final InMemoryObjectStore real =
      new InMemoryObjectStore(InstantSource.fixed(Instant.parse("2026-11-29T00:00:00Z")));
  final List<String> injected = new ArrayList<>();
  final FaultInjectingStore store =
      new FaultInjectingStore(
          real,
          new SplittableRandom(7),
          (kind, op, key) -> {
            synchronized (injected) {
              injected.add(kind.key() + " " + op + " " + key);
            }
          });
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  @TempDir Path dir;

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  static Throwable failure(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected the future to fail");
  }

  @Test
  void offPassesEveryCallThrough() {
    assertThat(store.rates()).isEqualTo(FaultRates.OFF);
    store.create("a/b", "x".getBytes(UTF_8)).join();
    store.put("a/c", "yz".getBytes(UTF_8)).join();
    assertThat(store.get("a/b").join()).isEqualTo("x".getBytes(UTF_8));
    assertThat(store.get("a/c", 1, 5).join()).isEqualTo("z".getBytes(UTF_8));
    assertThat(store.getTail("a/c", 1).join().objectSize()).isEqualTo(2);
    assertThat(store.list("a/", "", 10).join().objects().stream().map(o -> o.key()))
        .containsExactly("a/b", "a/c");
    assertThat(failure(store.create("a/b", new byte[1]))).isInstanceOf(ObjectExistsException.class);
    assertThat(injected).isEmpty();
    for (FaultKind k : FaultKind.values()) {
      assertThat(store.injected(k)).isZero();
    }
  }

  @Test
  void refusedWritesWriteNothing() {
    store.setRates(new FaultRates(1, 0, 0));
    assertThat(failure(store.create("k1", new byte[] {1})))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("injected")
        .hasMessageEndingWith("key=k1");
    assertThat(failure(store.put("k2", new byte[] {2})))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(real.head("k1").join()).isEmpty();
    assertThat(real.head("k2").join()).isEmpty();
    assertThat(store.injected(FaultKind.WRITE_UNAVAILABLE)).isEqualTo(2);
    assertThat(injected).containsExactly("write_unavailable create k1", "write_unavailable put k2");
    // Reads are unaffected by write faults.
    real.put("k3", new byte[] {3}).join();
    assertThat(store.get("k3").join()).containsExactly(3);
  }

  @Test
  void outcomeUnknownWritesLandButReportUnknown() {
    store.setRates(new FaultRates(0, 1, 0));
    assertThat(failure(store.create("k1", new byte[] {1})))
        .isInstanceOf(StoreOutcomeUnknownException.class)
        .hasMessageEndingWith("key=k1");
    assertThat(real.get("k1").join()).containsExactly(1);
    assertThat(failure(store.put("k1", new byte[] {9})))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(real.get("k1").join()).containsExactly(9);
    // The retry of a create whose answer was lost finds the object: its real outcome, not a fault.
    assertThat(failure(store.create("k1", new byte[] {1})))
        .isInstanceOf(ObjectExistsException.class);
    assertThat(store.injected(FaultKind.WRITE_OUTCOME_UNKNOWN)).isEqualTo(2);
  }

  @Test
  void refusedReadsAndUntouchedMetadataCalls() {
    real.put("k", new byte[] {1, 2, 3}).join();
    store.setRates(new FaultRates(0, 0, 1));
    assertThat(failure(store.get("k"))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.get("k", 0, 2))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.getTail("k", 2))).isInstanceOf(StoreUnavailableException.class);
    assertThat(store.head("k").join()).isPresent();
    assertThat(store.list("", "", 10).join().objects().stream().map(o -> o.key()))
        .containsExactly("k");
    assertThat(store.delete(List.of("k")).join()).isEmpty();
    assertThat(store.injected(FaultKind.READ_UNAVAILABLE)).isEqualTo(3);
    assertThat(injected)
        .containsExactly(
            "read_unavailable get k", "read_unavailable get k", "read_unavailable getTail k");
  }

  @Test
  void aSlowStoreHoldsEveryDataCallBackAndThenAnswersIt() {
    real.put("k", new byte[] {1, 2, 3}).join();
    store.setRates(new FaultRates(0, 0, 0, 150));
    long t0 = System.nanoTime();
    CompletableFuture<byte[]> get = store.get("k");
    CompletableFuture<Void> put = store.put("p", new byte[] {4});
    assertThat(get).isNotDone();
    assertThat(put).isNotDone();
    assertThat(real.head("p").join()).as("a held-back put has not reached the store").isEmpty();
    assertThat(get.join()).isEqualTo(new byte[] {1, 2, 3});
    put.join();
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    assertThat(real.get("p").join()).isEqualTo(new byte[] {4});
    assertThat(store.head("k").join()).isPresent();
    assertThat(store.injected(FaultKind.SLOW)).isEqualTo(2);
    store.setRates(FaultRates.OFF);
    assertThat(store.get("k")).isCompleted();
    assertThat(store.injected(FaultKind.SLOW)).isEqualTo(2);
  }

  @Test
  void fractionalRatesFailAboutThatFractionAndOnlyThoseWritesAreMissing() {
    store.setRates(new FaultRates(0.2, 0.1, 0));
    int n = 10_000;
    int refused = 0;
    int unknown = 0;
    for (int i = 0; i < n; i++) {
      CompletableFuture<Void> f = store.create("k" + i, new byte[] {(byte) i});
      if (f.isCompletedExceptionally()) {
        Throwable t = failure(f);
        if (t instanceof StoreUnavailableException) {
          refused++;
          assertThat(real.head("k" + i).join()).as("refused k%d", i).isEmpty();
        } else {
          assertThat(t).isInstanceOf(StoreOutcomeUnknownException.class);
          unknown++;
          assertThat(real.head("k" + i).join()).as("unknown k%d", i).isPresent();
        }
      } else {
        assertThat(real.head("k" + i).join()).isPresent();
      }
    }
    // Binomial(10000, 0.2): sd 40; (10000, 0.1): sd 30. Six sd either way.
    assertThat(refused).isBetween(1760, 2240);
    assertThat(unknown).isBetween(820, 1180);
    assertThat(store.injected(FaultKind.WRITE_UNAVAILABLE)).isEqualTo(refused);
    assertThat(store.injected(FaultKind.WRITE_OUTCOME_UNKNOWN)).isEqualTo(unknown);
    store.setRates(FaultRates.OFF);
    store.create("after", new byte[1]).join();
    assertThat(store.injected(FaultKind.WRITE_UNAVAILABLE)).isEqualTo(refused);
  }

  @Test
  void ratesParseFromPropertiesTextAndRefuseMistakes() {
    assertThat(FaultRates.parse("")).isEqualTo(FaultRates.OFF);
    assertThat(FaultRates.parse("# nothing\nwrite_unavailable = 0.25\nread_unavailable=1\n"))
        .isEqualTo(new FaultRates(0.25, 0, 1));
    FaultRates r = new FaultRates(0.1, 0.05, 0.3);
    assertThat(FaultRates.parse(r.toText())).isEqualTo(r);
    FaultRates slow = new FaultRates(0, 0, 0, 250);
    assertThat(FaultRates.parse(slow.toText())).isEqualTo(slow);
    assertThat(FaultRates.parse("slow_ms=40")).isEqualTo(new FaultRates(0, 0, 0, 40));
    assertThatThrownBy(() -> FaultRates.parse("slow_ms=fast"))
        .hasMessageContaining("slow_ms must be a whole number of milliseconds, got fast");
    assertThatThrownBy(() -> FaultRates.parse("slow_ms=-1")).hasMessageContaining("slow_ms");
    assertThatThrownBy(() -> FaultRates.parse("slow=1"))
        .as("the log kind is not a file key")
        .hasMessageContaining("unknown fault file keys [slow]");
    assertThatThrownBy(() -> FaultRates.parse("write_unavailble=0.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("write_unavailble");
    assertThatThrownBy(() -> FaultRates.parse("read_unavailable=1.5"))
        .hasMessageContaining("read_unavailable must be a probability in [0, 1], got 1.5");
    assertThatThrownBy(() -> FaultRates.parse("read_unavailable=often"))
        .hasMessageContaining("got often");
    assertThatThrownBy(() -> FaultRates.parse("read_unavailable=NaN"))
        .hasMessageContaining("got NaN");
    assertThatThrownBy(() -> FaultRates.parse("write_unavailable=0.6\nwrite_outcome_unknown=0.6"))
        .hasMessageContaining("at most 1");
  }

  @Test
  void aFaultFileSwitchesTheRatesAtRunTime() throws Exception {
    Path file = dir.resolve("faults.properties");
    List<String> notices = new ArrayList<>();
    try (FaultFile watch =
        FaultFile.watch(file, store, notices::add, scheduler, Duration.ofHours(1))) {
      assertThat(store.rates()).as("absent file: off").isEqualTo(FaultRates.OFF);
      Files.writeString(file, "write_unavailable=0.5\n", UTF_8);
      watch.reload();
      assertThat(store.rates()).isEqualTo(new FaultRates(0.5, 0, 0));
      assertThat(notices).last().asString().startsWith("faults on write_unavailable=0.5");
      Files.writeString(file, "write_unavailable=2\n", UTF_8);
      assertThatThrownBy(watch::reload).hasMessageContaining("got 2");
      assertThat(store.rates())
          .as("a bad file changes nothing")
          .isEqualTo(new FaultRates(0.5, 0, 0));
      Files.delete(file);
      watch.reload();
      assertThat(store.rates()).isEqualTo(FaultRates.OFF);
      assertThat(notices).last().asString().startsWith("faults off");
    }
  }

  @Test
  void theFaultFileIsPolledAndABadOneIsReportedOnce() throws Exception {
    Path file = dir.resolve("faults.properties");
    List<String> notices = new ArrayList<>();
    try (FaultFile watch =
        FaultFile.watch(
            file,
            store,
            n -> {
              synchronized (notices) {
                notices.add(n);
              }
            },
            scheduler,
            Duration.ofMillis(20))) {
      Files.writeString(file, "read_unavailable=0.75\n", UTF_8);
      awaitRates(new FaultRates(0, 0, 0.75));
      Files.writeString(file, "bogus=1\n", UTF_8);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        synchronized (notices) {
          if (notices.stream().anyMatch(n -> n.contains("bogus"))) {
            break;
          }
        }
        assertThat(System.nanoTime()).as("bad file reported").isLessThan(deadline);
        Thread.sleep(10);
      }
      Thread.sleep(200); // ten more polls of the same bad file
      synchronized (notices) {
        assertThat(notices.stream().filter(n -> n.contains("bogus"))).hasSize(1);
      }
      assertThat(store.rates()).isEqualTo(new FaultRates(0, 0, 0.75));
      Files.writeString(file, "", UTF_8);
      awaitRates(FaultRates.OFF);
    }
  }

  @Test
  void anInvalidFaultFileRefusesTheStartNamingTheFile() throws Exception {
    Path file = dir.resolve("bad.properties");
    Files.writeString(file, "write_outcome_unknown=-1\n", UTF_8);
    assertThatThrownBy(
            () -> FaultFile.watch(file, store, n -> {}, scheduler, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("write_outcome_unknown must be a probability");
  }

  private void awaitRates(FaultRates want) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!store.rates().equals(want)) {
      assertThat(System.nanoTime()).as("rates become %s", want).isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
