package com.example.orders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.StreamSpec;
import dev.loam.test.LoamCluster;
import dev.loam.test.LoamTestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A host's integration test: three Loam nodes from the @LoamCluster extension, orders appended
 * through every node while one node is killed, and every acknowledged order read back once. After
 * the class, no thread the cluster started is left running.
 */
class OrdersClusterIT {
  private static final int PARTITIONS = 3;
  private static Set<Thread> before;

  @BeforeAll
  static void rememberThreads() {
    before = new HashSet<>(Thread.getAllStackTraces().keySet());
  }

  @Test
  @LoamCluster(nodes = 3)
  void noAcknowledgedOrderIsLostWhenANodeDies(LoamTestCluster cluster) {
    cluster.log(0).createNamespace("shop").join();
    cluster.log(0).createStream("shop", "orders", StreamSpec.standard(PARTITIONS)).join();
    cluster.awaitVisible("shop", "orders");

    Set<String> acked = ConcurrentHashMap.newKeySet();
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    int victim = cluster.metastoreLeader();
    for (int round = 0; round < 40; round++) {
      if (round == 20) {
        cluster.kill(victim);
      }
      for (int node : cluster.running()) {
        String order = "order-" + round + "-" + node;
        inFlight.add(
            cluster
                .log(node)
                .append("shop", "orders", List.of(AppendRecord.of(order, order)))
                .thenAccept(r -> acked.add(order)));
      }
    }
    // Appends buffered on the victim when it died fail: they were never acknowledged.
    inFlight.forEach(f -> f.exceptionally(e -> null).join());
    // The two survivors keep acknowledging through the failover.
    assertTrue(acked.size() >= 40, "acknowledged " + acked.size());

    int reader = cluster.running().get(0);
    assertNotEquals(victim, reader);
    Map<String, Integer> seen = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      long offset = 0;
      while (true) {
        FetchResult r =
            cluster.log(reader).fetch("shop", "orders", p, offset, 1 << 20, Duration.ZERO).join();
        if (r.records().isEmpty()) {
          break;
        }
        for (FetchedRecord rec : r.records()) {
          seen.merge(rec.valueAsString(), 1, Integer::sum);
        }
        offset = r.nextOffset();
      }
    }
    Set<String> lost =
        acked.stream().filter(o -> !seen.containsKey(o)).collect(Collectors.toSet());
    assertEquals(Set.of(), lost, "acknowledged orders missing after the kill");
    seen.forEach((order, n) -> assertEquals(1, n, "read more than once: " + order));

    // The killed node comes back from its directory and reads the same orders.
    cluster.restart(victim);
    AppendResult last =
        cluster.log(victim).append("shop", "orders", List.of(AppendRecord.of("k", "after"))).join();
    cluster.awaitReplicated(last.consistencyToken());
  }

  @AfterAll
  static void nothingLeftRunning() {
    List<String> left =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && !before.contains(t))
            .filter(
                t ->
                    !t.isDaemon()
                        || t.getName().matches("(?i).*(loam|ratis|grpc|raft|timer|netty|n\\d+@).*"))
            .map(t -> t.getName() + (t.isDaemon() ? " (daemon)" : ""))
            .sorted()
            .collect(Collectors.toList());
    assertEquals(List.of(), left, "threads left after the cluster closed");
  }
}
