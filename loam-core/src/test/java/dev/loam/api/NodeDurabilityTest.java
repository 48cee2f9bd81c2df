package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What survives a crash or a restart on the embedded default, and what a corrupt object does. */
class NodeDurabilityTest {
  @TempDir Path dir;

  private LoamNode open(Duration flush) {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir)
        .settings(NodeSettings.defaults().withFlushInterval(flush))
        .start();
  }

  @Test
  void aCrashWithoutFlushLosesNoAcknowledgedAppend() throws Exception {
    List<AppendResult> acked = new ArrayList<>();
    LoamNode node = open(Duration.ofMillis(5));
    node.log().createNamespace("ns").join();
    node.log().createStream("ns", "s", StreamSpec.standard(2)).join();
    for (int i = 0; i < 50; i++) {
      acked.add(await(node.log().append("ns", "s", List.of(AppendRecord.of("k" + i, "v" + i)))));
    }
    node.crash();

    try (LoamNode again = open(Duration.ofMillis(5))) {
      assertThat(again.epoch()).isGreaterThan(node.epoch());
      for (int i = 0; i < 50; i++) {
        AppendResult.RecordPosition pos = acked.get(i).positions().get(0);
        List<FetchedRecord> got =
            await(again.log().fetch("ns", "s", pos.partition(), pos.offset(), 1, Duration.ZERO))
                .records();
        assertThat(got.get(0).offset()).isEqualTo(pos.offset());
        assertThat(got.get(0).valueAsString()).isEqualTo("v" + i);
      }
      assertThat(
              readAll(again.log(), "ns", "s", 0).size() + readAll(again.log(), "ns", "s", 1).size())
          .isEqualTo(50);
    }
  }

  @Test
  void unacknowledgedAppendsOfACrashFailAndAreNotHalfCommitted() throws Exception {
    LoamNode node = open(Duration.ofSeconds(30));
    node.log().createNamespace("ns").join();
    node.log().createStream("ns", "s", StreamSpec.standard(1)).join();
    CompletableFuture<AppendResult> pending =
        node.log().append("ns", "s", List.of(AppendRecord.of("k", "never-flushed")));
    node.crash();
    assertThat(failure(pending).kind()).isEqualTo(Kind.UNAVAILABLE);
    try (LoamNode again = open(Duration.ofMillis(5))) {
      assertThat(readAll(again.log(), "ns", "s", 0)).isEmpty();
    }
  }

  @Test
  void aCrashCompletesEveryPendingAppendAndEndsLongPolls() throws Exception {
    LoamNode node = open(Duration.ofMillis(5));
    node.log().createNamespace("ns").join();
    node.log().createStream("ns", "s", StreamSpec.standard(2)).join();
    CompletableFuture<FetchResult> poll =
        node.log().fetch("ns", "s", 1, 0, 1024, Duration.ofSeconds(60));
    List<CompletableFuture<AppendResult>> pending = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      pending.add(
          node.log().append("ns", "s", List.of(AppendRecord.of("k", "v" + i).toPartition(0))));
    }
    node.crash();
    for (CompletableFuture<AppendResult> f : pending) {
      try {
        f.get(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        // Never acknowledged: either definitely not written, or written with unknown outcome.
        assertThat(((dev.loam.error.LoamException) e.getCause()).kind())
            .isIn(Kind.UNAVAILABLE, Kind.OUTCOME_UNKNOWN);
      }
    }
    try {
      poll.get(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      assertThat(e.getCause()).isNotNull();
    }
    long t0 = System.nanoTime();
    node.close(); // already stopped: returns at once
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aCrashDuringACloseStopsAtOnceAndAnswersEveryPendingAppend() throws Exception {
    // The store is down, so a close would wait out the commit budget for the pending appends'
    // verdicts; a crash meanwhile must not wait for that close.
    dev.loam.testing.SwitchableObjectStore store =
        new dev.loam.testing.SwitchableObjectStore(
            new dev.loam.store.memory.InMemoryObjectStore(java.time.InstantSource.system()));
    LoamNode node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir)
            .objectStore(store)
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
            .closeTimeout(Duration.ofSeconds(60))
            .start();
    node.log().createNamespace("ns").join();
    node.log().createStream("ns", "s", StreamSpec.standard(1)).join();
    store.down(true);
    List<CompletableFuture<AppendResult>> pending = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pending.add(node.log().append("ns", "s", List.of(AppendRecord.of("k", "v" + i))));
    }
    CompletableFuture<Void> closing = node.closeAsync();
    Thread.sleep(300);
    assertThat(closing).isNotDone();
    assertThat(pending.get(0)).isNotDone();

    long t0 = System.nanoTime();
    node.crash();
    for (CompletableFuture<AppendResult> f : pending) {
      assertThat(failure(f).kind()).isIn(Kind.UNAVAILABLE, Kind.OUTCOME_UNKNOWN);
    }
    closing.get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void closeFlushesBufferedAppendsAndAReopenReadsThem() throws Exception {
    CompletableFuture<AppendResult> pending;
    try (LoamNode node = open(Duration.ofSeconds(30))) {
      node.log().createNamespace("ns").join();
      node.log().createStream("ns", "s", StreamSpec.standard(1)).join();
      pending = node.log().append("ns", "s", List.of(AppendRecord.of("k", "buffered")));
      assertThat(pending).isNotDone();
    }
    assertThat(pending).isCompleted();
    assertThat(pending.join().positions().get(0).offset()).isZero();
    try (LoamNode again = open(Duration.ofMillis(5))) {
      assertThat(readAll(again.log(), "ns", "s", 0))
          .extracting(FetchedRecord::valueAsString)
          .containsExactly("buffered");
    }
  }

  @Test
  void aCorruptedWalObjectIsDetectedOnReadAndTheErrorNamesTheObject(@TempDir Path metaDir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(metaDir)) {
      Log writer = cluster.start("writer", TestCluster.FAST).log();
      writer.createNamespace("ns").join();
      writer.createStream("ns", "s", StreamSpec.standard(1)).join();
      await(writer.append("ns", "s", List.of(AppendRecord.of("key", "some value to damage"))));
      List<ObjectInfo> objects = cluster.memoryStore.list("wal/", "", 100).join().objects();
      assertThat(objects).hasSize(1);
      String key = objects.get(0).key();
      byte[] bytes = cluster.memoryStore.get(key).join();
      // Flip one byte of the record value (inside the batch, covered by its CRC32C).
      String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
      int at = text.indexOf("damage");
      assertThat(at).isPositive();
      bytes[at] ^= 0x01;
      cluster.memoryStore.put(key, bytes).join();

      // A second node has no tail cache of that batch, so it reads the object.
      Log reader = cluster.start("reader", TestCluster.FAST).log();
      var e = failure(reader.fetch("ns", "s", 0, 0, 1 << 20, Duration.ZERO));
      assertThat(e.kind()).isEqualTo(Kind.CORRUPTION);
      assertThat(e.getMessage()).contains("object=" + key);
    }
  }
}
