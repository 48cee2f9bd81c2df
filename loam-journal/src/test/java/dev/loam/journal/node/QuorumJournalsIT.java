package dev.loam.journal.node;

import static dev.loam.journal.node.QuorumStreamLogIT.get;
import static dev.loam.journal.node.QuorumStreamLogIT.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.quorum.QuorumHost;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quorum partitions spread over more than one journal (docs/design/quorum.md "Placement"): four
 * nodes with journal ports hold two journals that together cover every node; a stream's partitions
 * alternate between them; appends through any node and reads from every replica work on each
 * journal, each with its own offsets.
 */
class QuorumJournalsIT {
  @TempDir Path dir;

  @Test
  void fourJournalNodesSpreadPartitionsOverTwoJournals() throws Exception {
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
        // The family's size follows the journal nodes the metastore knows: wait for all four.
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
                .createStream("ns", "q", StreamSpec.standard(4).withClass(Durability.QUORUM)));
        long streamId = get(nodes.get(0).log().describeStream("ns", "q")).id();

        SortedMap<String, List<String>> journals = ms.read(r -> r.journals());
        assertThat(journals).containsOnlyKeys("quorum-1", "quorum-2");
        Set<String> covered = new HashSet<>();
        journals.values().forEach(covered::addAll);
        assertThat(covered).containsExactlyInAnyOrder("n1", "n2", "n3", "n4");
        List<String> byPartition = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
          int partition = p;
          byPartition.add(ms.read(r -> r.journalOf(streamId, partition)).orElseThrow());
        }
        assertThat(byPartition).containsExactly("quorum-1", "quorum-2", "quorum-1", "quorum-2");

        // Appends through every node (a node that is no replica of a partition's journal answers
        // NOT_OWNER, so each append goes through one of the partition's replicas).
        for (int i = 0; i < 5; i++) {
          for (int p = 0; p < 4; p++) {
            LoamNode via = replica(nodes, journals.get(byPartition.get(p)), i);
            AppendResult r =
                get(
                    via.log()
                        .append(
                            "ns",
                            "q",
                            List.of(AppendRecord.of("k", "p" + p + "-" + i).toPartition(p))));
            assertThat(r.positions()).containsExactly(new AppendResult.RecordPosition(p, i));
          }
        }
        // Every replica of each journal serves its partitions' records in order.
        for (int p = 0; p < 4; p++) {
          int partition = p;
          for (String id : journals.get(byPartition.get(p))) {
            LoamNode n = nodes.get(Integer.parseInt(id.substring(1)) - 1);
            JournalNodeHostIT.await(() -> highWatermark(n, partition) == 5);
            FetchResult f = get(n.log().fetch("ns", "q", partition, 0, 1 << 20, Duration.ZERO));
            assertThat(f.records().stream().map(r -> text(r.value())).toList())
                .as("partition %d on %s", partition, id)
                .containsExactly(
                    "p" + p + "-0", "p" + p + "-1", "p" + p + "-2", "p" + p + "-3", "p" + p + "-4");
          }
        }
        // Each partition's leader is a replica of its own journal.
        for (int p = 0; p < 4; p++) {
          List<String> replicas = journals.get(byPartition.get(p));
          LoamNode n = replica(nodes, replicas, 0);
          assertThat(n.log().partitionLeader("ns", "q", p)).get().isIn(replicas);
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

  private static long highWatermark(LoamNode n, int partition) {
    try {
      return get(n.log().fetch("ns", "q", partition, 0, 1 << 20, Duration.ZERO)).highWatermark();
    } catch (Exception e) {
      return -1;
    }
  }

  /** The {@code i}-th replica (cyclically) of a journal, as a node. */
  private static LoamNode replica(List<LoamNode> nodes, List<String> replicas, int i) {
    String id = replicas.get(i % replicas.size());
    return nodes.get(Integer.parseInt(id.substring(1)) - 1);
  }
}
