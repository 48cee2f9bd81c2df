package dev.loam.journal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.journal.place.JournalPlacementDriver;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoamNode hosts journals: three nodes started with journal ports (on one metastore and one store)
 * advertise their journal endpoints; a journal the metastore places on them is hosted by every
 * node's placement agent, and a leader is elected; a node started without a journal port has no
 * journal host and advertises no journal endpoint.
 */
class JournalNodeHostIT {
  @TempDir Path dir;

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void nodesWithAJournalPortHostThePlacedJournals() throws Exception {
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
      String[] zones = {"z1", "z2", "z3"};
      for (int i = 1; i <= 3; i++) {
        nodes.add(
            LoamNode.builder()
                .nodeId("n" + i)
                .objectStore(store)
                .metastore(ms)
                .settings(NodeSettings.defaults().withIdentity("http://n" + i, zones[i - 1], 1))
                .journalAddress("127.0.0.1:" + freePort())
                .journalDir(dir.resolve("journal-n" + i))
                .start());
      }
      try (LoamNode plain =
          LoamNode.builder()
              .nodeId("n4")
              .objectStore(store)
              .metastore(ms)
              .dataDir(dir.resolve("n4"))
              .start()) {
        assertThat(plain.quorumHost()).isEmpty();
        // Each journal node advertises its address; the plain node advertises none.
        await(
            () ->
                ms.read(
                    r ->
                        nodes.stream()
                            .allMatch(
                                n ->
                                    n.quorumHost()
                                        .orElseThrow()
                                        .address()
                                        .equals(
                                            r.node(n.nodeId())
                                                .map(NodeInfo::endpoints)
                                                .map(e -> e.get(JournalPlacementDriver.ENDPOINT))
                                                .orElse(null)))));
        boolean plainAdvertised =
            ms.read(
                r ->
                    r.node("n4")
                        .map(n -> n.endpoints().containsKey(JournalPlacementDriver.ENDPOINT))
                        .orElse(false));
        assertThat(plainAdvertised).isFalse();
        LoamNode n1 = nodes.get(0);
        Outcome placed =
            ms.propose(new PlaceJournal(new Origin("n1", n1.epoch(), clock.millis()), "j1", 3))
                .get(10, TimeUnit.SECONDS)
                .outcome();
        assertThat(((Outcome.JournalPlaced) placed).replicas())
            .containsExactlyInAnyOrder("n1", "n2", "n3");
        // Every node's agent hosts the journal on its own, and the group elects a leader.
        await(
            () ->
                nodes.stream()
                    .allMatch(n -> n.quorumHost().orElseThrow().hostedJournals().contains("j1")));
        await(
            () ->
                nodes.stream()
                        .filter(
                            n ->
                                ((JournalNodeHost) n.quorumHost().orElseThrow())
                                    .server()
                                    .isLeader("j1"))
                        .count()
                    == 1);
        for (LoamNode n : nodes) {
          n.quorumHost().orElseThrow().placeNow().get(10, TimeUnit.SECONDS);
          assertThat(n.quorumHost().orElseThrow().hostedJournals()).containsExactly("j1");
        }
      } finally {
        // Before the metastore closes: a node's close waits for its last commits.
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }

  static void await(java.util.function.BooleanSupplier cond) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!cond.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 20 s").isLessThan(end);
      Thread.sleep(20);
    }
  }
}
