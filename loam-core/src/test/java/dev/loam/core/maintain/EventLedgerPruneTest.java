package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.EventLedger;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.node.NodeRuntime;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The retention pass prunes the CloudEvents dedupe ledger (docs/reference/cloudevents.md
 * "Deduplication"): expired claims and completions are removed by one PruneEvents, unexpired ones
 * stay and still answer.
 */
class EventLedgerPruneTest {
  private static final String NS = "default";
  private static final String STREAM = "s";

  @TempDir Path tmp;

  private final SizeRetentionTest.Clock clock = new SizeRetentionTest.Clock();
  private final ExecutorService metaExec = Executors.newSingleThreadExecutor();
  private final ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor();
  private Metastore meta;
  private NodeRuntime node;

  @AfterEach
  void close() {
    if (node != null) {
      node.stop();
    }
    if (meta != null) {
      meta.close();
    }
    metaExec.shutdownNow();
    sched.shutdownNow();
  }

  private static byte[] key(int n) {
    byte[] b = new byte[32];
    b[0] = (byte) n;
    return b;
  }

  @Test
  void expiredEntriesArePrunedByTheRetentionPass() throws Exception {
    meta =
        EmbeddedMetastore.open(
            Files.createTempDirectory(tmp, "meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            metaExec);
    node =
        NodeRuntime.builder()
            .nodeId("n1")
            .settings(
                NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)).toBuilder()
                    .maintenanceInterval(Duration.ofHours(1000))
                    .build())
            .store(new InMemoryObjectStore(clock))
            .meta(meta)
            .clock(clock)
            .random(new Random(7))
            .scheduler(sched)
            .startTimeout(Duration.ofSeconds(10))
            .ownershipSettings(OwnershipSettings.defaults())
            .start();
    node.log().createStream(NS, STREAM, StreamSpec.standard(2)).get(10, TimeUnit.SECONDS);
    EventLedger.Claims lapsing =
        node.log()
            .claimEvents(NS, STREAM, List.of(key(1), key(2)), Duration.ofSeconds(1))
            .get(10, TimeUnit.SECONDS);
    EventLedger.Claims kept =
        node.log()
            .claimEvents(NS, STREAM, List.of(key(3)), Duration.ofHours(1))
            .get(10, TimeUnit.SECONDS);
    node.log()
        .completeEvents(
            NS,
            STREAM,
            lapsing.claimId(),
            Duration.ofSeconds(1),
            List.of(new EventLedger.Completed(key(1), 1, 0)))
        .get(10, TimeUnit.SECONDS);
    assertThat(meta.<Long>read(r -> r.eventLedgerEntries())).isEqualTo(3L);
    node.runMaintenance().get(30, TimeUnit.SECONDS);
    assertThat(meta.<Long>read(r -> r.eventLedgerEntries()))
        .as("nothing expired yet")
        .isEqualTo(3L);

    clock.now.addAndGet(5_000);
    // any command moves the metastore clock; the ledger's times are on it
    node.log().append(NS, STREAM, List.of(AppendRecord.of("k", "v"))).get(10, TimeUnit.SECONDS);
    assertThat(meta.<Long>read(r -> r.eventLedgerExpired())).isEqualTo(2L);
    node.runMaintenance().get(30, TimeUnit.SECONDS);
    assertThat(meta.<Long>read(r -> r.eventLedgerEntries())).isEqualTo(1L);
    // the one left still answers: pending under the other claim
    EventLedger.Claims again =
        node.log()
            .claimEvents(NS, STREAM, List.of(key(1), key(3)), Duration.ofMinutes(2))
            .get(10, TimeUnit.SECONDS);
    assertThat(again.claims())
        .extracting(EventLedger.Claim::status)
        .containsExactly(EventLedger.Status.CLAIMED, EventLedger.Status.IN_FLIGHT);
    assertThat(again.claims().get(1).expiresAtMillis()).isEqualTo(kept.expiresAtMillis());
  }
}
