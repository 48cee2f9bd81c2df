package dev.loam.bench.engine;

import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisFixtures;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.meta.ratis.RatisTestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Measures the Ratis metastore for docs/design/metastore-ratis.md: failover time (leader kill to
 * the next successful commit), commit latency with one serial proposer, and proposals/s at
 * saturation; 3 voters in one JVM over loopback, production default settings. A main(), not a test:
 *
 * <pre>
 * mvn -B -q -pl loam-meta test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp loam-meta/target/test-classes:loam-meta/target/classes:$(cat loam-meta/target/cp.txt) \
 *     dev.loam.meta.ratis.RatisMetastoreBench [failoverRuns=10] [latencyCommits=2000] \
 *     [saturationSeconds=10] [inFlight=64]
 * </pre>
 */
public final class RatisMetastoreBench {
  private static final InstantSource CLOCK = InstantSource.system();

  private RatisMetastoreBench() {}

  public static void main(String[] args) throws Exception {
    int failoverRuns = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int latencyCommits = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int saturationSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : 64;
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      if (latencyCommits > 0) {
        latencyAndSaturation(executor, latencyCommits, saturationSeconds, inFlight);
      }
      failover(executor, failoverRuns);
    } finally {
      executor.shutdownNow();
    }
    System.exit(0);
  }

  private static Map<String, String> peers() {
    Map<String, String> peers = new TreeMap<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("m" + i, "127.0.0.1:" + RatisTestCluster.freePort());
    }
    return peers;
  }

  private static List<RatisMetastore> startGroup(Path dir, ExecutorService executor) {
    Map<String, String> peers = peers();
    List<RatisMetastore> ms = new ArrayList<>();
    for (String id : peers.keySet()) {
      RatisSettings s = RatisSettings.builder(id, peers, dir.resolve(id)).build(); // defaults
      ms.add(RatisMetastore.start(s, MetaSettings.defaults(), CLOCK, executor));
    }
    for (RatisMetastore m : ms) {
      RatisTestCluster.get(m.readLinearizable(r -> r.appliedIndex()));
    }
    return ms;
  }

  private static RatisMetastore leaderOf(List<RatisMetastore> ms) {
    for (int i = 0; i < 1000; i++) {
      for (RatisMetastore m : ms) {
        if (m.isLeader()) {
          return m;
        }
      }
      RatisTestCluster.get(ms.get(0).readLinearizable(r -> r.appliedIndex()));
    }
    throw new IllegalStateException("no leader");
  }

  private static void latencyAndSaturation(
      ExecutorService executor, int commits, int seconds, int inFlight) throws Exception {
    Path dir = Files.createTempDirectory("ratis-bench");
    List<RatisMetastore> ms = startGroup(dir, executor);
    try {
      RatisMetastore leader = leaderOf(ms);
      RatisMetastore follower = ms.stream().filter(m -> m != leader).findFirst().orElseThrow();
      long stream = RatisFixtures.setUp(leader, CLOCK);
      AtomicLong key = new AtomicLong();
      for (RatisMetastore via : List.of(leader, follower)) {
        for (int i = 0; i < 300; i++) { // warm-up
          RatisFixtures.commitOne(via, stream, "k" + key.incrementAndGet(), CLOCK);
        }
        long[] nanos = new long[commits];
        for (int i = 0; i < commits; i++) {
          long t0 = System.nanoTime();
          RatisFixtures.commitOne(via, stream, "k" + key.incrementAndGet(), CLOCK);
          nanos[i] = System.nanoTime() - t0;
        }
        Arrays.sort(nanos);
        System.out.printf(
            "latency via %s (1 serial proposer, %d commits): p50 %.2f ms, p99 %.2f ms, max %.2f ms,"
                + " %.0f commits/s%n",
            via == leader ? "leader" : "follower",
            commits,
            nanos[commits / 2] / 1e6,
            nanos[(int) (commits * 0.99)] / 1e6,
            nanos[commits - 1] / 1e6,
            commits / (Arrays.stream(nanos).sum() / 1e9));
      }

      // Saturation: inFlight proposals outstanding, spread over the three members.
      Semaphore window = new Semaphore(inFlight);
      AtomicLong done = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      long countedFrom = -1;
      long startCount = 0;
      int i = 0;
      while (System.nanoTime() < end) {
        if (countedFrom < 0 && System.nanoTime() >= warmEnd) {
          countedFrom = System.nanoTime();
          startCount = done.get();
        }
        window.acquire();
        RatisMetastore via = ms.get(i++ % ms.size());
        CompletableFuture<Applied> f =
            via.propose(RatisFixtures.commit(stream, "s" + key.incrementAndGet(), CLOCK));
        f.whenComplete(
            (a, e) -> {
              (e == null ? done : failed).incrementAndGet();
              window.release();
            });
      }
      double secs = (System.nanoTime() - countedFrom) / 1e9;
      System.out.printf(
          "saturation (%d in flight over 3 members, %d s after 2 s warm-up): %.0f proposals/s,"
              + " failed %d%n",
          inFlight, seconds - 2, (done.get() - startCount) / secs, failed.get());
      window.acquire(inFlight);
    } finally {
      RatisTestCluster.closeAll(ms);
      deleteTree(dir);
    }
  }

  private static void failover(ExecutorService executor, int runs) throws Exception {
    List<Double> millis = new ArrayList<>();
    for (int run = 0; run < runs; run++) {
      Path dir = Files.createTempDirectory("ratis-bench");
      List<RatisMetastore> ms = startGroup(dir, executor);
      try {
        RatisMetastore leader = leaderOf(ms);
        RatisMetastore follower = ms.stream().filter(m -> m != leader).findFirst().orElseThrow();
        long stream = RatisFixtures.setUp(follower, CLOCK);
        for (int i = 0; i < 100; i++) {
          RatisFixtures.commitOne(follower, stream, "w" + i, CLOCK);
        }
        long t0 = System.nanoTime();
        // Kill the leader: its server is fully stopped before the next commit is sent, so that
        // commit cannot be served by it. The time includes the close (~0.5 s here), during which
        // the followers' election timers already run.
        leader.close();
        long closed = System.nanoTime();
        // The next commit through a survivor: its client finds the old leader gone and retries
        // until a new one is elected.
        RatisFixtures.commitOne(follower, stream, "after-kill", CLOCK);
        double total = (System.nanoTime() - t0) / 1e6;
        millis.add(total);
        System.out.printf(
            "failover run %d: %.0f ms (close took %.0f ms)%n", run + 1, total, (closed - t0) / 1e6);
      } finally {
        RatisTestCluster.closeAll(ms);
        deleteTree(dir);
      }
    }
    millis.sort(Comparator.naturalOrder());
    System.out.printf(
        "failover (leader kill -> next successful commit, %d runs): median %.0f ms, max %.0f ms,"
            + " all %s%n",
        runs, millis.get(runs / 2), millis.get(runs - 1), millis);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
