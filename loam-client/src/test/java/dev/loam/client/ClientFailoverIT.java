package dev.loam.client;

import static dev.loam.client.LoamClient.join;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node a client uses stops in the middle of a run (a 3-node cluster in one JVM, zones z1, z1,
 * z2; the client is in z2): every idempotent send is acknowledged exactly once, a long-poll that
 * was waiting on the stopped node is answered by another, and once the cluster declares the node
 * dead the zone is empty and the client keeps using the other zone.
 */
class ClientFailoverIT {
  @TempDir Path dir;
  ZonedCluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theClientFailsOverWhenItsNodeStopsAndNoSendIsDuplicated() throws Exception {
    cluster = ZonedCluster.start(dir, List.of("z1", "z1", "z2"), Duration.ofSeconds(2));
    List<String> bootstrap = new ArrayList<>();
    cluster.members.forEach(m -> bootstrap.add(m.url()));
    try (LoamClient c =
        LoamClient.builder()
            .bootstrap(bootstrap)
            .zone("z2")
            .refreshInterval(Duration.ofMillis(500))
            .build()) {
      join(c.createStream("default", StreamSpec.of("events", 1)));
      IdempotentProducer p = c.idempotentProducer();
      for (int i = 0; i < 20; i++) {
        join(p.send("default", "events", 0, List.of(ProduceRecord.of("k", "r" + i))));
      }
      assertThat(c.currentNode()).isEqualTo(cluster.member(2).url());

      // A long-poll waiting at the high watermark on the z2 node.
      CompletableFuture<FetchResult> poll =
          c.fetch(
              "default",
              "events",
              0,
              20,
              FetchOptions.defaults().withMaxWait(Duration.ofSeconds(20)));
      ZonedCluster.await(
          () -> cluster.member(2).http.longPollsInFlight() == 1,
          Duration.ofSeconds(10),
          "the long-poll waits on the z2 node");
      // Sends keep going while the node stops.
      CompletableFuture<Void> sends =
          CompletableFuture.runAsync(
              () -> {
                for (int i = 20; i < 60; i++) {
                  join(p.send("default", "events", 0, List.of(ProduceRecord.of("k", "r" + i))));
                }
              });
      cluster.stop(2);

      sends.get(60, TimeUnit.SECONDS);
      FetchResult woken = poll.get(30, TimeUnit.SECONDS);
      assertThat(woken.records()).isNotEmpty();
      assertThat(woken.records().get(0).offset()).isEqualTo(20);
      assertThat(woken.records().get(0).valueAsString()).isEqualTo("r20");
      assertThat(c.currentNode()).isIn(cluster.member(0).url(), cluster.member(1).url());

      // Every send appended exactly once, in order.
      List<String> values = new ArrayList<>();
      long offset = 0;
      while (offset < 60) {
        FetchResult f = join(c.fetch("default", "events", 0, offset, FetchOptions.defaults()));
        f.records().forEach(r -> values.add(r.valueAsString()));
        offset = f.nextOffset();
      }
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        expected.add("r" + i);
      }
      assertThat(values).containsExactlyElementsOf(expected);
      assertThat(join(c.offset("default", "events", 0, OffsetSpec.latest()))).isEqualTo(60);

      // Once the survivors declare it dead, z2 has no node: the client lists none there and
      // keeps working through z1.
      ZonedCluster.await(
          () -> join(c.nodes("z2")).isEmpty(), Duration.ofSeconds(30), "z2 has no live node");
      assertThat(join(c.refreshNodes())).extracting(NodeInfo::zone).containsExactly("z1", "z1");
      ProduceResult after =
          join(p.send("default", "events", 0, List.of(ProduceRecord.of("k", "after"))));
      assertThat(after.positions()).containsExactly(new ProduceResult.Position(0, 60));
      assertThat(c.currentNode()).isIn(cluster.member(0).url(), cluster.member(1).url());
    }
  }
}
