package dev.loam.bench.scale;

import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The metastore at scale on Apache Ratis: three voters in one JVM over loopback gRPC (production
 * default settings), filled with {@code partitions} partitions (streams of {@code per-stream}
 * partitions, one committed batch each). Prints the live heap the three replicas add per partition
 * (the growth divided by three: each replica holds the whole state, and the Ratis log's cache of
 * the entries that filled it) and the serial commit latency through the leader and through a
 * follower, first with one stream and then with the whole offset index. A main(), not a test:
 *
 * <pre>
 * java -Xms4g -Xmx4g -cp "loam-bench/target/classes:loam-bench/target/lib/*" \
 *     dev.loam.bench.scale.RatisScaleBench [partitions=100000] [per-stream=1000] [commits=500]
 * </pre>
 */
public final class RatisScaleBench {
  private static final InstantSource CLOCK = InstantSource.system();

  private RatisScaleBench() {}

  public static void main(String[] args) throws Exception {
    Args a = Args.parse(args);
    int partitions = a.integer("partitions", 100_000);
    int perStream = a.integer("per-stream", 1_000);
    int commits = a.integer("commits", 500);
    a.done();
    if (partitions % perStream != 0) {
      throw new IllegalArgumentException(
          "partitions must be a multiple of per-stream partitions="
              + partitions
              + " per-stream="
              + perStream);
    }
    int streams = partitions / perStream;
    Path dir = Files.createTempDirectory("loam-ratis-scale");
    ExecutorService executor = Executors.newFixedThreadPool(4);
    List<RatisMetastore> ms = new ArrayList<>();
    try {
      Map<String, String> peers = new TreeMap<>();
      for (int i = 1; i <= 3; i++) {
        peers.put("m" + i, "127.0.0.1:" + freePort());
      }
      for (String id : peers.keySet()) {
        ms.add(
            RatisMetastore.start(
                RatisSettings.builder(id, peers, dir.resolve(id)).build(),
                MetaSettings.defaults(),
                CLOCK,
                executor));
      }
      for (RatisMetastore m : ms) {
        m.readLinearizable(r -> r.appliedIndex()).get(60, TimeUnit.SECONDS);
      }
      RatisMetastore leader = leaderOf(ms);
      RatisMetastore follower = ms.stream().filter(m -> m != leader).findFirst().orElseThrow();
      long now = CLOCK.millis();
      propose(leader, new RegisterNode(ScaleFixtures.origin(now), "h:1", 1, "z"));
      propose(leader, new CreateNamespace(ScaleFixtures.origin(now), "scale"));
      long[] ids = new long[streams];
      ids[0] = createAndFill(leader, 0, perStream);
      awaitAll(ms, leader);
      long before = ScaleFixtures.liveHeapBytes();
      latency(
          "one stream of " + perStream + " partitions",
          leader,
          follower,
          ids,
          1,
          perStream,
          commits);

      long t0 = System.nanoTime();
      for (int s = 1; s < streams; s++) {
        ids[s] = createAndFill(leader, s, perStream);
      }
      awaitAll(ms, leader);
      double fillSeconds = (System.nanoTime() - t0) / 1e9;
      long after = ScaleFixtures.liveHeapBytes();
      System.out.printf(
          Locale.ROOT,
          "3 Ratis replicas: %d more partitions (%d proposals) in %.1f s; live heap %.1f MiB ->"
              + " %.1f MiB: %.0f bytes per partition per replica%n",
          partitions - perStream,
          2 * (streams - 1),
          fillSeconds,
          before / 1048576.0,
          after / 1048576.0,
          (after - before) / 3.0 / (partitions - perStream));
      latency(partitions + " partitions", leader, follower, ids, streams, perStream, commits);
    } finally {
      for (RatisMetastore m : ms) {
        m.close();
      }
      executor.shutdownNow();
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.exit(0);
  }

  /** Creates stream {@code s} and commits one object with a batch for each of its partitions. */
  private static long createAndFill(RatisMetastore leader, int s, int perStream) {
    long now = CLOCK.millis();
    Outcome o =
        propose(
            leader,
            new CreateStream(
                ScaleFixtures.origin(now), "scale", "s" + s, StreamConfig.standard(perStream)));
    long id = ((Outcome.StreamCreated) o).stream().id();
    propose(leader, ScaleFixtures.object("wal/fill/" + s, now, id, 0, perStream));
    return id;
  }

  /** Serial one-chunk commits to random partitions, through the leader then a follower. */
  private static void latency(
      String label,
      RatisMetastore leader,
      RatisMetastore follower,
      long[] ids,
      int streams,
      int perStream,
      int commits) {
    SplittableRandom random = new SplittableRandom(42);
    for (RatisMetastore via : List.of(leader, follower)) {
      long[] nanos = new long[commits];
      for (int i = -commits / 2; i < commits; i++) { // the first half-run warms up
        long now = CLOCK.millis();
        Command c =
            ScaleFixtures.object(
                "wal/latency/" + System.nanoTime(),
                now,
                ids[random.nextInt(streams)],
                random.nextInt(perStream),
                1);
        long t0 = System.nanoTime();
        propose(via, c);
        if (i >= 0) {
          nanos[i] = System.nanoTime() - t0;
        }
      }
      Arrays.sort(nanos);
      System.out.printf(
          Locale.ROOT,
          "commit latency, %s, via %s, %d serial 1-chunk commits: p50 %.2f ms, p90 %.2f ms,"
              + " p99 %.2f ms, max %.2f ms%n",
          label,
          via == leader ? "leader" : "follower",
          commits,
          ScaleFixtures.percentileMillis(nanos, 50),
          ScaleFixtures.percentileMillis(nanos, 90),
          ScaleFixtures.percentileMillis(nanos, 99),
          nanos[commits - 1] / 1e6);
    }
  }

  private static Outcome propose(RatisMetastore via, Command c) {
    Applied a;
    try {
      a = via.propose(c).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(
          "a bench proposal failed: " + c.getClass().getSimpleName(), e);
    }
    return MetastoreScaleBench.expect(a.outcome());
  }

  private static void awaitAll(List<RatisMetastore> ms, RatisMetastore leader) throws Exception {
    long index = leader.appliedIndex();
    for (RatisMetastore m : ms) {
      m.awaitApplied(index).get(120, TimeUnit.SECONDS);
    }
  }

  private static RatisMetastore leaderOf(List<RatisMetastore> ms) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      for (RatisMetastore m : ms) {
        if (m.isLeader()) {
          return m;
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no Ratis leader after 30 s");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
