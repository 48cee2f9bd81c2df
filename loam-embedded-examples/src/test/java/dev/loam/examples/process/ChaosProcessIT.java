package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.examples.fault.FaultKind;
import dev.loam.examples.fault.FaultRates;
import dev.loam.examples.process.ChaosChecker.Rec;
import dev.loam.examples.process.ChaosChecker.Verdict;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process-level chaos test (docs/design/simulation.md, "Process-level chaos test"): three
 * {@code loam node} processes (real Ratis, real sockets, the filesystem store), a workload over
 * HTTP (idempotent producers that retry through other nodes, plain producers that never retry,
 * named consumers that commit and resume), kill -9 of a node every few seconds (every other kill
 * aimed at the metastore leader) with a restart after a short delay, and the object-store fault
 * injector ({@code --fault-file}) switched on and off. Then faults off, every node up, the
 * producers finish, the consumers catch up, everything is read back from every node and {@link
 * ChaosChecker} judges it. Prints a summary table (also written to {@code
 * target/process-cluster/ChaosProcessIT/summary.md}).
 *
 * <p>{@code -Dloam.chaos.durationS=N} sets the chaos phase (default 45 s), {@code
 * -Dloam.chaos.seed=S} the test's own random choices (kill targets, delays, record counts; the
 * processes' timing is not reproducible).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ChaosProcessIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String STREAM = "chaos";
  static final String BASE = "/v1/namespaces/default/streams/" + STREAM;
  static final String CONSUMER = "chaos-readers";
  static final int PARTITIONS = 4;
  static final int PLAIN_PRODUCERS = 2;
  static final long LIVENESS_MS = 3_000;
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** The fraction of idempotent 200 answers the client pretends it never received. */
  static final double DROP_ANSWER = 0.1;

  static final FaultRates FAULTS_ON = new FaultRates(0.2, 0.1, 0.2);
  static final Pattern FAULT = Pattern.compile("loam: node \\S+ fault kind=(\\S+) ");

  final long durationSeconds = Long.getLong("loam.chaos.durationS", 45);
  final long seed = Long.getLong("loam.chaos.seed", System.nanoTime());

  final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  final ChaosChecker checker = new ChaosChecker();
  final Map<String, AtomicLong> faults = new ConcurrentHashMap<>();
  final AtomicLong maxToken = new AtomicLong();
  final ConcurrentLinkedQueue<Long> ackTimes = new ConcurrentLinkedQueue<>();
  final AtomicInteger killEpoch = new AtomicInteger();
  final List<Thread> threads = new ArrayList<>();
  final List<String> kills = new ArrayList<>();
  final List<Long> restartMillis = new ArrayList<>();

  // Counters for the summary.
  final AtomicLong idempotentRetries = new AtomicLong();
  final AtomicLong droppedAnswers = new AtomicLong();
  final AtomicLong ackedAfterUnknownAttempt = new AtomicLong();
  final AtomicLong conflictAnswers = new AtomicLong();
  final AtomicLong staleFetches = new AtomicLong();
  final AtomicLong failedFetches = new AtomicLong();
  final AtomicLong consumerResumes = new AtomicLong();
  final AtomicLong consumerCommits = new AtomicLong();
  final AtomicLong consumerFenced = new AtomicLong();
  final AtomicLong faultToggles = new AtomicLong();

  volatile boolean chaos = true;
  volatile long chaosStart;
  volatile boolean producing = true;
  volatile long giveUpAt = Long.MAX_VALUE;
  volatile boolean consumersStop;
  final long[] consumeTarget = {-1, -1, -1, -1};
  final long[] consumerFinal = {-1, -1, -1, -1};

  @TempDir Path tmp;
  Path faultFile;
  ProcessCluster cluster;

  @BeforeEach
  void start() throws IOException {
    faultFile = tmp.resolve("faults.properties");
    cluster =
        ProcessCluster.builder()
            .nodes(3)
            .logDir(Path.of("target", "process-cluster", getClass().getSimpleName()))
            .readyTimeout(Duration.ofSeconds(120))
            .nodeArgs(
                "--flush-ms",
                "10",
                "--liveness-timeout-ms",
                Long.toString(LIVENESS_MS),
                "--fault-file",
                faultFile.toString())
            .lineListener(
                (node, line) -> {
                  Matcher m = FAULT.matcher(line);
                  if (m.find()) {
                    faults.computeIfAbsent(m.group(1), k -> new AtomicLong()).incrementAndGet();
                  }
                })
            .start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    chaos = false;
    producing = false;
    consumersStop = true;
    giveUpAt = 0;
    for (Thread t : threads) {
      t.interrupt();
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(20));
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void killsAndStoreFaultsLoseNothingAndDuplicateNothing() throws Exception {
    System.out.println("chaos seed=" + seed + " durationS=" + durationSeconds);
    Random rnd = new Random(seed);
    Answer created =
        call(
            0,
            "POST",
            "/v1/namespaces/default/streams",
            "{\"name\":\"" + STREAM + "\",\"partitions\":" + PARTITIONS + "}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    for (int i = 0; i < cluster.size(); i++) {
      awaitStatus(i, BASE, 200);
    }

    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      long s = rnd.nextLong();
      spawn("idempotent-" + p, () -> idempotentProducer(partition, new Random(s)));
    }
    for (int k = 0; k < PLAIN_PRODUCERS; k++) {
      int index = k;
      long s = rnd.nextLong();
      spawn("plain-" + k, () -> plainProducer(index, new Random(s)));
    }
    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      long s = rnd.nextLong();
      spawn("consumer-" + p, () -> consumer(partition, new Random(s)));
    }
    long killerSeed = rnd.nextLong();
    long togglerSeed = rnd.nextLong();
    // Warm up: the chaos clock starts once the workload runs (JVMs on a loaded box start slowly).
    long warmDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (checker.ackedAppends() < 20) {
      assertThat(System.nanoTime()).as("the workload warms up").isLessThan(warmDeadline);
      Thread.sleep(50);
    }
    long chaosStart = System.nanoTime();
    this.chaosStart = chaosStart;
    Thread killer = spawn("killer", () -> killer(new Random(killerSeed)));
    Thread toggler = spawn("toggler", () -> toggler(new Random(togglerSeed)));

    Thread.sleep(TimeUnit.SECONDS.toMillis(durationSeconds));
    chaos = false;
    long chaosEnd = System.nanoTime();
    toggler.join(TimeUnit.SECONDS.toMillis(10));
    writeFaults(FaultRates.OFF);
    killer.join(TimeUnit.SECONDS.toMillis(150));
    assertThat(killer.isAlive()).as("the killer's last restart finished").isFalse();
    for (int i = 0; i < cluster.size(); i++) {
      assertThat(cluster.isAlive(i)).as("node %d up after the chaos", i).isTrue();
    }
    Thread.sleep(300); // the nodes re-read the fault file every 100 ms

    // Heal: the producers finish what they have in flight (retrying) and stop.
    producing = false;
    giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (Thread t : threads) {
      if (t.getName().startsWith("idempotent-") || t.getName().startsWith("plain-")) {
        t.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
      }
    }

    // Read everything back from every node; the replicas must agree.
    Map<Integer, List<Rec>> readBack = readAll(0);
    for (int i = 1; i < cluster.size(); i++) {
      Map<Integer, List<Rec>> other = readAll(i);
      if (!other.equals(readBack)) {
        checker.violation("node " + cluster.nodeId(i) + " reads back other records than node n1");
      }
    }

    // The consumers catch up to the end, commit it, and check it.
    synchronized (consumeTarget) {
      for (int p = 0; p < PARTITIONS; p++) {
        consumeTarget[p] = readBack.get(p).size();
      }
    }
    for (Thread t : threads) {
      if (t.getName().startsWith("consumer-")) {
        t.join(TimeUnit.SECONDS.toMillis(90));
        assertThat(t.isAlive()).as("%s caught up", t.getName()).isFalse();
      }
    }

    Verdict v = checker.verify(readBack);
    String summary = summary(v, chaosStart, chaosEnd);
    System.out.println(summary);
    Path out = Path.of("target", "process-cluster", getClass().getSimpleName(), "summary.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, summary, StandardCharsets.UTF_8);

    assertThat(v.violations()).as("violations (node logs in target/process-cluster)").isEmpty();
    assertThat(v.lost()).isZero();
    assertThat(v.duplicates()).isZero();
    assertThat(v.outOfOrderReads()).isZero();
    assertThat(v.ackedAppends()).as("the workload made progress").isGreaterThan(50);
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(consumerFinal[p])
          .as("consumer of partition %d committed the end", p)
          .isEqualTo(readBack.get(p).size());
    }
    if (durationSeconds >= 20) {
      // How many kills fit depends on how fast a JVM starts here (5 s idle, 30 s on a loaded box).
      assertThat(kills).as("kills").isNotEmpty();
      assertThat(kills).as("a leader kill").anyMatch(k -> k.endsWith("leader"));
      assertThat(faults.values().stream().mapToLong(AtomicLong::get).sum())
          .as("faults injected")
          .isPositive();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Workload

  /**
   * One idempotent producer bound to {@code partition}: each request is retried with the same
   * producer id, epoch, sequence and bytes (through another node) until it is acknowledged.
   */
  private void idempotentProducer(int partition, Random rnd) {
    long pid = allocateProducer(rnd);
    if (pid < 0) {
      return;
    }
    long seq = 0;
    while (producing) {
      int n = 1 + rnd.nextInt(3);
      List<String> values = new ArrayList<>();
      ArrayNode recs = JSON.createArrayNode();
      for (int k = 0; k < n; k++) {
        String v = "i" + pid + "-" + (seq + k);
        values.add(v);
        recs.addObject().put("value", v).put("partition", partition);
      }
      ObjectNode body = JSON.createObjectNode();
      body.put("producer_id", pid).put("producer_epoch", 0).put("sequence", seq);
      body.set("records", recs);
      checker.sent(values);
      produceUntilAcknowledged(partition, values, body.toString(), rnd);
      seq += n;
      pause(5 + rnd.nextInt(20));
    }
  }

  private void produceUntilAcknowledged(
      int partition, List<String> values, String body, Random rnd) {
    int node = rnd.nextInt(cluster.size());
    boolean maybe = false;
    List<Long> dropped = null;
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0) {
        idempotentRetries.incrementAndGet();
        node = (node + 1 + rnd.nextInt(cluster.size() - 1)) % cluster.size();
        pause(50 + rnd.nextInt(150));
      }
      if (System.nanoTime() - giveUpAt > 0) {
        if (maybe) {
          checker.unknownOutcome(values);
        } else {
          checker.definitelyFailed(values);
        }
        return;
      }
      try {
        Answer a = call(node, "POST", BASE + "/records", body);
        switch (a.status()) {
          case 200 -> {
            if (attempt < 3 && rnd.nextDouble() < DROP_ANSWER) {
              // The answer is "lost on the way back": retry as if the connection had failed.
              droppedAnswers.incrementAndGet();
              if (dropped == null) {
                dropped = offsetsOf(a);
              }
              maybe = true;
              continue;
            }
            if (dropped != null) {
              List<Long> offsets = offsetsOf(a);
              if (!dropped.equals(offsets) || !a.body().contains("\"duplicate\":true")) {
                checker.violation(
                    "retry of an appended idempotent request answered "
                        + a.body()
                        + " but the dropped answer had offsets "
                        + dropped);
              }
            }
            if (acked(partition, values, a) && maybe) {
              ackedAfterUnknownAttempt.incrementAndGet();
            }
            return;
          }
          case 503, 429 -> {}
          case 504 -> maybe = true;
          case 409 -> {
            conflictAnswers.incrementAndGet();
            System.out.println(
                "idempotent produce 409 at " + cluster.nodeId(node) + ": " + a.body());
            maybe = true;
          }
          default -> {
            checker.violation(
                "produce answered " + a.status() + " at " + cluster.nodeId(node) + ": " + a.body());
            maybe = true;
          }
        }
      } catch (CallFailed e) {
        maybe |= !e.notSent;
      }
    }
  }

  /** A producer that never retries: each append is acknowledged, refused, or of unknown outcome. */
  private void plainProducer(int index, Random rnd) {
    long n = 0;
    while (producing) {
      int partition = rnd.nextInt(PARTITIONS);
      int count = 1 + rnd.nextInt(3);
      List<String> values = new ArrayList<>();
      ArrayNode recs = JSON.createArrayNode();
      for (int k = 0; k < count; k++) {
        String v = "x" + index + "-" + n++;
        values.add(v);
        recs.addObject().put("value", v).put("partition", partition);
      }
      ObjectNode body = JSON.createObjectNode();
      body.set("records", recs);
      checker.sent(values);
      int node = rnd.nextInt(cluster.size());
      try {
        Answer a = call(node, "POST", BASE + "/records", body.toString());
        switch (a.status()) {
          case 200 -> acked(partition, values, a);
          case 503, 429 -> checker.definitelyFailed(values);
          case 504 -> checker.unknownOutcome(values);
          default -> {
            checker.violation(
                "produce answered " + a.status() + " at " + cluster.nodeId(node) + ": " + a.body());
            checker.unknownOutcome(values);
          }
        }
      } catch (CallFailed e) {
        if (e.notSent) {
          checker.definitelyFailed(values);
        } else {
          checker.unknownOutcome(values);
        }
      }
      pause(10 + rnd.nextInt(30));
    }
  }

  /** Records a 200 produce answer; false (and a violation) if it is malformed. */
  private List<Long> offsetsOf(Answer a) {
    List<Long> offsets = new ArrayList<>();
    try {
      for (JsonNode r : JSON.readTree(a.body()).get("records")) {
        offsets.add(r.get("offset").asLong());
      }
    } catch (IOException | RuntimeException e) {
      checker.violation("malformed produce answer " + a.body() + ": " + e);
    }
    return offsets;
  }

  private boolean acked(int partition, List<String> values, Answer a) {
    try {
      JsonNode b = JSON.readTree(a.body());
      List<Long> offsets = new ArrayList<>();
      for (JsonNode r : b.get("records")) {
        if (r.get("partition").asInt() != partition) {
          checker.violation("record for partition " + partition + " acknowledged in " + r);
        }
        offsets.add(r.get("offset").asLong());
      }
      long token = Long.parseLong(b.get("token").asText());
      maxToken.accumulateAndGet(token, Math::max);
      checker.acked(partition, offsets, values, b.get("duplicate").asBoolean());
      ackTimes.add(System.nanoTime());
      return true;
    } catch (IOException | RuntimeException e) {
      checker.violation("malformed produce answer " + a.body() + ": " + e);
      return false;
    }
  }

  private long allocateProducer(Random rnd) {
    while (System.nanoTime() - giveUpAt < 0 && producing) {
      int node = rnd.nextInt(cluster.size());
      try {
        Answer a = call(node, "POST", "/v1/producers", "{}");
        if (a.status() == 200) {
          return JSON.readTree(a.body()).get("producer_id").asLong();
        }
      } catch (CallFailed | IOException e) {
        // Try another node.
      }
      pause(200);
    }
    return -1;
  }

  /**
   * The named consumer {@link #CONSUMER} on one partition (holder {@code w<p>}): leases, fetches in
   * offset order from any node, commits about every 300 ms through the owner, and after every kill
   * resumes from the committed offset the lease answer carries (a metastore command, so it reflects
   * every earlier commit), checking it is at least the last successful commit.
   */
  private void consumer(int partition, Random rnd) {
    String path =
        "/v1/namespaces/default/consumers/"
            + CONSUMER
            + "/streams/"
            + STREAM
            + "/partitions/"
            + partition;
    String holder = "w" + partition;
    long generation = -1;
    long position = 0;
    long lastCommitted = -1;
    long lastSeenCommitted = -1;
    long lastCommitAt = 0;
    int seenKills = -1;
    long deadline = Long.MAX_VALUE;
    while (!consumersStop) {
      long target;
      synchronized (consumeTarget) {
        target = consumeTarget[partition];
      }
      if (target >= 0) {
        if (deadline == Long.MAX_VALUE) {
          deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        }
        if (position >= target && lastCommitted == position) {
          consumerFinal[partition] = verifyFinalCommit(path, holder, position, rnd);
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          checker.violation(
              "consumer of partition "
                  + partition
                  + " did not catch up: position "
                  + position
                  + " target "
                  + target);
          return;
        }
      }
      int kills = killEpoch.get();
      if (generation < 0 || kills != seenKills) {
        try {
          Answer a =
              ownerBound(
                  rnd.nextInt(cluster.size()),
                  "POST",
                  path + "/lease",
                  "{\"holder\":\"" + holder + "\",\"lease_ms\":10000}");
          if (a.status() != 200) {
            pause(200);
            continue;
          }
          JsonNode st = JSON.readTree(a.body());
          generation = st.get("generation").asLong();
          long committed =
              st.get("committed_offset").isNull() ? -1 : st.get("committed_offset").asLong();
          if (committed < lastCommitted) {
            checker.violation(
                "consumer partition "
                    + partition
                    + ": committed offset "
                    + committed
                    + " after a successful commit of "
                    + lastCommitted);
          }
          if (committed < lastSeenCommitted) {
            checker.violation(
                "consumer partition "
                    + partition
                    + ": committed offset went backwards from "
                    + lastSeenCommitted
                    + " to "
                    + committed);
          }
          lastSeenCommitted = Math.max(lastSeenCommitted, committed);
          position = Math.max(0, committed);
          seenKills = kills;
          consumerResumes.incrementAndGet();
        } catch (CallFailed | IOException e) {
          pause(200);
        }
        continue;
      }
      int node = rnd.nextInt(cluster.size());
      try {
        Answer f =
            call(
                node,
                "GET",
                BASE
                    + "/partitions/"
                    + partition
                    + "/records?offset="
                    + position
                    + "&max_wait_ms=300&max_bytes=65536&min_token="
                    + maxToken.get(),
                null);
        if (f.status() == 200) {
          JsonNode b = JSON.readTree(f.body());
          List<Rec> recs = new ArrayList<>();
          for (JsonNode r : b.get("records")) {
            recs.add(new Rec(partition, r.get("offset").asLong(), r.get("value").asText()));
          }
          checker.fetched(cluster.nodeId(node), partition, position, recs);
          long next = b.get("next_offset").asLong();
          if (next != position + recs.size()) {
            checker.violation(
                "fetch of partition "
                    + partition
                    + " from "
                    + position
                    + " answered "
                    + recs.size()
                    + " records and next_offset "
                    + next);
          }
          position = next;
        } else if (f.status() == 416) {
          JsonNode b = JSON.readTree(f.body());
          if (position < b.get("log_start_offset").asLong()) {
            checker.violation(
                "consumer position " + position + " below the log start: " + f.body());
          }
          staleFetches.incrementAndGet();
          pause(100);
        } else if (f.status() == 503 || f.status() == 504) {
          failedFetches.incrementAndGet();
          pause(100);
        } else {
          checker.violation(
              "fetch answered " + f.status() + " at " + cluster.nodeId(node) + ": " + f.body());
          pause(100);
        }
      } catch (CallFailed | IOException e) {
        failedFetches.incrementAndGet();
        pause(100);
      }
      if (position != lastCommitted) {
        if (System.nanoTime() - lastCommitAt > TimeUnit.MILLISECONDS.toNanos(300)) {
          lastCommitAt = System.nanoTime();
          try {
            Answer c =
                ownerBound(
                    rnd.nextInt(cluster.size()),
                    "POST",
                    path + "/offset",
                    "{\"generation\":" + generation + ",\"offset\":" + position + "}");
            if (c.status() == 200) {
              long committed = JSON.readTree(c.body()).get("committed_offset").asLong();
              if (committed != position) {
                checker.violation(
                    "commit of " + position + " answered committed_offset " + committed);
              }
              lastCommitted = position;
              lastSeenCommitted = Math.max(lastSeenCommitted, position);
              consumerCommits.incrementAndGet();
            } else if (c.status() == 409) {
              consumerFenced.incrementAndGet();
              generation = -1;
            }
          } catch (CallFailed | IOException e) {
            // Commit again later.
          }
        }
      }
    }
  }

  /** After the last commit: a lease answer (linearizable) shows exactly the final position. */
  private long verifyFinalCommit(String path, String holder, long position, Random rnd) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() - deadline < 0) {
      try {
        Answer a =
            ownerBound(
                rnd.nextInt(cluster.size()),
                "POST",
                path + "/lease",
                "{\"holder\":\"" + holder + "\",\"lease_ms\":10000}");
        if (a.status() == 200) {
          JsonNode c = JSON.readTree(a.body()).get("committed_offset");
          return c.isNull() ? -1 : c.asLong();
        }
      } catch (CallFailed | IOException e) {
        // Again.
      }
      pause(200);
    }
    return -2;
  }

  // ---------------------------------------------------------------------------------------------
  // Chaos

  /**
   * 1-3 s after the previous node is ready again, kills a node with SIGKILL (the first and every
   * other kill aims at the metastore leader, when one is known; the others at a random node),
   * restarts it after 0.5-2 s (same id and data, a new epoch) and waits until it is ready, so at
   * most one node is down at a time.
   */
  private void killer(Random rnd) {
    try {
      for (int k = 0; chaos; k++) {
        pause(1000 + rnd.nextInt(2000));
        if (!chaos || chaosEndsIn() < 5) {
          return;
        }
        OptionalInt leader = cluster.metastoreLeader();
        if (k % 2 == 0 && leader.isEmpty()) {
          try {
            leader = OptionalInt.of(cluster.awaitMetastoreLeader(Duration.ofSeconds(10)));
          } catch (IllegalStateException e) {
            // No leader announced (an election still running): a random node then.
          }
        }
        int target =
            k % 2 == 0 && leader.isPresent() ? leader.getAsInt() : rnd.nextInt(cluster.size());
        boolean wasLeader = leader.isPresent() && leader.getAsInt() == target;
        cluster.kill9(target);
        killEpoch.incrementAndGet();
        String kill = cluster.nodeId(target) + (wasLeader ? " leader" : " other");
        synchronized (kills) {
          kills.add(kill);
        }
        System.out.printf(Locale.ROOT, "chaos: %.1f s kill -9 %s%n", sinceChaos(), kill);
        pause(500 + rnd.nextInt(1500));
        long t0 = System.nanoTime();
        cluster.restart(target);
        synchronized (kills) {
          restartMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        }
        System.out.printf(
            Locale.ROOT,
            "chaos: %.1f s restarted %s (ready after %d ms)%n",
            sinceChaos(),
            cluster.nodeId(target),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      checker.violation("kill/restart failed: " + e);
    }
  }

  /**
   * Switches the store faults on for 3-6 s, off for 2-4 s, until the chaos ends; leaves them off.
   */
  private void toggler(Random rnd) {
    try {
      while (chaos) {
        writeFaults(FAULTS_ON);
        faultToggles.incrementAndGet();
        System.out.printf(Locale.ROOT, "chaos: %.1f s store faults on%n", sinceChaos());
        pause(3000 + rnd.nextInt(3000));
        writeFaults(FaultRates.OFF);
        System.out.printf(Locale.ROOT, "chaos: %.1f s store faults off%n", sinceChaos());
        pause(2000 + rnd.nextInt(2000));
      }
    } catch (IOException e) {
      checker.violation("could not write the fault file: " + e);
    } finally {
      try {
        writeFaults(FaultRates.OFF);
      } catch (IOException e) {
        checker.violation("could not switch faults off: " + e);
      }
    }
  }

  private double chaosEndsIn() {
    return durationSeconds - sinceChaos();
  }

  private double sinceChaos() {
    return (System.nanoTime() - chaosStart) / 1e9;
  }

  private void writeFaults(FaultRates r) throws IOException {
    Path part = faultFile.resolveSibling(faultFile.getFileName() + ".tmp");
    Files.writeString(part, r.toText(), StandardCharsets.UTF_8);
    Files.move(
        part, faultFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  // ---------------------------------------------------------------------------------------------
  // Read-back and summary

  /** Every partition from offset 0 to its high watermark, read on node {@code i}. */
  private Map<Integer, List<Rec>> readAll(int i) throws Exception {
    Map<Integer, List<Rec>> out = new TreeMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<Rec> recs = new ArrayList<>();
      long offset = 0;
      int failures = 0;
      while (true) {
        Answer f;
        try {
          f =
              call(
                  i,
                  "GET",
                  BASE
                      + "/partitions/"
                      + p
                      + "/records?offset="
                      + offset
                      + "&max_bytes=1048576&min_token="
                      + maxToken.get(),
                  null);
        } catch (CallFailed e) {
          f = new Answer(-1, e.toString(), null);
        }
        if (f.status() != 200) {
          assertThat(++failures)
              .as("read-back on %s: %s", cluster.nodeId(i), f.body())
              .isLessThan(20);
          pause(250);
          continue;
        }
        JsonNode b = JSON.readTree(f.body());
        List<Rec> page = new ArrayList<>();
        for (JsonNode r : b.get("records")) {
          page.add(new Rec(p, r.get("offset").asLong(), r.get("value").asText()));
        }
        recs.addAll(page);
        offset = b.get("next_offset").asLong();
        if (offset >= b.get("high_watermark").asLong()) {
          break;
        }
      }
      out.put(p, recs);
    }
    return out;
  }

  private String summary(Verdict v, long chaosStart, long chaosEnd) {
    List<Long> times = new ArrayList<>(ackTimes);
    times.sort(null);
    long longestGap = 0;
    long gapAt = 0;
    long prev = chaosStart;
    for (long t : times) {
      if (t < chaosStart) {
        continue;
      }
      long at = Math.min(t, chaosEnd);
      if (at - prev > longestGap) {
        longestGap = at - prev;
        gapAt = prev - chaosStart;
      }
      prev = at;
      if (t >= chaosEnd) {
        break;
      }
    }
    if (chaosEnd - prev > longestGap) {
      longestGap = chaosEnd - prev;
      gapAt = prev - chaosStart;
    }
    Map<String, Integer> byNode = new TreeMap<>();
    long leaderKills;
    List<Long> restarts;
    synchronized (kills) {
      kills.forEach(k -> byNode.merge(k.split(" ")[0], 1, Integer::sum));
      leaderKills = kills.stream().filter(k -> k.endsWith("leader")).count();
      restarts = List.copyOf(restartMillis);
    }
    StringBuilder faultText = new StringBuilder();
    for (FaultKind k : FaultKind.values()) {
      AtomicLong c = faults.get(k.key());
      faultText
          .append(faultText.length() == 0 ? "" : ", ")
          .append(k.key())
          .append(' ')
          .append(c == null ? 0 : c.get());
    }
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%n## Chaos run (seed %d, %d s of chaos, 3 loam node processes)%n%n",
            seed,
            durationSeconds));
    b.append("| measure | value |\n| --- | --- |\n");
    row(
        b,
        "appends acknowledged (requests / records)",
        v.ackedAppends() + " / " + v.ackedRecords());
    row(b, "idempotent retries (attempts after the first)", idempotentRetries.get());
    row(
        b,
        "idempotent 200 answers dropped by the client (then retried elsewhere)",
        droppedAnswers.get());
    row(
        b,
        "idempotent appends acknowledged after an unknown-outcome attempt",
        ackedAfterUnknownAttempt.get());
    row(b, "answers marked duplicate (a retry of an appended request)", v.duplicateAnswers());
    row(b, "409 answers to idempotent produce", conflictAnswers.get());
    row(
        b,
        "unknown-outcome appends (records present / absent)",
        v.unknownAppends()
            + " ("
            + v.unknownRecordsPresent()
            + " / "
            + v.unknownRecordsAbsent()
            + ")");
    row(b, "appends refused before anything was appended (must be absent)", v.definiteFailures());
    row(b, "**lost acknowledged records** (must be 0)", v.lost());
    row(b, "**duplicate records** (must be 0)", v.duplicates());
    row(b, "**out-of-order reads** (must be 0)", v.outOfOrderReads());
    row(b, "violations of any kind (listed below; must be 0)", v.violations().size());
    row(
        b,
        "records fetched during the run / read back per node",
        v.fetchedRecords() + " / " + v.readBackRecords());
    row(
        b,
        "fetches refused or failed (retried) / on a replica behind the offset",
        failedFetches.get() + " / " + staleFetches.get());
    row(
        b,
        "consumer resumes from the committed offset / commits / fenced commits",
        consumerResumes.get() + " / " + consumerCommits.get() + " / " + consumerFenced.get());
    row(b, "kills (kill -9) by node", kills.size() + " " + byNode);
    row(b, "kills of the metastore leader", leaderKills);
    row(b, "restart to ready (ms)", restarts);
    row(b, "fault injector switched on", faultToggles.get() + " times");
    row(b, "faults injected by kind", faultText);
    row(
        b,
        "longest unavailability (longest gap without a successful ack)",
        String.format(
            Locale.ROOT,
            "%d ms (from %.1f s into the chaos)",
            TimeUnit.NANOSECONDS.toMillis(longestGap),
            gapAt / 1e9));
    if (!v.violations().isEmpty()) {
      b.append("\nViolations:\n");
      v.violations().forEach(s -> b.append("- ").append(s).append('\n'));
    }
    return b.toString();
  }

  private static void row(StringBuilder b, String what, Object value) {
    b.append("| ").append(what).append(" | ").append(value).append(" |\n");
  }

  // ---------------------------------------------------------------------------------------------
  // HTTP

  /** An HTTP answer. */
  record Answer(int status, String body, String location) {}

  /** No answer: {@code notSent} when the connection was never made (nothing reached the node). */
  static final class CallFailed extends Exception {
    final boolean notSent;

    CallFailed(boolean notSent, Throwable cause) {
      super(cause.toString(), cause);
      this.notSent = notSent;
    }
  }

  private Answer call(int node, String method, String pathAndQuery, String body) throws CallFailed {
    return callUrl(cluster.httpUrl(node) + pathAndQuery, method, body);
  }

  /** Follows up to three 307s by hand (an owner-bound request sent to a non-owner). */
  private Answer ownerBound(int node, String method, String path, String body) throws CallFailed {
    Answer a = call(node, method, path, body);
    for (int hop = 0; hop < 3 && a.status() == 307 && a.location() != null; hop++) {
      a = callUrl(a.location(), method, body);
    }
    return a;
  }

  private Answer callUrl(String url, String method, String body) throws CallFailed {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_TIMEOUT);
    if (body != null) {
      r.header("content-type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      r.method(method, HttpRequest.BodyPublishers.noBody());
    }
    try {
      HttpResponse<String> resp = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(
          resp.statusCode(), resp.body(), resp.headers().firstValue("location").orElse(null));
    } catch (HttpConnectTimeoutException | ConnectException e) {
      throw new CallFailed(true, e);
    } catch (IOException e) {
      throw new CallFailed(false, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CallFailed(true, e);
    }
  }

  private void awaitStatus(int node, String path, int status) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        if (call(node, "GET", path, null).status() == status) {
          return;
        }
      } catch (CallFailed e) {
        // Again.
      }
      assertThat(System.nanoTime())
          .as("GET %s on node %d answers %d", path, node, status)
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  private Thread spawn(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
    return t;
  }

  /** Sleeps; an interrupt (the test is ending) stops every loop through the flags. */
  private void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      chaos = false;
      producing = false;
      consumersStop = true;
      giveUpAt = 0;
    }
  }
}
