package dev.loam.store.fs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.StoreUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the filesystem store promises beyond the kit: persistence, sharing, its layout. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileSystemObjectStoreTest {
  private static final InstantSource CLOCK =
      InstantSource.fixed(Instant.parse("2025-01-02T03:04:05Z"));

  @TempDir Path dir;
  private ExecutorService io;

  @BeforeEach
  void startIo() {
    io = Executors.newFixedThreadPool(8);
  }

  @AfterEach
  void stopIo() {
    io.shutdownNow();
  }

  @Test
  void objectsSurviveClosingAndReopeningTheStore() {
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create("wal/1", bytes("one")).join();
      store.put("wal/2", bytes("two")).join();
      store.create("seg/a/b", new byte[0]).join();
    }
    try (FileSystemObjectStore reopened = new FileSystemObjectStore(dir, io, CLOCK)) {
      assertThat(reopened.get("wal/1").join()).isEqualTo(bytes("one"));
      assertThat(reopened.get("wal/2").join()).isEqualTo(bytes("two"));
      assertThat(reopened.head("seg/a/b").join().orElseThrow().size()).isZero();
      assertThat(keys(reopened.list("", "", 100).join().objects()))
          .containsExactly("seg/a/b", "wal/1", "wal/2");
      assertFailure(reopened.create("wal/1", bytes("again")), ObjectExistsException.class);
    }
  }

  @Test
  void twoStoresOnOneDirectoryRacingCreatesHaveExactlyOneWinnerPerKey() throws Exception {
    int keys = 200;
    try (FileSystemObjectStore a = new FileSystemObjectStore(dir, io, CLOCK);
        FileSystemObjectStore b = new FileSystemObjectStore(dir, io, CLOCK)) {
      ExecutorService racers = Executors.newFixedThreadPool(2);
      try {
        CountDownLatch go = new CountDownLatch(1);
        Future<List<Boolean>> winsA = racers.submit(() -> createAll(a, "A", keys, go));
        Future<List<Boolean>> winsB = racers.submit(() -> createAll(b, "B", keys, go));
        go.countDown();
        List<Boolean> fromA = winsA.get(60, TimeUnit.SECONDS);
        List<Boolean> fromB = winsB.get(60, TimeUnit.SECONDS);
        for (int k = 0; k < keys; k++) {
          assertThat(fromA.get(k) ^ fromB.get(k)).as("exactly one winner of key %d", k).isTrue();
          String winner = fromA.get(k) ? "A" : "B";
          assertThat(a.get("race/" + k).join()).isEqualTo(content(winner, k));
        }
      } finally {
        racers.shutdownNow();
      }
      assertThat(a.list("race/", "", 1000).join().objects()).hasSize(keys);
    }
    assertThat(tempFiles()).isEmpty();
  }

  private static List<Boolean> createAll(
      FileSystemObjectStore store, String who, int keys, CountDownLatch go) throws Exception {
    assertThat(go.await(60, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<Void>> futures = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      futures.add(store.create("race/" + k, content(who, k)));
    }
    List<Boolean> wins = new ArrayList<>();
    for (CompletableFuture<Void> f : futures) {
      try {
        f.join();
        wins.add(true);
      } catch (CompletionException e) {
        assertThat(e.getCause()).isInstanceOf(ObjectExistsException.class);
        wins.add(false);
      }
    }
    return wins;
  }

  @Test
  void leafFilesCarryASuffixSoAKeyAndItsChildrenCoexistOnDisk() throws IOException {
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create("a", bytes("leaf")).join();
      store.create("a/b", bytes("child")).join();
    }
    assertThat(Files.readAllBytes(dir.resolve("a~"))).isEqualTo(bytes("leaf"));
    assertThat(Files.isDirectory(dir.resolve("a"))).isTrue();
    assertThat(Files.readAllBytes(dir.resolve("a/b~"))).isEqualTo(bytes("child"));
  }

  @Test
  void longSegmentsAreSplitIntoContinuationDirectories() throws IOException {
    String key = "x".repeat(300);
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create(key, bytes("long")).join();
      assertThat(store.get(key).join()).isEqualTo(bytes("long"));
    }
    Path file =
        dir.resolve("x".repeat(128) + "+")
            .resolve("x".repeat(128) + "+")
            .resolve("x".repeat(44) + "~");
    assertThat(Files.readAllBytes(file)).isEqualTo(bytes("long"));
  }

  @Test
  void lastModifiedIsTheInjectedClockAtTheWrite() {
    AtomicLong now = new AtomicLong(1_700_000_000_000L);
    InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, clock)) {
      store.create("t/a", bytes("a")).join();
      now.addAndGet(5_000);
      store.put("t/b", bytes("b")).join();
      assertThat(store.head("t/a").join().orElseThrow().lastModifiedMillis())
          .isEqualTo(1_700_000_000_000L);
      assertThat(store.head("t/b").join().orElseThrow().lastModifiedMillis())
          .isEqualTo(1_700_000_005_000L);
    }
  }

  @Test
  void tempFilesAndForeignNamesNeverAppearInListings() throws IOException {
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create("w/real", bytes("r")).join();
      // What a writer that crashed between its temp write and its link leaves behind.
      Files.write(dir.resolve("~tmp-999-dead-1"), bytes("partial"));
      Files.write(dir.resolve("w").resolve("~tmp-999-dead-2"), bytes("partial"));
      Files.write(dir.resolve("w").resolve("README"), bytes("not an object: no suffix"));
      Files.write(dir.resolve("w").resolve("bad name~"), bytes("not a valid key"));
      assertThat(keys(store.list("", "", 100).join().objects())).containsExactly("w/real");
      assertThat(keys(store.list("w/", "", 100).join().objects())).containsExactly("w/real");
      // A leftover temp name does not block writers either.
      store.create("fresh", bytes("f")).join();
    }
  }

  @Test
  void successfulWritesLeaveNoTempFiles() throws IOException {
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create("n/1", bytes("1")).join();
      store.put("n/1", bytes("2")).join();
      store.put("n/2", bytes("3")).join();
      assertFailure(store.create("n/2", bytes("4")), ObjectExistsException.class);
    }
    assertThat(tempFiles()).isEmpty();
  }

  @Test
  void deletingTheLastKeyOfADirectoryRemovesTheEmptyDirectories() {
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create("d/e/f/g", bytes("1")).join();
      store.create("d/keep", bytes("2")).join();
      assertThat(store.delete(List.of("d/e/f/g")).join()).isEmpty();
      assertThat(Files.exists(dir.resolve("d/e"))).isFalse();
      assertThat(Files.exists(dir.resolve("d/keep~"))).isTrue();
      assertThat(store.delete(List.of("d/keep")).join()).isEmpty();
      assertThat(Files.exists(dir.resolve("d"))).isFalse();
      assertThat(Files.isDirectory(dir)).as("the root stays").isTrue();
      store.create("d/e/f/g", bytes("again")).join();
      assertThat(store.get("d/e/f/g").join()).isEqualTo(bytes("again"));
    }
  }

  @Test
  void concurrentCreatesAndDeletesUnderOneDirectoryNeverFailAWrite() throws Exception {
    // Deletes remove directories they empty; creates racing with that must retry, not fail.
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      for (int round = 0; round < 200; round++) {
        String key = "churn/" + (round % 3) + "/k";
        store.create(key, bytes("v")).join();
        CompletableFuture<?> delete = store.delete(List.of(key));
        CompletableFuture<Void> create =
            store.create("churn/" + (round % 3) + "/other" + round, bytes("w"));
        delete.join();
        create.join();
        assertThat(store.delete(List.of("churn/" + (round % 3) + "/other" + round)).join())
            .isEmpty();
      }
      assertThat(store.list("", "", 10).join().objects()).isEmpty();
    }
  }

  @Test
  void aRootThatIsAFileMakesWritesUnavailable() throws IOException {
    Path file = Files.write(dir.resolve("plain-file"), bytes("x"));
    try (FileSystemObjectStore store = new FileSystemObjectStore(file, io, CLOCK)) {
      assertFailure(store.create("k", bytes("v")), StoreUnavailableException.class);
      assertFailure(store.put("a/k", bytes("v")), StoreUnavailableException.class);
      assertFailure(store.get("k"), StoreUnavailableException.class);
    }
  }

  @Test
  void aMissingRootReadsAsEmptyAndIsCreatedOnTheFirstWrite() {
    Path root = dir.resolve("not/yet/there");
    try (FileSystemObjectStore store = new FileSystemObjectStore(root, io, CLOCK)) {
      assertThat(store.list("", "", 10).join().objects()).isEmpty();
      assertThat(store.head("k").join()).isEmpty();
      store.create("k", bytes("v")).join();
      assertThat(Files.isDirectory(root)).isTrue();
    }
  }

  @Test
  void aRejectingExecutorFailsTheFutureInsteadOfThrowing() {
    try (FileSystemObjectStore store =
        new FileSystemObjectStore(
            dir,
            r -> {
              throw new RejectedExecutionException("full");
            },
            CLOCK)) {
      assertFailure(store.create("k", bytes("v")), StoreUnavailableException.class);
      assertFailure(store.list("", "", 1), StoreUnavailableException.class);
    }
  }

  @Test
  void failureMessagesEndWithTheKey() {
    try (FileSystemObjectStore store = new FileSystemObjectStore(dir, io, CLOCK)) {
      store.create("m/k", bytes("v")).join();
      Throwable exists =
          assertFailure(store.create("m/k", bytes("v")), ObjectExistsException.class);
      assertThat(exists.getMessage()).endsWith("key=m/k");
      Throwable missing = assertFailure(store.get("m/none"), ObjectNotFoundException.class);
      assertThat(missing.getMessage()).endsWith("key=m/none");
    }
  }

  private List<Path> tempFiles() throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      return all.filter(p -> p.getFileName().toString().startsWith("~")).toList();
    }
  }

  private static Throwable assertFailure(CompletableFuture<?> f, Class<? extends Throwable> type) {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(type);
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("expected failure " + type.getSimpleName() + ", got success");
  }

  private static List<String> keys(List<ObjectInfo> infos) {
    return infos.stream().map(ObjectInfo::key).toList();
  }

  static byte[] content(String who, int key) {
    return ("written by " + who + " for key " + key).getBytes(UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
