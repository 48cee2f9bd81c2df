package dev.loam.api;

import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.testing.SwitchableObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetches through a store that throttles reads (docs/design/read-path.md "Transient store errors"):
 * a burst of "503 Slow Down" delays the fetch, it does not fail it.
 */
class ThrottledStoreReadTest {
  @TempDir Path dir;
  TestCluster cluster;
  SwitchableObjectStore store;
  LoamNode node;
  Log log;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    store = new SwitchableObjectStore(cluster.memoryStore);
    // No tail cache: every fetch reads the store.
    node = cluster.start("n1", TestCluster.FAST.withTailCacheBytes(0), store, cluster.embeddedMeta);
    log = node.log();
    log.createNamespace("ns").join();
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private List<String> appendSome(int n) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add("v" + i);
      log.append("ns", "s", List.of(AppendRecord.of("k", "v" + i))).join();
    }
    return values;
  }

  private static List<String> values(List<FetchedRecord> records) {
    return records.stream()
        .map(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
        .toList();
  }

  @Test
  void aBurstOfThrottledGetsDelaysTheFetchInsteadOfFailingIt() {
    List<String> written = appendSome(20);
    long retriesBefore = node.readStats().objectGetRetries();
    store.throttleNextReads(5);
    assertThat(values(readAll(log, "ns", "s", 0))).isEqualTo(written);
    assertThat(node.readStats().objectGetRetries() - retriesBefore).isEqualTo(5);
  }

  @Test
  void throttlingThatDoesNotEndFailsTheFetchUnavailableNamingTheStoreError() {
    appendSome(3);
    store.throttleNextReads(Integer.MAX_VALUE);
    assertThatThrownBy(() -> log.fetch("ns", "s", 0, 0, 1 << 20, Duration.ZERO).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(LoamException.class)
        .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.UNAVAILABLE))
        .hasMessageContaining("Slow Down");
    store.throttleNextReads(0);
    assertThat(readAll(log, "ns", "s", 0)).hasSize(3);
  }
}
