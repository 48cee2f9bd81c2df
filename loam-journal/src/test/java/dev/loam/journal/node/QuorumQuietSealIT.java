package dev.loam.journal.node;

import static dev.loam.journal.node.QuorumStreamLogIT.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
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
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quiet-seal interval as a node setting ({@code LoamNode.Builder#journalQuietSealInterval}):
 * with 1 s, a few records far below the size threshold reach a segment in the metastore's offset
 * index within seconds, and again after the next few; with the default of 10 minutes they would
 * stay in the journal's tail for the length of this test.
 */
class QuorumQuietSealIT {
  @TempDir Path dir;

  @Test
  void aQuietTailIsSealedAfterTheConfiguredInterval() throws Exception {
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
      for (int i = 1; i <= 3; i++) {
        nodes.add(
            LoamNode.builder()
                .nodeId("n" + i)
                .objectStore(store)
                .metastore(ms)
                .settings(NodeSettings.defaults().withIdentity("http://n" + i, "z" + i, 1))
                .journalAddress("127.0.0.1:" + JournalNodeHostIT.freePort())
                .journalDir(dir.resolve("journal-n" + i))
                .journalQuietSealInterval(Duration.ofSeconds(1))
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
                    == 3);
        get(nodes.get(0).log().createNamespace("ns"));
        get(
            nodes
                .get(0)
                .log()
                .createStream("ns", "q", StreamSpec.standard(1).withClass(Durability.QUORUM)));
        long streamId = get(nodes.get(0).log().describeStream("ns", "q")).id();
        for (int i = 0; i < 3; i++) {
          append(nodes.get(0), "a" + i);
        }
        // A few bytes against a size threshold of 16 MiB: only the quiet seal writes a segment.
        JournalNodeHostIT.await(() -> sealedEnd(ms, streamId) == 3);
        append(nodes.get(1), "b0");
        append(nodes.get(1), "b1");
        JournalNodeHostIT.await(() -> sealedEnd(ms, streamId) == 5);
        List<dev.loam.meta.command.IndexEntry> entries =
            ms.read(r -> r.indexEntries(streamId, 0, 0, 100));
        assertThat(entries).as("one segment per quiet interval").hasSize(2);
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }

  /** The end of the partition's offset index: the journal's sealed offset. */
  private static long sealedEnd(EmbeddedMetastore ms, long streamId) {
    return ms.read(r -> r.partition(streamId, 0)).map(p -> p.highWatermark()).orElse(-1L);
  }

  private static void append(LoamNode n, String v) throws Exception {
    get(n.log().append("ns", "q", List.of(AppendRecord.of("k", v).toPartition(0))));
  }
}
