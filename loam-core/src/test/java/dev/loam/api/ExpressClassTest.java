package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.express.ExpressObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.testing.SwitchableObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Express streams on a node with three zonal stores, while zones go down and come back. */
class ExpressClassTest {
  @TempDir Path dir;
  TestCluster cluster;
  SwitchableObjectStore[] zones = new SwitchableObjectStore[3];
  Log log;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    for (int i = 0; i < 3; i++) {
      zones[i] = new SwitchableObjectStore(new InMemoryObjectStore(InstantSource.system()));
    }
    LoamNode node =
        LoamNode.builder()
            .nodeId("n1")
            .settings(TestCluster.FAST.withCommitBudget(Duration.ofMillis(500)))
            .objectStore(cluster.memoryStore)
            .expressStore(new ExpressObjectStore(List.of(zones), 0))
            .metastore(cluster.embeddedMeta)
            .start();
    log = node.log();
    log.createNamespace("ns").join();
    log.createStream("ns", "fast", StreamSpec.standard(1).withClass(Durability.EXPRESS)).join();
    cluster.adopt(node);
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private AppendResult append(String v) throws Exception {
    return await(log.append("ns", "fast", List.of(AppendRecord.of("k", v))));
  }

  @Test
  void appendsSurviveOneZoneDownFailTypedWithTwoDownAndResumeWhenZonesReturn() throws Exception {
    List<String> acked = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      append("a" + i);
      acked.add("a" + i);
    }
    zones[2].down(true);
    for (int i = 0; i < 5; i++) {
      append("b" + i);
      acked.add("b" + i);
    }
    zones[1].down(true);
    LoamException e = failure(log.append("ns", "fast", List.of(AppendRecord.of("k", "lost"))));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    // The key names the cluster, then the node (docs/formats/bucket-layout.md).
    assertThat(e.getMessage()).containsPattern("object=wal/express/[0-9A-Z]{26}/n1/");
    // Everything acknowledged is still readable from the surviving zone.
    assertThat(readAll(log, "ns", "fast", 0))
        .extracting(FetchedRecord::valueAsString)
        .containsExactlyElementsOf(acked);

    zones[1].down(false);
    zones[2].down(false);
    append("c0");
    acked.add("c0");
    assertThat(readAll(log, "ns", "fast", 0))
        .extracting(FetchedRecord::valueAsString)
        .containsExactlyElementsOf(acked);
  }

  @Test
  void aNodeWithoutAnExpressStoreRefusesExpressStreams(@TempDir Path other) {
    try (TestCluster c = new TestCluster(other)) {
      Log plain = c.start("n2", TestCluster.FAST).log();
      plain.createNamespace("ns").join();
      LoamException e =
          failure(
              plain.createStream("ns", "x", StreamSpec.standard(1).withClass(Durability.EXPRESS)));
      assertThat(e.kind()).isEqualTo(Kind.INVALID);
      assertThat(e.getMessage()).contains("no express store", "stream=ns/x");
    }
  }
}
