package dev.loam.journal.place;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.journal.ratis.JournalSettings;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.wal.DurabilityClass;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * From metastore placement to a serving journal: three nodes registered with journal endpoints, a
 * quorum stream's partitions assigned to a journal placed on them; each node's driver hosts the
 * journal, the leader's hosts the partitions, and appends through any node are acknowledged.
 */
class JournalPlacementDriverIT {
  @TempDir Path dir;

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  @Test
  void placedPartitionsBecomeAppendableOnTheJournal() throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(4);
    long t = Batches.T0;
    InstantSource clock = InstantSource.fixed(java.time.Instant.ofEpochMilli(t));
    List<JournalServer> servers = new ArrayList<>();
    try (EmbeddedMetastore ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex)) {
      String[] zones = {"z1", "z2", "z3"};
      for (int i = 1; i <= 3; i++) {
        String id = "n" + i;
        Origin o = new Origin(id, 1, t);
        assertThat(get(ms.propose(new RegisterNode(o, "http://" + id, 1, zones[i - 1]))).outcome())
            .isInstanceOf(Outcome.NodeRegistered.class);
        String addr = "127.0.0.1:" + freePort();
        get(ms.propose(new SetNodeEndpoint(o, JournalPlacementDriver.ENDPOINT, addr)));
        servers.add(JournalServer.start(JournalSettings.defaults(id, addr, dir.resolve(id)), ex));
      }
      Origin o = new Origin("n1", 1, t);
      Outcome created =
          get(ms.propose(
                  new CreateStream(
                      o,
                      "default",
                      "q",
                      new StreamConfig(
                          2, DurabilityClass.QUORUM, -1, -1, StreamConfig.CleanupPolicy.DELETE))))
              .outcome();
      long stream = ((Outcome.StreamCreated) created).stream().id();
      Applied placed = get(ms.propose(new PlaceJournal(o, "j1", 3)));
      assertThat(((Outcome.JournalPlaced) placed.outcome()).replicas())
          .containsExactlyInAnyOrder("n1", "n2", "n3");
      get(ms.propose(new AssignJournalPartition(o, stream, 0)));
      get(ms.propose(new AssignJournalPartition(o, stream, 1)));

      List<JournalPlacementDriver> drivers = new ArrayList<>();
      for (JournalServer s : servers) {
        drivers.add(new JournalPlacementDriver(ms, s));
      }
      // Every node hosts j1 on its first pass; passes go on until the leader has hosted both
      // partitions (a leader is elected once a majority hosts the journal).
      int hostedPartitions = 0;
      for (int pass = 0; pass < 200 && hostedPartitions < 2; pass++) {
        for (JournalPlacementDriver d : drivers) {
          JournalPlacementDriver.Pass p = get(d.poll());
          assertThat(p.hostedJournals()).containsExactly("j1");
          for (JournalResult r : p.hostResults()) {
            if (r instanceof JournalResult.Hosted) {
              hostedPartitions++;
            }
          }
        }
        if (hostedPartitions < 2) {
          synchronized (this) {
            wait(20); // an election is under way: give it a moment, bounded by the pass count
          }
        }
      }
      assertThat(hostedPartitions).isEqualTo(2);
      // A further pass changes nothing: hosting and HOST are idempotent.
      for (JournalPlacementDriver d : drivers) {
        assertThat(get(d.poll()).hostResults()).isEmpty();
      }
      for (int p = 0; p < 2; p++) {
        JournalResult r =
            get(
                servers
                    .get(2)
                    .propose("j1", new JournalEntry.Append(stream, p, Batches.plain("q" + p, 2))));
        assertThat(r).isEqualTo(new JournalResult.Appended(0, 1));
      }
    } finally {
      for (JournalServer s : servers) {
        s.close();
      }
      ex.shutdownNow();
    }
  }
}
