package dev.loam.examples;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamDescription;
import dev.loam.error.LoamException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectStores;
import dev.loam.store.fs.FileSystemObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./loam demo --nodes 3 [--kill-leader]}: a cluster in one JVM. Every node has its own
 * {@link RatisMetastore} replica (a voter on a loopback port, its Raft log and snapshots in {@code
 * <dir>/node-i/meta}); all nodes share one object store ({@code <dir>/objects} or {@code --store}).
 * Appends go round-robin through every node's {@code Log}; with {@code --kill-leader} the node
 * whose replica leads the metastore is crashed once half of the records are acknowledged (its
 * {@code LoamNode} crashes, its replica closes) and the appends go on through the survivors. The
 * killed node is then restarted from its directory, and every node reads everything back.
 *
 * <p>The peers' ports are chosen on the first run and kept in {@code <dir>/cluster.properties}: a
 * Raft group keeps its members' addresses in its log, so a later run must reuse them.
 */
final class ClusterDemo {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private ClusterDemo() {}

  /** One node of the demo cluster: its metastore replica and its LoamNode. */
  private static final class Member {
    final String id;
    final RatisSettings ratis;
    volatile RatisMetastore meta;
    volatile LoamNode node;

    Member(String id, RatisSettings ratis) {
      this.id = id;
      this.ratis = ratis;
    }
  }

  static int run(Demo.Options o) throws Exception {
    // Ratis and gRPC log every connection refused to a killed peer: keep the demo's output
    // readable unless the user asked otherwise.
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.ratis", "error");
    // The Ratis client logs each retry of a proposal through a leader change at error level.
    System.getProperties()
        .putIfAbsent("org.slf4j.simpleLogger.log.org.apache.ratis.client.impl.OrderedAsync", "off");
    Path dir = o.dataDir();
    if (Files.exists(dir.resolve("meta"))) {
      System.err.println(
          "loam demo: "
              + dir.toAbsolutePath()
              + " holds a single-node demo (meta/); use another --data-dir for a cluster");
      return 2;
    }
    Files.createDirectories(dir);
    Map<String, String> voters = voters(dir, o.nodes());
    InstantSource clock = InstantSource.system();
    MetaSettings metaSettings = MetaSettings.defaults();
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(o.flushMillis()));
    ExecutorService metaExec = Executors.newFixedThreadPool(4, daemon("loam-demo-meta"));
    ExecutorService io = Executors.newFixedThreadPool(8, daemon("loam-demo-io"));
    ObjectStore store =
        o.storeUri() != null
            ? ObjectStores.open(o.storeUri(), new StoreContext(clock, io, Map.of()))
            : new FileSystemObjectStore(dir.resolve("objects"), io, clock);
    List<Member> members = new ArrayList<>();
    for (String id : voters.keySet()) {
      members.add(
          new Member(
              id, RatisSettings.builder(id, voters, dir.resolve(id).resolve("meta")).build()));
    }
    try {
      long t0 = System.nanoTime();
      for (Member m : members) {
        m.meta = RatisMetastore.start(m.ratis, metaSettings, clock, metaExec);
      }
      for (Member m : members) {
        m.node = startNode(m, store, settings);
      }
      StreamDescription d = Demo.ensureStream(members.get(0).node.log(), o.partitions());
      // Every replica applies the stream before its node appends to it.
      awaitInSync(members);
      d = members.get(0).node.log().describeStream("demo", "events").get(30, TimeUnit.SECONDS);
      int partitions = d.spec().partitions();
      long before = d.partitions().stream().mapToLong(p -> p.highWatermark()).sum();
      String run = Long.toString(System.currentTimeMillis(), 36);
      System.out.printf(
          "loam demo: %d nodes in one JVM, data-dir=%s store=%s stream=demo/events partitions=%d"
              + " records-before=%d flush=%dms in-flight=%d%n",
          members.size(),
          dir.toAbsolutePath(),
          o.storeUri() == null ? dir.resolve("objects").toUri() : o.storeUri(),
          partitions,
          before,
          o.flushMillis(),
          o.maxInFlight());
      System.out.printf(
          "metastore: Ratis voters %s, leader %s; cluster up in %.2f s%n",
          voters, leader(members).id, (System.nanoTime() - t0) / 1e9);

      Appended a = append(members, o, run);
      System.out.printf(
          "appended %d of %d records (%.1f MB) through %d nodes in %.2f s: %.0f records/s,"
              + " %.2f MB/s; ack latency per append of %d records p50=%.1f ms p99=%.1f ms max=%.1f"
              + " ms%n",
          a.ackedRecords,
          o.records(),
          a.ackedBytes / 1e6,
          members.size(),
          a.summary.seconds(),
          a.ackedRecords / Math.max(a.summary.seconds(), 1e-9),
          a.ackedBytes / 1e6 / Math.max(a.summary.seconds(), 1e-9),
          o.recordsPerAppend(),
          a.summary.p50Millis(),
          a.summary.p99Millis(),
          a.summary.maxMillis());
      List<String> problems = new ArrayList<>(a.problems);
      if (a.victim != null) {
        System.out.printf(
            "killed %s (the metastore leader) after %d acknowledged records; new leader %s;"
                + " failover (kill -> first commit of an append sent after it) %d ms;"
                + " %d appends (%d records) in flight on %s failed unacknowledged: %s%n",
            a.victim.id,
            a.ackedAtKill,
            a.newLeader,
            a.failoverMillis,
            a.failedOnVictim,
            a.failedRecordsOnVictim,
            a.victim.id,
            a.failureKinds);
        long r0 = System.nanoTime();
        a.victim.meta = RatisMetastore.start(a.victim.ratis, metaSettings, clock, metaExec);
        a.victim.node = startNode(a.victim, store, settings);
        awaitInSync(members);
        System.out.printf(
            "restarted %s from its directory; caught up in %.2f s%n",
            a.victim.id, (System.nanoTime() - r0) / 1e9);
      } else {
        awaitInSync(members);
      }

      long minExpected = before + a.ackedRecords;
      long maxExpected = before + o.records();
      for (Member m : members) {
        BitSet seen = new BitSet(o.records());
        String prefix = run + ".";
        long r0 = System.nanoTime();
        Demo.Verification v =
            Demo.readBack(
                m.node.log(),
                partitions,
                (r, seq) -> {
                  if (r.startsWith(prefix)) {
                    seen.set(seq);
                  }
                });
        double secs = (System.nanoTime() - r0) / 1e9;
        List<String> mine = new ArrayList<>(v.problems());
        if (v.total() < minExpected || v.total() > maxExpected) {
          mine.add(
              "expected between "
                  + minExpected
                  + " and "
                  + maxExpected
                  + " records, read "
                  + v.total());
        }
        BitSet missing = (BitSet) a.acked.clone();
        missing.andNot(seen);
        if (!missing.isEmpty()) {
          mine.add(
              missing.cardinality()
                  + " acknowledged records of this run missing, first seq "
                  + missing.nextSetBit(0));
        }
        long runs =
            v.countsByRun().keySet().stream()
                .map(r -> r.substring(0, r.indexOf('.') + 1))
                .distinct()
                .count();
        System.out.printf(
            "%s read back %d records in %.2f s (%.0f records/s); every acknowledged record of"
                + " this run %s; runs on this directory: %d%n",
            m.id,
            v.total(),
            secs,
            v.total() / Math.max(secs, 1e-9),
            missing.isEmpty() ? "present" : "NOT present",
            runs);
        mine.forEach(p -> problems.add(m.id + ": " + p));
      }
      if (!problems.isEmpty()) {
        problems.stream().limit(20).forEach(p -> System.out.println("MISMATCH: " + p));
        return 1;
      }
      System.out.println(
          "OK: every node read every acknowledged record back in order with its content");
      return 0;
    } finally {
      closeAll(members);
      store.close();
      io.shutdownNow();
      metaExec.shutdownNow();
    }
  }

  private static LoamNode startNode(Member m, ObjectStore store, NodeSettings settings) {
    return LoamNode.builder()
        .nodeId(m.id)
        .objectStore(store)
        .metastore(m.meta)
        .settings(settings)
        .start();
  }

  /** What the append phase did. */
  private static final class Appended {
    final BitSet acked = new BitSet();
    final List<String> problems = new ArrayList<>();
    final Map<String, Integer> failureKinds = new TreeMap<>();
    long ackedRecords;
    long ackedBytes;
    Demo.Summary summary;
    Member victim;
    String newLeader;
    long ackedAtKill;
    long failoverMillis = -1;
    int failedOnVictim;
    long failedRecordsOnVictim;
  }

  private static Appended append(List<Member> members, Demo.Options o, String run)
      throws Exception {
    Appended out = new Appended();
    int calls = (o.records() + o.recordsPerAppend() - 1) / o.recordsPerAppend();
    long[] latencies = new long[calls];
    Semaphore window = new Semaphore(o.maxInFlight());
    List<Member> live = new ArrayList<>(members);
    AtomicLong acked = new AtomicLong();
    AtomicLong ackedBytes = new AtomicLong();
    CompletableFuture<Void> halfAcked = new CompletableFuture<>();
    long half = o.records() / 2;
    AtomicLong killNanos = new AtomicLong(Long.MAX_VALUE);
    AtomicLong firstAfterKill = new AtomicLong(Long.MAX_VALUE);
    AtomicLong firstAckAfterKill = new AtomicLong(Long.MAX_VALUE);
    AtomicReference<Member> victim = new AtomicReference<>();
    AtomicInteger failedOnVictim = new AtomicInteger();
    AtomicLong failedRecordsOnVictim = new AtomicLong();
    List<CompletableFuture<AppendResult>> all = new ArrayList<>();
    Thread killer = null;
    long start = System.nanoTime();
    for (int call = 0; call < calls; call++) {
      if (o.killLeader() && killer == null && halfAcked.isDone()) {
        killer = kill(live, out, acked, killNanos, victim);
      }
      int i = call * o.recordsPerAppend();
      int n = Math.min(o.recordsPerAppend(), o.records() - i);
      List<AppendRecord> batch = new ArrayList<>(n);
      long bytes = 0;
      Member m = live.get(call % live.size());
      String tag = run + "." + m.id;
      for (int j = i; j < i + n; j++) {
        String key = "key-" + (j % 1000);
        String value = Demo.value(tag, j, o.valueBytes());
        bytes += key.length() + value.length();
        batch.add(AppendRecord.of(key, value));
      }
      window.acquire();
      long t0 = System.nanoTime();
      int slot = call;
      long batchBytes = bytes;
      int first = i;
      CompletableFuture<AppendResult> f;
      try {
        f = m.node.log().append("demo", "events", batch);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      f.whenComplete(
          (r, e) -> {
            long now = System.nanoTime();
            latencies[slot] = now - t0;
            if (e == null) {
              synchronized (out.acked) {
                out.acked.set(first, first + n);
              }
              ackedBytes.addAndGet(batchBytes);
              if (acked.addAndGet(n) >= half) {
                halfAcked.complete(null);
              }
              if (t0 >= killNanos.get()) {
                firstAfterKill.accumulateAndGet(now, Math::min);
              } else if (now >= killNanos.get()) {
                firstAckAfterKill.accumulateAndGet(now, Math::min);
              }
            } else if (m == victim.get()) {
              failedOnVictim.incrementAndGet();
              failedRecordsOnVictim.addAndGet(n);
              String kind =
                  unwrap(e) instanceof LoamException le
                      ? le.kind().name()
                      : unwrap(e).getClass().getSimpleName();
              synchronized (out.failureKinds) {
                out.failureKinds.merge(kind, 1, Integer::sum);
              }
            } else {
              synchronized (out.problems) {
                if (out.problems.size() < 10) {
                  out.problems.add("append through " + m.id + " failed: " + unwrap(e));
                }
              }
            }
            window.release();
          });
      all.add(f);
    }
    if (o.killLeader() && killer == null) {
      // Everything was sent before half was acknowledged: kill while the rest is in flight.
      halfAcked.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      killer = kill(live, out, acked, killNanos, victim);
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .exceptionally(e -> null)
        .get(5, TimeUnit.MINUTES);
    long elapsed = System.nanoTime() - start;
    if (killer != null) {
      killer.join();
      if (firstAfterKill.get() == Long.MAX_VALUE) {
        // Everything was sent before the kill (a large --in-flight): the first acknowledgement
        // after it is the best available measure.
        firstAfterKill.set(firstAckAfterKill.get());
      }
      out.victim = victim.get();
      out.failoverMillis = (firstAfterKill.get() - killNanos.get()) / 1_000_000;
      out.failedOnVictim = failedOnVictim.get();
      out.failedRecordsOnVictim = failedRecordsOnVictim.get();
      out.newLeader = leader(live).id;
    }
    out.ackedRecords = acked.get();
    out.ackedBytes = ackedBytes.get();
    out.summary = Demo.Summary.of(latencies, out.ackedBytes, (int) out.ackedRecords, elapsed);
    return out;
  }

  /**
   * Removes the metastore leader's member from {@code live} and kills it on another thread: its
   * node crashes (buffered appends fail unacknowledged), then its replica closes.
   */
  private static Thread kill(
      List<Member> live,
      Appended out,
      AtomicLong acked,
      AtomicLong killNanos,
      AtomicReference<Member> victim) {
    Member v = leader(live);
    out.ackedAtKill = acked.get();
    victim.set(v);
    live.remove(v);
    killNanos.set(System.nanoTime());
    Thread t =
        new Thread(
            () -> {
              v.node.crash();
              v.meta.close();
            },
            "kill-" + v.id);
    t.start();
    return t;
  }

  /** The current metastore leader, after a linearizable read confirmed there is one. */
  private static Member leader(List<Member> members) {
    for (int attempt = 0; attempt < 100; attempt++) {
      for (Member m : members) {
        if (m.meta.isLeader()) {
          return m;
        }
      }
      awaitInSync(members);
    }
    throw new IllegalStateException("no metastore leader");
  }

  /** Returns once every replica has applied everything committed before the call. */
  private static void awaitInSync(List<Member> members) {
    for (Member m : members) {
      try {
        m.meta.readLinearizable(r -> r.appliedIndex()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("metastore replica " + m.id + " is not in sync", e);
      }
    }
  }

  /** The voters' addresses: kept from the first run in {@code <dir>/cluster.properties}. */
  private static Map<String, String> voters(Path dir, int nodes) throws IOException {
    Path file = dir.resolve("cluster.properties");
    Properties p = new Properties();
    if (Files.exists(file)) {
      try (InputStream in = Files.newInputStream(file)) {
        p.load(in);
      }
    } else {
      for (int i = 1; i <= nodes; i++) {
        p.setProperty("node-" + i, "127.0.0.1:" + freePort());
      }
      Path tmp = dir.resolve("cluster.properties.tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        p.store(out, "loam demo cluster: metastore voter id = host:port (kept across runs)");
      }
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    if (p.size() != nodes) {
      throw new dev.loam.cli.UsageException(
          "--nodes",
          nodes + " but " + dir + " holds a " + p.size() + "-node cluster (cluster.properties)");
    }
    Map<String, String> voters = new TreeMap<>();
    p.stringPropertyNames().forEach(k -> voters.put(k, p.getProperty(k)));
    return voters;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void closeAll(List<Member> members) {
    for (Member m : members) {
      if (m.node != null) {
        m.node.close();
      }
    }
    // A Ratis server takes most of a second to stop: close the replicas in parallel.
    List<Thread> threads = new ArrayList<>();
    for (Member m : members) {
      if (m.meta != null) {
        Thread t = new Thread(m.meta::close, "close-" + m.id);
        t.start();
        threads.add(t);
      }
    }
    for (Thread t : threads) {
      try {
        t.join(WAIT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof java.util.concurrent.CompletionException
            || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
