package dev.loam.api;

import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.spi.store.ObjectInfo;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NodeSettings#withWalObjects}: the size limit splits a burst into several WAL objects. */
class WalObjectSizeTest {
  private static final int LIMIT = 64 * 1024;

  @TempDir Path dir;
  TestCluster cluster;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  @Test
  void aBurstLargerThanTheLimitIsWrittenAsSeveralObjectsAndReadsBackInOrder() throws Exception {
    // A long flush interval: only the size limit can seal these objects early.
    NodeSettings settings =
        TestCluster.FAST.withFlushInterval(Duration.ofSeconds(2)).withWalObjects(LIMIT, 8);
    assertThat(settings.walObjectMaxBytes()).isEqualTo(LIMIT);
    assertThat(settings.maxObjectsInFlight()).isEqualTo(8);
    Log log = cluster.start("n1", settings).log();
    log.createNamespace("ns").join();
    log.createStream("ns", "s", StreamSpec.standard(1)).join();

    String value = "v".repeat(1000);
    List<CompletableFuture<AppendResult>> acks = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      acks.add(log.append("ns", "s", List.of(AppendRecord.of("k", i + ":" + value))));
    }
    CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
    assertThat(acks.get(0).join().positions().get(0).offset()).isZero();

    List<ObjectInfo> wal = cluster.memoryStore.list("wal/", "", 1000).join().objects();
    // ~400 KB of records in one flush interval: without the limit they would share one object.
    // At least 6 objects; the limit bounds an object's batches, so the object itself is at most
    // the limit plus its header, chunk index and footer.
    assertThat(wal).hasSizeGreaterThanOrEqualTo(6);
    assertThat(wal).allSatisfy(o -> assertThat(o.size()).isLessThan(LIMIT + 4096));
    List<FetchedRecord> back = readAll(log, "ns", "s", 0);
    assertThat(back).hasSize(400);
    for (int i = 0; i < 400; i++) {
      assertThat(back.get(i).valueAsString()).startsWith(i + ":");
    }
  }

  @Test
  void aLimitAboveTheWriteBufferRaisesTheBufferToOneObject() {
    NodeSettings s = NodeSettings.defaults().withWalObjects(128 << 20, 4);
    assertThat(s.walObjectMaxBytes()).isEqualTo(128 << 20);
    assertThat(s.maxBufferedBytes()).isEqualTo(128L << 20);
    assertThat(NodeSettings.defaults().withWalObjects(1 << 20, 4).maxBufferedBytes())
        .isEqualTo(NodeSettings.defaults().maxBufferedBytes());
  }

  @Test
  void invalidLimitsAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> NodeSettings.defaults().withWalObjects(100, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("walObjectMaxBytes");
    assertThatThrownBy(() -> NodeSettings.defaults().withWalObjects(1 << 20, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxObjectsInFlight");
  }
}
