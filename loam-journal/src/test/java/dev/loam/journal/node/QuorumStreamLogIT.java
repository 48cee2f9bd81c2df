package dev.loam.journal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.BatchFetchResult;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.NotOwnerException;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quorum stream through {@code Log} on three nodes with journal ports (one metastore, one store)
 * and a fourth without: creation is refused while fewer than three journal nodes are live, then
 * places the partitions on a journal; appends through any replica are acknowledged with offsets in
 * order, fetched identically from the leader and the followers; an idempotent producer's retry is
 * answered with the first copy's offsets; a long poll wakes on the commit; the node without a
 * journal port answers NOT_OWNER naming a replica.
 */
class QuorumStreamLogIT {
  @TempDir Path dir;

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  static LoamException failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return (LoamException) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void quorumStreamThroughLog() throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(2);
    InstantSource clock = InstantSource.system();
    List<LoamNode> nodes = new ArrayList<>();
    try (EmbeddedMetastore ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex)) {
      InMemoryObjectStore store = new InMemoryObjectStore(clock);
      try (LoamNode plain =
          LoamNode.builder()
              .nodeId("n4")
              .objectStore(store)
              .metastore(ms)
              .dataDir(dir.resolve("n4"))
              .start()) {
        StreamSpec spec = StreamSpec.standard(2).withClass(Durability.QUORUM);
        get(plain.log().createNamespace("ns"));
        LoamException refused = failure(plain.log().createStream("ns", "q", spec));
        assertThat(refused.kind()).isEqualTo(LoamException.Kind.INVALID);
        assertThat(refused.getMessage())
            .contains("3 live nodes with a journal port", "has 0", "stream=ns/q");
        String[] zones = {"z1", "z2", "z3"};
        for (int i = 1; i <= 3; i++) {
          nodes.add(
              LoamNode.builder()
                  .nodeId("n" + i)
                  .objectStore(store)
                  .metastore(ms)
                  .settings(NodeSettings.defaults().withIdentity("http://n" + i, zones[i - 1], 1))
                  .journalAddress("127.0.0.1:" + JournalNodeHostIT.freePort())
                  .journalDir(dir.resolve("journal-n" + i))
                  .start());
        }
        // Creation waits for the journal endpoints: the nodes advertise them on their first pass.
        JournalNodeHostIT.await(
            () -> {
              try {
                get(nodes.get(0).log().createStream("ns", "q", spec));
                return true;
              } catch (Exception e) {
                return false;
              }
            });
        assertThat(get(nodes.get(0).log().describeStream("ns", "q")).spec().durabilityClass())
            .isEqualTo(Durability.QUORUM);

        // Appends through every replica; each partition's offsets follow in acknowledgement order.
        List<String> expected0 = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          LoamNode n = nodes.get(i % 3);
          AppendResult r =
              get(
                  n.log()
                      .append(
                          "ns",
                          "q",
                          List.of(
                              AppendRecord.of("k" + i, "v" + i).toPartition(0),
                              AppendRecord.of("k" + i, "w" + i).toPartition(1))));
          assertThat(r.duplicate()).isFalse();
          assertThat(r.positions())
              .containsExactly(
                  new AppendResult.RecordPosition(0, i), new AppendResult.RecordPosition(1, i));
          expected0.add("v" + i);
        }
        // Every replica (leader and followers) serves the same committed records in order. Each
        // partition's records are their own journal entry, so a follower may have applied one
        // partition's last append and not yet the other's: wait for both.
        for (LoamNode n : nodes) {
          for (int partition = 0; partition < 2; partition++) {
            int p = partition;
            JournalNodeHostIT.await(
                () -> {
                  try {
                    return get(n.log().fetch("ns", "q", p, 0, 1 << 20, Duration.ZERO))
                            .highWatermark()
                        == 6;
                  } catch (Exception e) {
                    return false;
                  }
                });
          }
          FetchResult f = get(n.log().fetch("ns", "q", 0, 0, 1 << 20, Duration.ZERO));
          assertThat(f.records().stream().map(r -> text(r.value())).toList())
              .containsExactlyElementsOf(expected0);
          assertThat(f.records().stream().map(FetchedRecord::offset).toList())
              .containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
          assertThat(f.nextOffset()).isEqualTo(6);
          FetchResult from3 = get(n.log().fetch("ns", "q", 1, 3, 1 << 20, Duration.ZERO));
          assertThat(from3.records().stream().map(r -> text(r.value())).toList())
              .containsExactly("w3", "w4", "w5");
          BatchFetchResult b = get(n.log().fetchBatches("ns", "q", 0, 0, 1 << 20, Duration.ZERO));
          assertThat(b.batches().remaining()).isPositive();
          assertThat(b.nextOffset()).isEqualTo(6);
          // Past the replica's end: no replica can tell an offset it has not applied yet from
          // one past the partition's end, so none answers out of range: no records, its high
          // watermark, the reader's position kept (it asks again), for records and batches alike.
          FetchResult ahead = get(n.log().fetch("ns", "q", 0, 9, 1 << 20, Duration.ZERO));
          assertThat(ahead.records()).isEmpty();
          assertThat(ahead.nextOffset()).isEqualTo(9);
          assertThat(ahead.highWatermark()).isEqualTo(6);
          BatchFetchResult aheadB =
              get(n.log().fetchBatches("ns", "q", 1, 7, 1 << 20, Duration.ZERO));
          assertThat(aheadB.batches().remaining()).isZero();
          assertThat(aheadB.nextOffset()).isEqualTo(7);
        }

        // An idempotent producer's retry is answered with the first copy's offset.
        ProducerIdentity pid = get(nodes.get(0).log().allocateProducerId());
        List<AppendRecord> batch =
            List.of(AppendRecord.of("p", "once").toPartition(0), AppendRecord.of("p", "twice"));
        batch = List.of(batch.get(0), batch.get(1).toPartition(0));
        AppendResult first = get(nodes.get(1).log().append("ns", "q", batch, pid));
        AppendResult retry = get(nodes.get(2).log().append("ns", "q", batch, pid));
        assertThat(first.duplicate()).isFalse();
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.positions()).isEqualTo(first.positions());
        assertThat(first.positions().get(0).offset()).isEqualTo(6);
        // The next sequence is appended after it; a gap is refused.
        AppendResult next =
            get(
                nodes
                    .get(0)
                    .log()
                    .append(
                        "ns",
                        "q",
                        List.of(AppendRecord.of("p", "third").toPartition(0)),
                        new ProducerIdentity(pid.producerId(), pid.producerEpoch(), 2)));
        assertThat(next.positions().get(0).offset()).isEqualTo(8);
        assertThat(
                failure(
                        nodes
                            .get(0)
                            .log()
                            .append(
                                "ns",
                                "q",
                                List.of(AppendRecord.of("p", "gap").toPartition(0)),
                                new ProducerIdentity(pid.producerId(), pid.producerEpoch(), 9)))
                    .getMessage())
            .containsIgnoringCase("sequence");

        // A long poll at the high watermark wakes on the next commit.
        for (LoamNode n : nodes) {
          JournalNodeHostIT.await(
              () -> {
                try {
                  return get(n.log().fetch("ns", "q", 0, 0, 1 << 20, Duration.ZERO)).highWatermark()
                      == 9;
                } catch (Exception e) {
                  return false;
                }
              });
        }
        long start = System.nanoTime();
        CompletableFuture<FetchResult> poll =
            nodes.get(2).log().fetch("ns", "q", 0, 9, 1 << 20, Duration.ofSeconds(20));
        Thread.sleep(200);
        assertThat(poll).isNotDone();
        get(
            nodes
                .get(0)
                .log()
                .append("ns", "q", List.of(AppendRecord.of("l", "late").toPartition(0))));
        FetchResult woke = get(poll);
        assertThat(woke.records().stream().map(r -> text(r.value())).toList())
            .containsExactly("late");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));

        // The node without a journal port is no replica: it names one to ask.
        LoamException notOwner =
            failure(
                plain.log().append("ns", "q", List.of(AppendRecord.of("x", "y").toPartition(0))));
        assertThat(notOwner).isInstanceOf(NotOwnerException.class);
        assertThat(((NotOwnerException) notOwner).ownerNodeId()).isIn("n1", "n2", "n3");
        assertThat(failure(plain.log().fetch("ns", "q", 0, 0, 1024, Duration.ZERO)))
            .isInstanceOf(NotOwnerException.class);
        // Far past the end with a wait: the fetch waits its whole wait for the replica, then
        // answers nothing, even when an append below the reader's offset wakes it meanwhile.
        long waitStart = System.nanoTime();
        CompletableFuture<FetchResult> farPoll =
            nodes.get(0).log().fetch("ns", "q", 0, 99, 1024, Duration.ofMillis(1500));
        Thread.sleep(300);
        get(
            nodes
                .get(0)
                .log()
                .append("ns", "q", List.of(AppendRecord.of("b", "below").toPartition(0))));
        FetchResult far = get(farPoll);
        assertThat(far.records()).isEmpty();
        assertThat(far.nextOffset()).isEqualTo(99);
        assertThat(Duration.ofNanos(System.nanoTime() - waitStart))
            .isGreaterThanOrEqualTo(Duration.ofMillis(1400));
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }
}
