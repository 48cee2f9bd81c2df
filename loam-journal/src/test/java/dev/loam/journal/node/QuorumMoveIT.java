package dev.loam.journal.node;

import static dev.loam.journal.node.QuorumStreamLogIT.get;
import static dev.loam.journal.node.QuorumStreamLogIT.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.quorum.QuorumHost;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moving a quorum partition between journals (docs/design/quorum.md "Moving a partition between
 * journals"): four journal nodes hold two journals; the partition moves from one to the other and
 * back, the second time under a producer appending all along. Every acknowledged record reads back
 * once, in acknowledgement order, the older ones from the segments the source sealed (nothing is
 * copied), and appends go on at the sealed end on the target.
 */
class QuorumMoveIT {
  @TempDir Path dir;

  @Test
  void aPartitionMovesBetweenJournalsWithoutLossOrDuplicate() throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(3);
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
      String[] zones = {"z1", "z2", "z3", "z1"};
      for (int i = 1; i <= 4; i++) {
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
      try {
        JournalNodeHostIT.await(
            () ->
                ms.read(
                        r ->
                            r.nodes().stream()
                                .map(NodeInfo::endpoints)
                                .filter(e -> e.containsKey(QuorumHost.ENDPOINT))
                                .count())
                    == 4);
        get(nodes.get(0).log().createNamespace("ns"));
        get(
            nodes
                .get(0)
                .log()
                .createStream("ns", "q", StreamSpec.standard(1).withClass(Durability.QUORUM)));
        long streamId = get(nodes.get(0).log().describeStream("ns", "q")).id();
        Map<String, List<String>> journals = ms.read(r -> r.journals());
        assertThat(journals).containsOnlyKeys("quorum-1", "quorum-2");
        assertThat(journalOf(ms, streamId)).contains("quorum-1");

        // A quiet move: ten records, the move, ten more on the target.
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          append(replica(nodes, journals.get("quorum-1")), "a" + i);
          expected.add("a" + i);
        }
        begin(ms, streamId, "quorum-1", "quorum-2");
        JournalNodeHostIT.await(() -> journalOf(ms, streamId).equals(Optional.of("quorum-2")));
        assertThat(ms.read(r -> r.partition(streamId, 0)).orElseThrow().highWatermark())
            .as("the offset index ends at the sealed end")
            .isEqualTo(10);
        LoamNode onTarget = replica(nodes, journals.get("quorum-2"));
        JournalNodeHostIT.await(() -> appended(onTarget, "b0"));
        expected.add("b0");
        for (int i = 1; i < 10; i++) {
          append(onTarget, "b" + i);
          expected.add("b" + i);
        }
        for (String id : journals.get("quorum-2")) {
          assertThat(readAll(node(nodes, id), expected.size())).as("on %s", id).isEqualTo(expected);
        }

        // A move back under a producer appending all along through a node that replicates both
        // journals: appends refused while the partition moves are sent again.
        String both =
            journals.get("quorum-1").stream()
                .filter(journals.get("quorum-2")::contains)
                .findFirst()
                .orElseThrow();
        LoamNode via = node(nodes, both);
        AtomicBoolean stop = new AtomicBoolean();
        Map<Long, String> acked = new ConcurrentHashMap<>();
        Future<?> producer =
            ex.submit(
                () -> {
                  for (int i = 0; !stop.get(); i++) {
                    String v = "c" + i;
                    for (int attempt = 0; ; attempt++) {
                      try {
                        AppendResult r = get(via.log().append("ns", "q", List.of(record(v))));
                        acked.put(r.positions().get(0).offset(), v);
                        break;
                      } catch (Exception e) {
                        // Refused (the source released it, or the target hosts it not yet): not
                        // appended, so sending it again cannot duplicate it.
                        assertThat(attempt).as("attempts of %s: %s", v, e).isLessThan(200);
                        Thread.sleep(10);
                      }
                    }
                  }
                  return null;
                });
        JournalNodeHostIT.await(() -> acked.size() > 20);
        begin(ms, streamId, "quorum-2", "quorum-1");
        JournalNodeHostIT.await(() -> journalOf(ms, streamId).equals(Optional.of("quorum-1")));
        int atFlip = acked.size();
        JournalNodeHostIT.await(() -> acked.size() > atFlip + 20);
        stop.set(true);
        producer.get();

        long end = 20 + acked.size();
        for (long o = 20; o < end; o++) {
          assertThat(acked).as("an acknowledgement for offset %d", o).containsKey(o);
        }
        List<String> all = new ArrayList<>(expected);
        for (int i = 0; i < acked.size(); i++) {
          all.add("c" + i); // one at a time: the i-th acknowledged record is c<i>
        }
        for (String id : journals.get("quorum-1")) {
          LoamNode n = node(nodes, id);
          List<String> got = readAll(n, all.size());
          assertThat(got).as("on %s", id).isEqualTo(all);
        }
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }

  private static AppendRecord record(String v) {
    return AppendRecord.of("k", v).toPartition(0);
  }

  private static void append(LoamNode n, String v) throws Exception {
    get(n.log().append("ns", "q", List.of(record(v))));
  }

  private static boolean appended(LoamNode n, String v) {
    try {
      append(n, v);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static void begin(EmbeddedMetastore ms, long streamId, String from, String to)
      throws Exception {
    long epoch = ms.read(r -> r.node("n1")).orElseThrow().epoch();
    Outcome o =
        get(ms.propose(
                new MoveJournalPartition(
                    new Origin("n1", epoch, System.currentTimeMillis()),
                    streamId,
                    0,
                    from,
                    to,
                    MoveJournalPartition.BEGIN)))
            .outcome();
    assertThat(o).isInstanceOf(Outcome.JournalPlaced.class);
  }

  private static Optional<String> journalOf(EmbeddedMetastore ms, long streamId) {
    return ms.read(r -> r.journalOf(streamId, 0));
  }

  /** Every record from offset 0, once the replica's high watermark holds {@code count}. */
  private static List<String> readAll(LoamNode n, int count) throws Exception {
    JournalNodeHostIT.await(() -> highWatermark(n) == count);
    List<String> out = new ArrayList<>();
    long next = 0;
    while (next < count) {
      FetchResult f = get(n.log().fetch("ns", "q", 0, next, 1 << 20, Duration.ZERO));
      for (FetchedRecord r : f.records()) {
        assertThat(r.offset()).isEqualTo(out.size());
        out.add(text(r.value()));
      }
      next = f.nextOffset();
    }
    return out;
  }

  private static long highWatermark(LoamNode n) {
    try {
      return get(n.log().fetch("ns", "q", 0, 0, 1, Duration.ZERO)).highWatermark();
    } catch (Exception e) {
      return -1;
    }
  }

  private static LoamNode node(List<LoamNode> nodes, String id) {
    return nodes.get(Integer.parseInt(id.substring(1)) - 1);
  }

  private static LoamNode replica(List<LoamNode> nodes, List<String> replicas) {
    return node(nodes, replicas.get(0));
  }
}
