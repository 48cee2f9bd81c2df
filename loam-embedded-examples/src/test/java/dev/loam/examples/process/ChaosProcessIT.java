package dev.loam.examples.process;

import static dev.loam.examples.process.ChaosRun.PARTITIONS;
import static dev.loam.examples.process.ChaosRun.PLAIN_PRODUCERS;
import static dev.loam.examples.process.ChaosRun.QUORUM_PARTITIONS;
import static dev.loam.examples.process.ChaosRun.QUORUM_PLAIN_PRODUCERS;
import static dev.loam.examples.process.ChaosRun.STREAM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.examples.fault.FaultRates;
import dev.loam.examples.process.ChaosChecker.Rec;
import dev.loam.examples.process.ChaosChecker.Verdict;
import dev.loam.examples.process.ChaosHttp.Answer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process-level chaos tests (docs/design/simulation.md, "Process-level chaos test"): {@code
 * loam node} processes (real Ratis, real sockets, the filesystem store), a workload over HTTP
 * (idempotent producers that retry through other nodes, plain producers that never retry, named
 * consumers that commit and resume), faults for a chaos phase, then faults off, every node up, the
 * producers finish, the consumers catch up, everything is read back from every node and {@link
 * ChaosChecker} judges it. Each scenario prints a summary table (also written to {@code
 * target/process-cluster/ChaosProcessIT/<scenario>.md}).
 *
 * <ul>
 *   <li>three nodes: kill -9 of a node every few seconds (every other kill aimed at the metastore
 *       leader) with a restart after a short delay, and the object-store fault injector ({@code
 *       --fault-file}) switched on and off, on an encrypted namespace whose entries the owners
 *       rewrite into sealed segments every 2 s once 16 KiB gathered ({@code
 *       --segment-threshold-kib}, {@code --maintenance-interval-ms}), so sealed chunks and sealed
 *       segments are both written and read under the kills; every node also has a journal port, and
 *       a quorum stream ({@link ChaosStream}) is written and read beside the leaderless one, every
 *       other kill aimed at its journal's leader, judged by a checker of its own, with the failover
 *       time of each leader kill in the summary;
 *   <li>five nodes, harsher: pauses (SIGSTOP) longer than the liveness timeout, two nodes killed at
 *       once, one process's wall clock stepped minutes ahead or back (libfaketime), bursts of store
 *       throttling, a slow store, a node killed part way through its graceful leave, a node killed
 *       while the stream is transferred to or from it, and a node's metastore disk full ({@link
 *       ChaosNemeses#harsh}).
 * </ul>
 *
 * <p>{@code -Dloam.chaos.durationS=N} sets the three-node chaos phase (default 45 s), {@code
 * -Dloam.chaos.harshDurationS=N} the five-node one (default 75 s, or until one round of every kind
 * ran), {@code -Dloam.chaos.harshKinds=K,...} only those kinds of {@link ChaosNemeses.Harsh},
 * {@code -Dloam.chaos.seed=S} the test's own random choices (targets, delays, record counts; the
 * processes' timing is not reproducible).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ChaosProcessIT {
  static final long LIVENESS_MS = 3_000;

  /** The five-node scenario's metastore disks: room for the run's Raft log, small to fill fast. */
  static final long METASTORE_DISK_BYTES = 256L << 20;

  static final Pattern FAULT = Pattern.compile("loam: node \\S+ fault kind=(\\S+) ");

  /**
   * The three-node scenario's namespace: encrypted, its master key in a PKCS#12 key store shared by
   * the node processes ({@code --kms-keystore}), so its appends are sealed WAL chunks and its
   * segments sealed segments, and the checker judges an encrypted namespace under kills and store
   * faults. The five-node scenario uses the plain {@code default} namespace.
   */
  static final String ENCRYPTED = "vault";

  /** The three-node scenario's segment threshold: small, so segments are made during the run. */
  static final int SEGMENT_THRESHOLD_KIB = 16;

  final long seed = Long.getLong("loam.chaos.seed", System.nanoTime());

  @TempDir Path tmp;
  ProcessCluster cluster;
  ChaosRun run;

  @AfterEach
  void stop() throws InterruptedException {
    if (run != null) {
      run.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void killsAndStoreFaultsLoseNothingAndDuplicateNothing() throws Exception {
    long duration = Long.getLong("loam.chaos.durationS", 45);
    start("three-nodes", 3, false, duration, ENCRYPTED, true);
    ChaosNemeses nemeses = new ChaosNemeses(run, LIVENESS_MS);
    Verdict v =
        runChaos(
            "Chaos run: kills and store faults",
            "three-nodes",
            rnd -> {
              long killerSeed = rnd.nextLong();
              long togglerSeed = rnd.nextLong();
              run.spawn("killer", () -> nemeses.killer(new Random(killerSeed)));
              run.spawn("toggler", () -> nemeses.storeFaults(new Random(togglerSeed)));
            });
    if (duration >= 20) {
      // How many kills fit depends on how fast a JVM starts here (5 s idle, 30 s on a loaded box).
      assertThat(run.kills).as("kills").isNotEmpty();
      assertThat(run.kills).as("a leader kill").anyMatch(k -> k.contains(" leader"));
      if (run.kills.size() >= 2) {
        // The second kill aims at the journal's leader.
        assertThat(run.kills)
            .as("a journal leader kill")
            .anyMatch(k -> k.contains(" journal-leader"));
      }
      assertThat(run.faults.values().stream().mapToLong(AtomicLong::get).sum())
          .as("faults injected")
          .isPositive();
    }
    assertThat(v.ackedAppends()).as("the workload made progress").isGreaterThan(50);
    // The namespace's records went to the store sealed: WAL objects with sealed chunks, and the
    // segments its entries were rewritten into are sealed too.
    assertThat(sealedChunks()).as("sealed WAL chunks in the store").isPositive();
    assertThat(sealedSegments()).as("sealed segments in the store").isPositive();
  }

  /** Sealed segments in the shared filesystem store. */
  private long sealedSegments() throws IOException {
    long out = 0;
    try (java.util.stream.Stream<Path> files = Files.walk(cluster.storeDir())) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (!name.endsWith(".seg~") && !name.endsWith(".seg")) {
          continue;
        }
        byte[] b = Files.readAllBytes(f);
        if (dev.loam.wal.segment.SegmentReader.parseFooter(b, b.length).sealed()) {
          out++;
        }
      }
    }
    return out;
  }

  /** Sealed chunks in the WAL objects of the shared filesystem store. */
  private long sealedChunks() throws IOException {
    long sealed = 0;
    try (java.util.stream.Stream<Path> files = Files.walk(cluster.storeDir())) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        // The filesystem store keeps an object in a file named after its key plus "~".
        String name = f.getFileName().toString();
        if (!name.endsWith(".wal~") && !name.endsWith(".wal")) {
          continue;
        }
        dev.loam.wal.object.WalObject o =
            dev.loam.wal.object.WalObjectReader.parse(Files.readAllBytes(f));
        sealed += o.chunks().stream().filter(c -> c.sealed()).count();
      }
    }
    return sealed;
  }

  @Test
  void pausesMinorityKillsClockStepsThrottlingAndInterruptedHandoversLoseNothing()
      throws Exception {
    long duration = Long.getLong("loam.chaos.harshDurationS", 75);
    start("five-nodes", 5, true, duration, "default", false);
    ChaosNemeses nemeses = new ChaosNemeses(run, LIVENESS_MS);
    Verdict v =
        runChaos(
            "Chaos run: pauses, minority kills, clock steps, throttling, slow store, kills mid-leave and mid-transfer",
            "five-nodes",
            rnd -> {
              long s = rnd.nextLong();
              run.spawn("harsh", () -> nemeses.harsh(new Random(s)));
            });
    assertThat(v.ackedAppends()).as("the workload made progress").isGreaterThan(50);
    Map<String, Integer> done;
    synchronized (run.processFaults) {
      done = Map.copyOf(run.processFaults);
    }
    // The phase runs until one round of every kind completed: each kind at least once.
    List<ChaosNemeses.Harsh> kinds = ChaosNemeses.harshKinds();
    assertThat(done.keySet())
        .as("fault kinds injected")
        .containsAll(
            kinds.stream()
                .map(k -> k.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '))
                .toList());
    if (kinds.contains(ChaosNemeses.Harsh.SLOW_STORE)) {
      assertThat(run.faults.get("slow")).as("slow store calls").isNotNull();
    }
  }

  /**
   * Starts the scenario's cluster and its run; with {@code quorum} every node also gets a journal
   * port and the run writes a quorum stream beside its leaderless one.
   */
  private void start(
      String scenario,
      int nodes,
      boolean steppableClocks,
      long durationSeconds,
      String namespace,
      boolean quorum)
      throws IOException, InterruptedException {
    Path faultFile = tmp.resolve("faults.properties");
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--flush-ms",
                "10",
                "--liveness-timeout-ms",
                Long.toString(LIVENESS_MS),
                "--fault-file",
                faultFile.toString()));
    if (!namespace.equals("default")) {
      Path password = tmp.resolve("kms-password");
      Files.writeString(password, "chaos-keystore-password\n", StandardCharsets.UTF_8);
      args.addAll(
          List.of(
              "--kms-keystore",
              tmp.resolve("kms.p12").toString(),
              "--kms-password-file",
              password.toString(),
              // Segments within seconds: the owners rewrite the encrypted namespace's WAL entries
              // into sealed segments every 2 s once 16 KiB gathered, so fetches and the final
              // read-back read sealed segments made, and interrupted, under the kills.
              "--segment-threshold-kib",
              Integer.toString(SEGMENT_THRESHOLD_KIB),
              "--maintenance-interval-ms",
              "2000"));
    }
    ChaosRun[] holder = new ChaosRun[1];
    ProcessCluster.Builder b =
        ProcessCluster.builder()
            .nodes(nodes)
            .logDir(Path.of("target", "process-cluster", getClass().getSimpleName(), scenario))
            .readyTimeout(Duration.ofSeconds(120))
            .nodeArgs(args.toArray(String[]::new))
            .lineListener(
                (node, line) -> {
                  Matcher m = FAULT.matcher(line);
                  ChaosRun r = holder[0];
                  if (m.find() && r != null) {
                    r.faults.computeIfAbsent(m.group(1), k -> new AtomicLong()).incrementAndGet();
                  }
                });
    if (quorum) {
      b.journal();
    }
    if (steppableClocks) {
      // The smallest log segments: the log claims disk space in 16 KiB steps, so a full disk bites
      // within the fault's seconds instead of after the 4 MiB the default preallocates.
      b.steppableClocks()
          .metastoreDiskLimit(METASTORE_DISK_BYTES)
          .nodeArgs("--meta-segment-kib", "16");
    }
    cluster = b.start();
    run = new ChaosRun(cluster, namespace, faultFile, seed, durationSeconds);
    if (quorum) {
      run.quorum =
          new ChaosStream(
              "default", ChaosRun.QUORUM_STREAM, QUORUM_PARTITIONS, true, new ChaosChecker());
    }
    holder[0] = run;
  }

  /**
   * Creates the stream, starts the workload, waits until it runs, starts the faults ({@code
   * nemeses} spawns their threads from the random it is given), lets them run for the chaos phase,
   * then heals, reads back, lets the consumers finish, and checks: no violation, nothing lost,
   * nothing duplicated, reads in order, every consumer committed the end.
   */
  private Verdict runChaos(String title, String file, Consumer<Random> nemeses) throws Exception {
    System.out.println(title + ": seed=" + seed + " durationS=" + run.durationSeconds);
    Random rnd = new Random(seed);
    if (!run.namespace.equals("default")) {
      Answer ns =
          run.http.call(
              0,
              "POST",
              "/v1/namespaces",
              "{\"name\":\"" + run.namespace + "\",\"encrypted\":true}");
      assertThat(ns.status()).as(ns.body()).isEqualTo(201);
      assertThat(ns.body()).contains("\"encrypted\":true");
    }
    Answer created =
        run.http.call(
            0,
            "POST",
            "/v1/namespaces/" + run.namespace + "/streams",
            "{\"name\":\"" + STREAM + "\",\"partitions\":" + PARTITIONS + "}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    for (int i = 0; i < cluster.size(); i++) {
      run.http.awaitStatus(i, run.base(), 200);
    }
    ChaosStream quorum = run.quorum;
    if (quorum != null) {
      createQuorumStream(quorum);
    }
    ChaosProducers producers = new ChaosProducers(run);
    ChaosConsumers consumers = new ChaosConsumers(run);
    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      long s = rnd.nextLong();
      run.spawn("idempotent-" + p, () -> producers.idempotent(partition, new Random(s)));
    }
    for (int k = 0; k < PLAIN_PRODUCERS; k++) {
      int index = k;
      long s = rnd.nextLong();
      run.spawn("plain-" + k, () -> producers.plain(index, new Random(s)));
    }
    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      long s = rnd.nextLong();
      run.spawn("consumer-" + p, () -> consumers.consumer(partition, new Random(s)));
    }
    ChaosQuorumReaders quorumReaders = quorum == null ? null : new ChaosQuorumReaders(run, quorum);
    if (quorum != null) {
      ChaosProducers q = new ChaosProducers(run, quorum);
      for (int p = 0; p < QUORUM_PARTITIONS; p++) {
        int partition = p;
        long s = rnd.nextLong();
        run.spawn("idempotent-q" + p, () -> q.idempotent(partition, new Random(s)));
      }
      for (int k = 0; k < QUORUM_PLAIN_PRODUCERS; k++) {
        int index = k;
        long s = rnd.nextLong();
        run.spawn("plain-q" + k, () -> q.plain(index, new Random(s)));
      }
      for (int p = 0; p < QUORUM_PARTITIONS; p++) {
        int partition = p;
        long s = rnd.nextLong();
        run.spawn("reader-q" + p, () -> quorumReaders.reader(partition, new Random(s)));
      }
    }
    // Warm up: the chaos clock starts once the workload runs (JVMs on a loaded box start slowly).
    long warmDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (run.checker.ackedAppends() < 20
        || (quorum != null && quorum.checker.ackedAppends() < 20)) {
      assertThat(System.nanoTime()).as("the workload warms up").isLessThan(warmDeadline);
      Thread.sleep(50);
    }
    long chaosStart = System.nanoTime();
    run.chaosStart = chaosStart;
    List<Thread> before;
    synchronized (run.threads) {
      before = List.copyOf(run.threads);
    }
    nemeses.accept(new Random(rnd.nextLong()));
    List<Thread> faultThreads;
    synchronized (run.threads) {
      faultThreads = run.threads.subList(before.size(), run.threads.size()).stream().toList();
    }

    Thread.sleep(TimeUnit.SECONDS.toMillis(run.durationSeconds));
    if (run.rounds) {
      // The harsh scenario's phase lasts until one round of every fault kind ran.
      assertThat(run.firstRound.await(150, TimeUnit.SECONDS))
          .as("one round of every fault kind within 150 s after the phase")
          .isTrue();
    }
    run.chaos = false;
    long chaosEnd = System.nanoTime();
    for (Thread t : faultThreads) {
      // A fault in progress finishes (a restart waits for the node to be ready).
      t.join(TimeUnit.SECONDS.toMillis(150));
      assertThat(t.isAlive()).as("%s finished its last fault", t.getName()).isFalse();
    }
    run.writeFaults(FaultRates.OFF);
    for (int i = 0; i < cluster.size(); i++) {
      assertThat(cluster.isAlive(i)).as("node %d up after the chaos", i).isTrue();
    }
    Thread.sleep(300); // the nodes re-read the fault file every 100 ms

    // Heal: the producers finish what they have in flight (retrying) and stop.
    run.producing = false;
    run.giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (Thread t : before) {
      if (t.getName().startsWith("idempotent-") || t.getName().startsWith("plain-")) {
        t.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
      }
    }

    // Read everything back from every node; the replicas must agree.
    Map<Integer, List<Rec>> readBack = consumers.readAll(0);
    for (int i = 1; i < cluster.size(); i++) {
      Map<Integer, List<Rec>> other = consumers.readAll(i);
      if (!other.equals(readBack)) {
        run.checker.violation(
            "node " + cluster.nodeId(i) + " reads back other records than node n1");
      }
    }

    // The consumers catch up to the end, commit it, and check it.
    synchronized (run.consumeTarget) {
      for (int p = 0; p < PARTITIONS; p++) {
        run.consumeTarget[p] = readBack.get(p).size();
      }
    }
    for (Thread t : before) {
      if (t.getName().startsWith("consumer-")) {
        t.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(t.isAlive()).as("%s caught up", t.getName()).isFalse();
      }
    }

    Verdict v = run.checker.verify(readBack);
    Verdict qv = quorum == null ? null : readBackQuorum(quorum, quorumReaders, before);
    String summary = ChaosSummary.summary(run, title, v, qv, chaosStart, chaosEnd);
    System.out.println(summary);
    Path out = Path.of("target", "process-cluster", getClass().getSimpleName(), file + ".md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, summary, StandardCharsets.UTF_8);

    assertThat(v.violations()).as("violations (node logs in target/process-cluster)").isEmpty();
    assertThat(v.lost()).isZero();
    assertThat(v.duplicates()).isZero();
    assertThat(v.outOfOrderReads()).isZero();
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(run.consumerFinal[p])
          .as("consumer of partition %d committed the end", p)
          .isEqualTo(readBack.get(p).size());
    }
    if (qv != null) {
      assertThat(qv.violations()).as("quorum stream violations").isEmpty();
      assertThat(qv.lost()).as("quorum stream: lost").isZero();
      assertThat(qv.duplicates()).as("quorum stream: duplicates").isZero();
      assertThat(qv.outOfOrderReads()).as("quorum stream: out-of-order reads").isZero();
      assertThat(qv.ackedAppends()).as("the quorum workload made progress").isGreaterThan(50);
      for (long ms : quorum.failoverMillis()) {
        // Every leader kill was followed by acknowledged appends (the producers ran on), within a
        // bound far above the 1-3 s target, for a loaded 2-core machine; the summary has the time.
        assertThat(ms).as("failover after a journal leader kill (ms)").isBetween(0L, 15_000L);
      }
    }
    return v;
  }

  /**
   * Creates the quorum stream, retrying while fewer than three nodes advertise their journal port
   * (each node's placement agent advertises it within a pass after its start), and waits until
   * every node knows it.
   */
  private void createQuorumStream(ChaosStream quorum) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String body =
        "{\"name\":\""
            + quorum.name
            + "\",\"partitions\":"
            + quorum.partitions
            + ",\"class\":\"quorum\"}";
    while (true) {
      Answer a = run.http.call(0, "POST", "/v1/namespaces/" + quorum.namespace + "/streams", body);
      if (a.status() == 201) {
        break;
      }
      assertThat(System.nanoTime())
          .as("the quorum stream is created (last answer %d %s)", a.status(), a.body())
          .isLessThan(deadline);
      Thread.sleep(200);
    }
    for (int i = 0; i < cluster.size(); i++) {
      run.http.awaitStatus(i, quorum.base(), 200);
    }
  }

  /**
   * After the producers stopped: reads the quorum stream back from every node (they must agree),
   * lets its readers catch up to the end, and judges it.
   */
  private Verdict readBackQuorum(
      ChaosStream quorum, ChaosQuorumReaders readers, List<Thread> workload) throws Exception {
    Map<Integer, List<Rec>> back = readers.readBackAgreed();
    synchronized (quorum.readTarget) {
      for (int p = 0; p < quorum.partitions; p++) {
        quorum.readTarget[p] = back.get(p).size();
      }
    }
    for (Thread t : workload) {
      if (t.getName().startsWith("reader-q")) {
        t.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(t.isAlive()).as("%s caught up", t.getName()).isFalse();
      }
    }
    for (int p = 0; p < quorum.partitions; p++) {
      assertThat(quorum.readFinal[p])
          .as("quorum reader of partition %d reached the end", p)
          .isEqualTo(back.get(p).size());
    }
    return quorum.checker.verify(back);
  }
}
