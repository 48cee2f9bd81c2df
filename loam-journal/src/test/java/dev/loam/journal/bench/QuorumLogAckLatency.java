package dev.loam.journal.bench;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.quorum.QuorumStreams;
import dev.loam.journal.node.JournalNodeHost;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Quorum acknowledgement latency through {@code Log} on three in-JVM nodes with journal ports
 * (loopback, one embedded metastore, 1 KiB records, one append in flight), through the journal
 * leader's node and through a follower's (which forwards to the leader), in the same run as {@link
 * JournalAckLatency}'s raw Ratis and bare journal. Not a test: run by hand
 * (docs/operations/performance.md "Quorum class").
 *
 * <pre>
 * mvn -o -pl loam-journal test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * java -cp loam-journal/target/test-classes:loam-journal/target/classes:$(cat loam-journal/cp.txt) \
 *   dev.loam.journal.bench.QuorumLogAckLatency [appends]
 * </pre>
 */
public final class QuorumLogAckLatency {
  private QuorumLogAckLatency() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    Path dir = Files.createTempDirectory("quorum-log-bench");
    System.out.printf("appends=%d inFlight=1 batch=1 record of 1 KiB%n", n);
    JournalAckLatency.rawRatis(dir.resolve("raw"), n, 1);
    JournalAckLatency.quorum(dir.resolve("journal"), n, 1);
    throughLog(dir.resolve("log"), n);
    JournalAckLatency.rawRatis(dir.resolve("raw2"), n, 1);
    System.exit(0);
  }

  static void throughLog(Path dir, int n) throws Exception {
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
                .journalAddress("127.0.0.1:" + JournalAckLatency.freePort())
                .journalDir(dir.resolve("journal-n" + i))
                .start());
      }
      nodes.get(0).log().createNamespace("ns").get(10, TimeUnit.SECONDS);
      while (true) {
        try {
          nodes
              .get(0)
              .log()
              .createStream("ns", "q", StreamSpec.standard(1).withClass(Durability.QUORUM))
              .get(10, TimeUnit.SECONDS);
          break;
        } catch (Exception e) {
          Thread.sleep(50); // until the journal endpoints are advertised
        }
      }
      nodes
          .get(0)
          .log()
          .append("ns", "q", List.of(AppendRecord.of("w", "w")))
          .get(30, TimeUnit.SECONDS);
      LoamNode leader = null;
      LoamNode follower = null;
      for (LoamNode node : nodes) {
        if (((JournalNodeHost) node.quorumHost().orElseThrow())
            .server()
            .isLeader(QuorumStreams.JOURNAL)) {
          leader = node;
        } else {
          follower = node;
        }
      }
      if (leader == null) {
        throw new IllegalStateException("no journal leader");
      }
      String value = "v".repeat(1024);
      for (LoamNode via : new LoamNode[] {leader, follower}) {
        LoamNode v = via;
        long[] lat =
            JournalAckLatency.run(
                n,
                1,
                () ->
                    v.log()
                        .append("ns", "q", List.of(AppendRecord.of(null, value)))
                        .thenApply(r -> null));
        JournalAckLatency.report(
            "quorum through Log via the " + (v == leader ? "leader" : "follower"), lat);
      }
    } finally {
      for (LoamNode node : nodes) {
        node.close();
      }
      ex.shutdownNow();
    }
  }
}
