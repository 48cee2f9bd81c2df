package dev.loam.examples.process;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.examples.fault.FaultRates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one process-level chaos run shares between its workload threads ({@link ChaosProducers},
 * {@link ChaosConsumers}), its fault threads ({@link ChaosNemeses}) and its summary ({@link
 * ChaosSummary}): the cluster, the checker, the phase flags that stop the loops, and the counters.
 */
final class ChaosRun {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String STREAM = "chaos";
  static final String CONSUMER = "chaos-readers";
  static final int PARTITIONS = 4;
  static final int PLAIN_PRODUCERS = 2;

  /** The quorum stream's name, partitions, and plain producers (one idempotent per partition). */
  static final String QUORUM_STREAM = "chaos-quorum";

  static final int QUORUM_PARTITIONS = 2;
  static final int QUORUM_PLAIN_PRODUCERS = 1;

  /** The journal every quorum stream of the cluster is placed on (docs/design/quorum.md). */
  static final String JOURNAL = "quorum-1";

  /** The fraction of idempotent 200 answers the client pretends it never received. */
  static final double DROP_ANSWER = 0.1;

  final ProcessCluster cluster;

  /** The namespace the workload writes to and reads from. */
  final String namespace;

  final ChaosHttp http;
  final Path faultFile;
  final long seed;
  final long durationSeconds;
  final ChaosChecker checker = new ChaosChecker();
  final Map<String, AtomicLong> faults = new ConcurrentHashMap<>();
  final AtomicLong maxToken = new AtomicLong();
  final ConcurrentLinkedQueue<Long> ackTimes;

  /**
   * The leaderless stream every scenario writes ({@link #STREAM}); its checker is {@link #checker}.
   */
  final ChaosStream stream;

  /**
   * The quorum stream the three-node scenario also writes ({@link #QUORUM_STREAM} in the {@code
   * default} namespace, since quorum streams of encrypted namespaces are refused), or null.
   */
  volatile ChaosStream quorum;

  /** Bumped on every kill or pause: consumers lease again after one (their owner may be gone). */
  final AtomicInteger killEpoch = new AtomicInteger();

  final List<Thread> threads = new ArrayList<>();

  /** "n2 leader", "n3 other", "n1+n4 minority", "n5 paused 6000 ms", ...; guarded by itself. */
  final List<String> kills = new ArrayList<>();

  final List<Long> restartMillis = new ArrayList<>();

  /** Process faults other than kills by kind ("pause", "clock step", ...); guarded by itself. */
  final Map<String, Integer> processFaults = new java.util.TreeMap<>();

  // Counters for the summary (the first seven are the leaderless stream's, see ChaosStream).
  final AtomicLong idempotentRetries;
  final AtomicLong droppedAnswers;
  final AtomicLong ackedAfterUnknownAttempt;
  final AtomicLong conflictAnswers;
  final AtomicLong fencedAnswers;
  final AtomicLong staleFetches;
  final AtomicLong failedFetches;
  final AtomicLong consumerResumes = new AtomicLong();
  final AtomicLong consumerCommits = new AtomicLong();
  final AtomicLong consumerFenced = new AtomicLong();
  final AtomicLong faultToggles = new AtomicLong();

  volatile boolean chaos = true;

  /**
   * Counted down when the harsh nemesis has run one round of every fault kind; the chaos phase
   * lasts its duration or until then, whichever is later, so a slow machine (JVMs that take long to
   * restart) still sees every kind. Scenarios without rounds leave it at zero.
   */
  final java.util.concurrent.CountDownLatch firstRound = new java.util.concurrent.CountDownLatch(1);

  volatile boolean rounds;
  volatile long chaosStart;
  volatile boolean producing = true;
  volatile long giveUpAt = Long.MAX_VALUE;
  volatile boolean consumersStop;
  final long[] consumeTarget = {-1, -1, -1, -1};
  final long[] consumerFinal = {-1, -1, -1, -1};

  ChaosRun(ProcessCluster cluster, Path faultFile, long seed, long durationSeconds) {
    this(cluster, "default", faultFile, seed, durationSeconds);
  }

  /** The workload stream's HTTP path. */
  String base() {
    return "/v1/namespaces/" + namespace + "/streams/" + STREAM;
  }

  ChaosRun(
      ProcessCluster cluster, String namespace, Path faultFile, long seed, long durationSeconds) {
    this.namespace = namespace;
    this.cluster = cluster;
    this.http = new ChaosHttp(cluster);
    this.faultFile = faultFile;
    this.seed = seed;
    this.durationSeconds = durationSeconds;
    this.stream = new ChaosStream(namespace, STREAM, PARTITIONS, false, checker);
    this.ackTimes = stream.ackTimes;
    this.idempotentRetries = stream.idempotentRetries;
    this.droppedAnswers = stream.droppedAnswers;
    this.ackedAfterUnknownAttempt = stream.ackedAfterUnknownAttempt;
    this.conflictAnswers = stream.conflictAnswers;
    this.fencedAnswers = stream.fencedAnswers;
    this.staleFetches = stream.staleFetches;
    this.failedFetches = stream.failedFetches;
  }

  void processFault(String kind) {
    synchronized (processFaults) {
      processFaults.merge(kind, 1, Integer::sum);
    }
  }

  double chaosEndsIn() {
    return durationSeconds - sinceChaos();
  }

  double sinceChaos() {
    return (System.nanoTime() - chaosStart) / 1e9;
  }

  /** Replaces the fault file every node re-reads (every 100 ms) in one atomic rename. */
  void writeFaults(FaultRates r) throws IOException {
    Path part = faultFile.resolveSibling(faultFile.getFileName() + ".tmp");
    Files.writeString(part, r.toText(), StandardCharsets.UTF_8);
    Files.move(
        part, faultFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  Thread spawn(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    synchronized (threads) {
      threads.add(t);
    }
    t.start();
    return t;
  }

  /** Sleeps; an interrupt (the test is ending) stops every loop through the flags. */
  void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopEverything();
    }
  }

  void stopEverything() {
    chaos = false;
    producing = false;
    consumersStop = true;
    giveUpAt = 0;
  }

  /** Stops every loop and waits for the threads (the test is over, passed or not). */
  void close() throws InterruptedException {
    stopEverything();
    List<Thread> all;
    synchronized (threads) {
      all = List.copyOf(threads);
    }
    for (Thread t : all) {
      t.interrupt();
    }
    for (Thread t : all) {
      t.join(TimeUnit.SECONDS.toMillis(20));
    }
  }
}
