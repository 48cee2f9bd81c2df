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
import dev.loam.error.LoamException;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quorum stream's placement hint moves its journal's leader (docs/design/quorum.md "Leader
 * transfer"): with the hint {@code z3} the replica in z3 becomes the leader; when leadership is
 * taken away from it, the new leader's placement pass hands it back. Appends acknowledged across
 * those transfers are all read back, in acknowledgement order, each exactly once. With the hint
 * naming a node, that node leads; when it dies appends go on under another leader, and when it
 * comes back it leads again.
 */
class QuorumLeaderHintIT {
  @TempDir Path dir;

  @Test
  void theLeaderFollowsTheHintAndAppendsAcrossTransfersAreKeptOnce() throws Exception {
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
      try {
        get(nodes.get(0).log().createNamespace("ns"));
        LoamException plain =
            QuorumStreamLogIT.failure(
                nodes
                    .get(0)
                    .log()
                    .createStream("ns", "s", StreamSpec.standard(1).withPlacementHint("z3")));
        assertThat(plain.kind()).isEqualTo(LoamException.Kind.INVALID);
        assertThat(plain.getMessage()).contains("quorum streams only", "hint=z3");

        StreamSpec spec =
            StreamSpec.standard(1).withClass(Durability.QUORUM).withPlacementHint("z3");
        JournalNodeHostIT.await(() -> created(nodes.get(0), spec));
        long streamId = streamId(nodes.get(0));
        String journal = ms.read(r -> r.journalOf(streamId, 0)).orElseThrow();
        java.util.Optional<String> hint = ms.read(r -> r.journalLeaderHint(journal));
        assertThat(hint).contains("z3");
        JournalServer n3 = QuorumSealIT.server(nodes.get(2));
        JournalNodeHostIT.await(() -> n3.isLeader(journal));

        // A producer appends one record at a time through n1 while leadership moves.
        AtomicBoolean stop = new AtomicBoolean();
        Map<Long, String> acked = new ConcurrentHashMap<>();
        List<String> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        Future<?> producer =
            ex.submit(
                () -> {
                  for (int i = 0; !stop.get(); i++) {
                    String v = "v" + i;
                    try {
                      AppendResult r =
                          get(
                              nodes
                                  .get(0)
                                  .log()
                                  .append("ns", "q", List.of(AppendRecord.of("k", v))));
                      acked.put(r.positions().get(0).offset(), v);
                    } catch (Exception e) {
                      StringBuilder chain = new StringBuilder(v);
                      for (Throwable t = e; t != null; t = t.getCause()) {
                        chain.append(" <- ").append(t);
                      }
                      failed.add(chain.toString());
                    }
                  }
                  return null;
                });
        for (int round = 0; round < 2; round++) {
          int before = acked.size();
          JournalNodeHostIT.await(() -> acked.size() > before + 20);
          // Take leadership away from the hinted replica: the new leader's pass hands it back.
          String away = round == 0 ? "n1" : "n2";
          JournalNodeHostIT.await(() -> transferred(n3, journal, away));
          JournalServer other = QuorumSealIT.server(nodes.get(round));
          assertThat(other.leader(journal)).contains(away);
          JournalNodeHostIT.await(() -> n3.isLeader(journal));
        }
        int last = acked.size();
        JournalNodeHostIT.await(() -> acked.size() > last + 20);
        stop.set(true);
        producer.get();

        assertThat(failed).as("appends that failed across the transfers").isEmpty();
        long end = acked.keySet().stream().mapToLong(Long::longValue).max().orElseThrow() + 1;
        assertThat(acked).hasSize((int) end); // offsets 0..end-1, one acknowledgement each
        LoamNode reader = nodes.get(1);
        JournalNodeHostIT.await(() -> highWatermark(reader) == end);
        List<FetchedRecord> all = new ArrayList<>();
        long next = 0;
        while (next < end) {
          FetchResult f = get(reader.log().fetch("ns", "q", 0, next, 1 << 20, Duration.ZERO));
          all.addAll(f.records());
          next = f.nextOffset();
        }
        assertThat(all).hasSize((int) end);
        for (FetchedRecord r : all) {
          assertThat(text(r.value())).as("offset %d", r.offset()).isEqualTo(acked.get(r.offset()));
        }
        // In acknowledgement order: the producer's i-th acknowledged record is v<i>.
        for (int i = 0; i < all.size(); i++) {
          assertThat(text(all.get(i).value())).isEqualTo("v" + i);
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

  @Test
  void afterTheHintedLeaderDiesAndComesBackItLeadsAgain() throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(3);
    InstantSource clock = InstantSource.system();
    List<LoamNode> nodes = new ArrayList<>();
    int[] ports = new int[3];
    try (EmbeddedMetastore ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex)) {
      InMemoryObjectStore store = new InMemoryObjectStore(clock);
      for (int i = 0; i < 3; i++) {
        ports[i] = JournalNodeHostIT.freePort();
        nodes.add(node(i + 1, ms, store, ports[i]));
      }
      try {
        get(nodes.get(0).log().createNamespace("ns"));
        StreamSpec spec =
            StreamSpec.standard(1).withClass(Durability.QUORUM).withPlacementHint("n3");
        JournalNodeHostIT.await(() -> created(nodes.get(0), spec));
        long streamId = streamId(nodes.get(0));
        String journal = ms.read(r -> r.journalOf(streamId, 0)).orElseThrow();
        JournalNodeHostIT.await(() -> QuorumSealIT.server(nodes.get(2)).isLeader(journal));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          get(nodes.get(0).log().append("ns", "q", List.of(AppendRecord.of("k", "a" + i))));
          expected.add("a" + i);
        }
        // The hinted leader dies: another replica is elected, and appends go on there (no
        // transfer is attempted to the dead node, which the metastore still counts as live).
        nodes.get(2).close();
        JournalNodeHostIT.await(
            () ->
                QuorumSealIT.server(nodes.get(0)).isLeader(journal)
                    || QuorumSealIT.server(nodes.get(1)).isLeader(journal));
        for (int i = 0; i < 5; i++) {
          get(nodes.get(0).log().append("ns", "q", List.of(AppendRecord.of("k", "b" + i))));
          expected.add("b" + i);
        }
        // It comes back (same id, port and journal directory): the leader hands over to it.
        nodes.set(2, node(3, ms, store, ports[2]));
        JournalNodeHostIT.await(() -> QuorumSealIT.server(nodes.get(2)).isLeader(journal));
        for (int i = 0; i < 5; i++) {
          get(nodes.get(1).log().append("ns", "q", List.of(AppendRecord.of("k", "c" + i))));
          expected.add("c" + i);
        }
        LoamNode reader = nodes.get(2);
        JournalNodeHostIT.await(() -> highWatermark(reader) == expected.size());
        FetchResult f = get(reader.log().fetch("ns", "q", 0, 0, 1 << 20, Duration.ZERO));
        assertThat(f.records().stream().map(r -> text(r.value())).toList())
            .containsExactlyElementsOf(expected);
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }

  private LoamNode node(int i, EmbeddedMetastore ms, InMemoryObjectStore store, int port) {
    String[] zones = {"z1", "z2", "z3"};
    return LoamNode.builder()
        .nodeId("n" + i)
        .objectStore(store)
        .metastore(ms)
        .settings(NodeSettings.defaults().withIdentity("http://n" + i, zones[i - 1], 1))
        .journalAddress("127.0.0.1:" + port)
        .journalDir(dir.resolve("journal-n" + i))
        .start();
  }

  /** One attempt to move leadership (Ratis refuses one while the last is still settling). */
  private static boolean transferred(JournalServer s, String journal, String to) {
    try {
      get(s.transferLeadership(journal, to, Duration.ofSeconds(5)));
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static boolean created(LoamNode n, StreamSpec spec) {
    try {
      get(n.log().createStream("ns", "q", spec));
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static long streamId(LoamNode n) throws Exception {
    return get(n.log().describeStream("ns", "q")).id();
  }

  private static long highWatermark(LoamNode n) {
    try {
      return get(n.log().fetch("ns", "q", 0, 0, 1, Duration.ZERO)).highWatermark();
    } catch (Exception e) {
      return -1;
    }
  }
}
