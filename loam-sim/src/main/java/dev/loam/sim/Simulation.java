package dev.loam.sim;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.TrimPartition;
import dev.loam.sim.check.Checker;
import dev.loam.sim.check.OwnershipChecker;
import dev.loam.store.express.ExpressObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One deterministic run of a Loam cluster, decided by one seed (docs/simulation.md): N real {@link
 * LoamNode}s sharing a {@link SimObjectStore} and a {@link SimMetastore}, all on one {@link
 * SimScheduler}; a workload of plain and idempotent appends (idempotent ones retried until
 * acknowledged), fetches, node crashes and restarts, metastore leader changes and a clock step of
 * ±90 s on one node; then a healing phase (faults off, every node back) and a read-back of every
 * partition that the {@link Checker} validates.
 *
 * <p>Everything random is drawn from per-component streams of the seed ({@link Seeds}), so a seed
 * replays exactly: {@link Result#traceHash()} is the same on every run.
 */
public final class Simulation {
  static final String NS = "sim";

  /**
   * The shape of a run; the fault probabilities themselves are drawn from the seed.
   *
   * @param workload simulated time during which the workload and the faults run
   */
  public record Config(int nodes, Duration workload, int producers, boolean faults) {
    public static Config defaults() {
      return new Config(3, Duration.ofSeconds(20), 3, true);
    }
  }

  /** What a run did and found. */
  public record Result(
      long seed,
      String traceHash,
      long traceLines,
      long steps,
      long simulatedMillis,
      List<String> violations,
      List<String> faultSchedule,
      Map<String, Long> counts,
      List<String> traceTail) {
    public boolean ok() {
      return violations.isEmpty();
    }

    /** The failure report: seed, violations, the fault schedule and how to replay. */
    public String report() {
      StringBuilder b = new StringBuilder();
      b.append("simulation seed=").append(seed).append(" violations=").append(violations.size());
      b.append(
              "\nreplay: mvn -B -pl loam-sim -am test -Dtest=ClusterSimTest#replay"
                  + " -Dsurefire.failIfNoSpecifiedTests=false -Dloam.sim.seed=")
          .append(seed);
      violations.forEach(v -> b.append("\n  violation: ").append(v));
      b.append("\nfault schedule:");
      faultSchedule.forEach(f -> b.append("\n  ").append(f));
      b.append("\ncounts: ").append(counts);
      b.append("\ntrace hash=").append(traceHash).append(" lines=").append(traceLines);
      if (!violations.isEmpty()) {
        b.append("\nlast trace lines (simulated ns, event):");
        traceTail.forEach(l -> b.append("\n  ").append(l.strip()));
      }
      return b.toString();
    }
  }

  private final long seed;
  private final Config config;
  private final SimClock clock = new SimClock();
  private final SimScheduler scheduler = new SimScheduler(clock);
  private final Trace trace = new Trace(clock);
  private final SplittableRandom workRandom;
  private final SplittableRandom faultRandom;
  private final SimObjectStore store;

  /** The three zonal stores of the express class, or empty when this seed runs without it. */
  private final List<SimObjectStore> zones = new ArrayList<>();

  private final SimMetastore meta;
  private final Checker checker;
  private final OwnershipChecker ownershipChecker;
  private final NodeSettings settings;
  private final OwnershipSettings ownershipSettings;
  private final List<Consumer> consumers = new ArrayList<>();
  private final Map<Long, Long> unavailableSince = new HashMap<>();
  private final Map<Long, Long> closedSince = new HashMap<>();
  private long maxOwnerGapNanos;
  private long maxRevivalNanos;
  private long lastAckNanos;
  private long maxAckGapNanos;
  private boolean healing;
  private final List<Node> nodes = new ArrayList<>();
  private final List<String> schedule = new ArrayList<>();
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private final List<Append> appends = new ArrayList<>();
  private final List<Producer> producers = new ArrayList<>();
  private final List<Stream> streams = new ArrayList<>();
  private long workloadEndNanos;
  private int pendingOps;

  private static final class Node {
    final String id;
    final SimClock.Skewed clock;
    LoamNode node;
    int incarnation;
    SimScheduler.Process process;

    /** When this node last started or resumed: a death verdict soon after is explainable. */
    long disturbedAtNanos;

    boolean leaving;

    Node(String id, SimClock.Skewed clock) {
      this.id = id;
      this.clock = clock;
    }
  }

  private record Stream(
      String name, int partitions, long retentionMillis, long retentionBytes, boolean express) {}

  /**
   * A named consumer (stream-engine.txt §7) as a client process colocated with one node: it takes
   * the lease, reads from its position and commits; when its node crashes it restarts on another
   * node under a new holder name and resumes from the committed offset.
   */
  private static final class Consumer {
    final String name;
    final Stream stream;
    final int partition;
    final long leaseMillis;
    Node host;
    int hostIncarnation;
    int instance;
    String holder;
    long generation = -1;
    long position;
    long lastAckedCommit = -1;
    boolean busy;

    Consumer(String name, Stream stream, int partition, long leaseMillis) {
      this.name = name;
      this.stream = stream;
      this.partition = partition;
      this.leaseMillis = leaseMillis;
    }
  }

  /** One append as the client saw it: every attempt's verdict. */
  private static final class Append {
    final int id;
    final Stream stream;
    final List<String> values = new ArrayList<>();
    final boolean idempotent;

    /** Simulated time the first attempt was sent, and whether that node's clock was true then. */
    long sentNanos = -1;

    boolean sentUnskewed;
    AppendResult acked;
    int attempts;
    boolean unknown; // some attempt's outcome was unknown

    Append(int id, Stream stream, boolean idempotent) {
      this.id = id;
      this.stream = stream;
      this.idempotent = idempotent;
    }
  }

  private static final class Producer {
    final long id;
    final Stream stream;
    final int partition;
    short epoch;
    int sequence;
    Append outstanding;
    ProducerIdentity identity;

    Producer(long id, Stream stream, int partition) {
      this.id = id;
      this.stream = stream;
      this.partition = partition;
    }
  }

  public Simulation(long seed, Config config) {
    this.seed = seed;
    this.config = config;
    this.workRandom = Seeds.stream(seed, "workload");
    this.faultRandom = Seeds.stream(seed, "faults");
    SplittableRandom plan = Seeds.stream(seed, "plan");
    boolean f = config.faults();
    SimObjectStore.Faults sf =
        f
            ? new SimObjectStore.Faults(
                plan.nextDouble() * 0.10,
                plan.nextDouble() * 0.05,
                plan.nextDouble() * 0.05,
                plan.nextDouble() * 0.02,
                500 + plan.nextInt(5_000))
            : SimObjectStore.Faults.none();
    SimMetastore.Faults mf =
        f
            ? new SimMetastore.Faults(
                plan.nextDouble() * 0.10,
                plan.nextDouble() * 0.03,
                plan.nextDouble() * 0.05,
                plan.nextDouble() * 0.05,
                200 + plan.nextInt(3_000))
            : SimMetastore.Faults.none();
    MetaSettings ms = MetaSettings.defaults();
    this.store = new SimObjectStore(scheduler, Seeds.stream(seed, "store"), sf, trace);
    this.meta = new SimMetastore(scheduler, Seeds.stream(seed, "meta"), mf, ms, trace);
    this.checker = new Checker(clock, ms.maxFutureStamp().toMillis());
    meta.addApplyListener(checker);
    boolean tailCache = plan.nextBoolean();
    this.ownershipSettings =
        new OwnershipSettings(
            Duration.ofMillis(6_000 + plan.nextInt(6_000)),
            Duration.ofMillis(100 + plan.nextInt(200)),
            Duration.ofSeconds(3));
    Function<
            Function<dev.loam.meta.MetaReader, OwnershipChecker.Snapshot>,
            OwnershipChecker.Snapshot>
        reader = meta::read;
    this.ownershipChecker = new OwnershipChecker(checker, reader, this::whyNotDead);
    meta.addApplyListener(ownershipChecker);
    meta.addApplyListener((index, command, outcome) -> afterApply(command, outcome));
    this.settings =
        new NodeSettings(
            "",
            "",
            1,
            Duration.ofMillis(20 + plan.nextInt(230)),
            Duration.ofMillis(5),
            1 << 20,
            1 + plan.nextInt(4),
            Duration.ofSeconds(60),
            8L << 20,
            tailCache ? 64L << 10 : 0,
            Duration.ofSeconds(60),
            10_000,
            Duration.ofMillis(10),
            Duration.ofSeconds(2),
            8L << 10,
            64L << 10,
            1 << 10,
            Duration.ofSeconds(10),
            Duration.ofHours(1));
    if (plan.nextBoolean()) {
      for (int z = 0; z < 3; z++) {
        zones.add(new SimObjectStore(scheduler, Seeds.stream(seed, "zone-" + z), sf, trace));
      }
    }
    schedule.add("faults " + sf + " " + mf);
    schedule.add(
        "settings flush="
            + settings.standardFlushInterval().toMillis()
            + "ms inFlight="
            + settings.maxObjectsInFlight()
            + " tailCache="
            + tailCache
            + " liveness="
            + ownershipSettings.livenessTimeout().toMillis()
            + "ms tick="
            + ownershipSettings.tickInterval().toMillis()
            + "ms express="
            + !zones.isEmpty());
    scheduler.onStep((deadline, seq, periodic) -> trace.add("step " + seq));
  }

  public static Result run(long seed) {
    return new Simulation(seed, Config.defaults()).run();
  }

  // ------------------------------------------------------------------ the run

  public Result run() {
    setup();
    workloadEndNanos = clock.nanos() + config.workload().toNanos();
    lastAckNanos = clock.nanos();
    scheduleWorkload();
    consumers.forEach(c -> scheduleConsumer(c));
    if (config.faults()) {
      scheduleFaults();
    }
    scheduler.runFor(config.workload());
    heal();
    validate();
    scheduler.uncaught().forEach(t -> checker.violation("uncaught task failure " + t));
    counts.put("appends", (long) appends.size());
    counts.put("acked", appends.stream().filter(a -> a.acked != null).count());
    counts.put("fetchesChecked", checker.fetchesChecked());
    counts.put("own.deaths", ownershipChecker.deaths());
    counts.put("own.opens", ownershipChecker.opens());
    counts.put("own.placements", ownershipChecker.placements());
    counts.put("own.fencedRefusals", ownershipChecker.fencedRefusals());
    counts.put("maxOwnerGapMillis", TimeUnit.NANOSECONDS.toMillis(maxOwnerGapNanos));
    counts.put("maxRevivalMillis", TimeUnit.NANOSECONDS.toMillis(maxRevivalNanos));
    counts.put("maxAckGapMillis", TimeUnit.NANOSECONDS.toMillis(maxAckGapNanos));
    return new Result(
        seed,
        trace.hash(),
        trace.lines(),
        scheduler.steps(),
        clock.millis() - SimClock.DEFAULT_START_MILLIS,
        checker.violations(),
        List.copyOf(schedule),
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counts)),
        trace.tail());
  }

  private void setup() {
    store.setFaultsEnabled(false);
    meta.setFaultsEnabled(false);
    zones.forEach(z -> z.setFaultsEnabled(false));
    for (int i = 0; i < config.nodes(); i++) {
      Node n = new Node("n" + i, clock.skewed(Duration.ZERO));
      nodes.add(n);
      start(n);
    }
    LoamNode first = nodes.get(0).node;
    await(first.log().createNamespace(NS));
    int streamCount = 1 + workRandom.nextInt(2);
    for (int s = 0; s < streamCount; s++) {
      // Retention on some streams, running concurrently with everything (time or size).
      int r = workRandom.nextInt(4);
      long retentionMillis = r == 1 ? 3_000 + workRandom.nextInt(6_000) : -1;
      long retentionBytes = r == 2 ? (16L << 10) + workRandom.nextInt(48 << 10) : -1;
      boolean express = !zones.isEmpty() && workRandom.nextBoolean();
      Stream st =
          new Stream("s" + s, 1 + workRandom.nextInt(3), retentionMillis, retentionBytes, express);
      streams.add(st);
      await(
          first
              .log()
              .createStream(
                  NS,
                  st.name(),
                  new StreamSpec(
                      st.partitions(),
                      express
                          ? dev.loam.wal.DurabilityClass.EXPRESS
                          : dev.loam.wal.DurabilityClass.STANDARD,
                      retentionMillis,
                      retentionBytes,
                      false)));
      schedule.add(
          "stream "
              + st.name()
              + " partitions="
              + st.partitions()
              + " retentionMillis="
              + retentionMillis
              + " retentionBytes="
              + retentionBytes
              + (express ? " express" : ""));
    }
    for (int p = 0; p < config.producers(); p++) {
      Stream st = streams.get(workRandom.nextInt(streams.size()));
      producers.add(new Producer(1000 + p, st, workRandom.nextInt(st.partitions())));
    }
    int consumerCount = workRandom.nextInt(3);
    for (int c = 0; c < consumerCount; c++) {
      Stream st = streams.get(workRandom.nextInt(streams.size()));
      Consumer k =
          new Consumer(
              "c" + c, st, workRandom.nextInt(st.partitions()), 2_000 + workRandom.nextInt(2_000));
      consumers.add(k);
      schedule.add(
          "consumer "
              + k.name
              + " on "
              + st.name()
              + "/"
              + k.partition
              + " lease="
              + k.leaseMillis);
    }
    store.setFaultsEnabled(config.faults());
    meta.setFaultsEnabled(config.faults());
    zones.forEach(z -> z.setFaultsEnabled(config.faults()));
    trace.add("setup done streams=" + streams);
  }

  private <T> T await(CompletableFuture<T> f) {
    if (!scheduler.runUntil(f::isDone, 1_000_000)) {
      throw new IllegalStateException("setup step never completed seed=" + seed);
    }
    return f.join();
  }

  private boolean start(Node n) {
    n.incarnation++;
    n.process = scheduler.process(n.id + "#" + n.incarnation);
    n.disturbedAtNanos = clock.nanos();
    n.leaving = false;
    try {
      LoamNode.Builder b = LoamNode.builder();
      if (!zones.isEmpty()) {
        // Each node in its own zone (n0 in zone 0, ...): reads try the local zone first.
        int local = Math.floorMod(n.id.hashCode(), 3);
        b.expressStore(new ExpressObjectStore(List.copyOf(zones), local));
      }
      n.node =
          b.nodeId(n.id)
              .objectStore(store)
              .metastore(meta)
              .clock(n.clock)
              .random(Seeds.stream(seed, "node-" + n.id + "-" + n.incarnation))
              .scheduler(n.process)
              .settings(settings)
              .ownership(ownershipSettings)
              .start();
      trace.add("node start " + n.id + " epoch=" + n.node.epoch());
      return true;
    } catch (LoamException e) {
      n.node = null;
      trace.add("node start refused " + n.id + " kind=" + e.kind());
      count("nodeStartRefused");
      return false;
    }
  }

  private void count(String k) {
    counts.merge(k, 1L, Long::sum);
  }

  /** A node a client can reach: started, not paused (a paused process answers nothing). */
  private static boolean running(Node n) {
    return n.node != null && !n.process.paused();
  }

  private Node byId(String id) {
    return nodes.stream().filter(x -> x.id.equals(id)).findFirst().orElse(null);
  }

  private Node liveNode() {
    List<Node> live = nodes.stream().filter(Simulation::running).toList();
    return live.isEmpty() ? null : live.get(workRandom.nextInt(live.size()));
  }

  // ------------------------------------------------------------------ workload

  private void scheduleWorkload() {
    scheduler.schedule(this::workloadTick, 1 + workRandom.nextInt(20), TimeUnit.MILLISECONDS);
  }

  private void workloadTick() {
    if (clock.nanos() >= workloadEndNanos) {
      return;
    }
    int r = workRandom.nextInt(100);
    if (r < 45) {
      plainAppend();
    } else if (r < 70) {
      Producer p = producers.get(workRandom.nextInt(producers.size()));
      if (p.outstanding == null) {
        nextIdempotent(p);
      }
    } else {
      fetch();
    }
    scheduleWorkload();
  }

  private List<AppendRecord> records(Append a, Stream st, int partition, int n) {
    List<AppendRecord> recs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String v = "a" + a.id + ".r" + i + "." + "x".repeat(workRandom.nextInt(300));
      a.values.add(v);
      AppendRecord rec =
          AppendRecord.of(
              ("k" + workRandom.nextInt(16)).getBytes(StandardCharsets.UTF_8),
              v.getBytes(StandardCharsets.UTF_8));
      if (partition >= 0) {
        rec = rec.toPartition(partition);
      }
      recs.add(rec);
    }
    return recs;
  }

  private void plainAppend() {
    Node n = liveNode();
    if (n == null) {
      return;
    }
    Stream st = streams.get(workRandom.nextInt(streams.size()));
    Append a = new Append(appends.size(), st, false);
    appends.add(a);
    int partition = workRandom.nextBoolean() ? workRandom.nextInt(st.partitions()) : -1;
    List<AppendRecord> recs = records(a, st, partition, 1 + workRandom.nextInt(3));
    a.sentNanos = clock.nanos();
    a.sentUnskewed = n.clock.offset().isZero();
    a.attempts++;
    trace.add("append a=" + a.id + " node=" + n.id + " records=" + recs.size());
    pendingOps++;
    n.node
        .log()
        .append(NS, st.name(), recs)
        .whenComplete(
            (res, e) -> {
              pendingOps--;
              verdict(a, res, e);
            });
  }

  private void nextIdempotent(Producer p) {
    Append a = new Append(appends.size(), p.stream, true);
    appends.add(a);
    p.outstanding = a;
    p.identity = new ProducerIdentity(p.id, p.epoch, p.sequence);
    List<AppendRecord> recs = records(a, p.stream, p.partition, 1 + workRandom.nextInt(3));
    sendIdempotent(p, recs);
  }

  private void sendIdempotent(Producer p, List<AppendRecord> recs) {
    Append a = p.outstanding;
    Node n = liveNode();
    if (n == null) {
      retryLater(p, recs);
      return;
    }
    if (a.sentNanos < 0) {
      a.sentNanos = clock.nanos();
      a.sentUnskewed = true;
    }
    a.sentUnskewed &= n.clock.offset().isZero();
    a.attempts++;
    trace.add("idem a=" + a.id + " node=" + n.id + " id=" + p.identity + " attempt=" + a.attempts);
    pendingOps++;
    n.node
        .log()
        .append(NS, p.stream.name(), recs, p.identity)
        .whenComplete(
            (res, e) -> {
              pendingOps--;
              verdict(a, res, e);
              if (e == null) {
                p.sequence += recs.size();
                p.outstanding = null;
                return;
              }
              Kind k = kind(e);
              boolean retriable =
                  k == Kind.UNAVAILABLE
                      || k == Kind.OUTCOME_UNKNOWN
                      || k == Kind.FENCED
                      || k == Kind.CONFLICT;
              if (retriable && a.attempts < 40) {
                retryLater(p, recs);
              } else {
                // Give up on this batch: a Kafka producer re-initialises with a new epoch.
                trace.add("idem abandon a=" + a.id + " kind=" + k);
                count("idempotentAbandoned");
                p.epoch++;
                p.sequence = 0;
                p.outstanding = null;
              }
            });
  }

  private void retryLater(Producer p, List<AppendRecord> recs) {
    count("idempotentRetries");
    pendingOps++;
    scheduler.schedule(
        () -> {
          pendingOps--;
          sendIdempotent(p, recs);
        },
        50 + workRandom.nextInt(450),
        TimeUnit.MILLISECONDS);
  }

  private void verdict(Append a, AppendResult res, Throwable e) {
    if (e == null) {
      trace.add("ack a=" + a.id + " positions=" + res.positions() + " dup=" + res.duplicate());
      if (a.acked != null) {
        checker.violation("append acknowledged twice a=" + a.id);
      }
      a.acked = res;
      if (!healing) {
        maxAckGapNanos = Math.max(maxAckGapNanos, clock.nanos() - lastAckNanos);
        lastAckNanos = clock.nanos();
      }
      if (res.positions().size() != a.values.size()) {
        checker.violation("ack with wrong position count a=" + a.id);
        return;
      }
      for (int i = 0; i < a.values.size(); i++) {
        AppendResult.RecordPosition pos = res.positions().get(i);
        checker.observe(
            new Checker.Part(a.stream.name(), pos.partition()),
            pos.offset(),
            a.values.get(i),
            "ack a=" + a.id);
      }
      return;
    }
    Kind k = kind(e);
    trace.add("fail a=" + a.id + " kind=" + k);
    count("appendFailed." + k);
    if (k == Kind.OUTCOME_UNKNOWN) {
      a.unknown = true;
    } else if (k == Kind.INTERNAL || k == Kind.CORRUPTION || k == Kind.INVALID) {
      checker.violation("append failed with kind=" + k + " a=" + a.id + " " + e);
    }
  }

  private static Kind kind(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof LoamException le ? le.kind() : Kind.INTERNAL;
  }

  private void fetch() {
    Node n = liveNode();
    if (n == null) {
      return;
    }
    Stream st = streams.get(workRandom.nextInt(streams.size()));
    int partition = workRandom.nextInt(st.partitions());
    Checker.Part part = new Checker.Part(st.name(), partition);
    long hw =
        meta.read(
            r ->
                r.stream(NS, st.name())
                    .flatMap(s -> r.partition(s.id(), partition))
                    .map(PartitionInfo::highWatermark)
                    .orElse(0L));
    long from = hw == 0 ? 0 : workRandom.nextLong(hw + 1);
    Duration wait =
        workRandom.nextBoolean() ? Duration.ZERO : Duration.ofMillis(workRandom.nextInt(2000));
    int maxBytes = 512 + workRandom.nextInt(64 << 10);
    OptionalLong token =
        workRandom.nextBoolean() ? OptionalLong.of(meta.appliedIndex()) : OptionalLong.empty();
    trace.add("fetch node=" + n.id + " part=" + part + " from=" + from);
    pendingOps++;
    n.node
        .log()
        .fetch(NS, st.name(), partition, from, maxBytes, wait, token)
        .whenComplete(
            (res, e) -> {
              pendingOps--;
              if (e != null) {
                Kind k = kind(e);
                trace.add("fetch failed part=" + part + " kind=" + k);
                count("fetchFailed." + k);
                if (k == Kind.CORRUPTION
                    || (k == Kind.INTERNAL && store.faults().missingRead() == 0)) {
                  checker.violation("fetch failed kind=" + k + " part=" + part + " " + e);
                }
                checkOutOfRange(st, partition, from, e);
                return;
              }
              trace.add("fetched part=" + part + " n=" + res.records().size());
              checker.checkFetch(part, from, res, "fetch node=" + n.id);
            });
  }

  // ------------------------------------------------------------------ faults

  private void scheduleFaults() {
    long workloadMillis = config.workload().toMillis();
    int crashes = faultRandom.nextInt(4);
    for (int i = 0; i < crashes; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      long down = 200 + faultRandom.nextInt(5_000);
      String id = "n" + faultRandom.nextInt(config.nodes());
      schedule.add("t+" + at + "ms crash " + id + " for " + down + "ms");
      scheduler.schedule(() -> crash(id, down), at, TimeUnit.MILLISECONDS);
    }
    int leaderChanges = faultRandom.nextInt(3);
    for (int i = 0; i < leaderChanges; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      long election = 50 + faultRandom.nextInt(2_000);
      schedule.add("t+" + at + "ms metastore leader change, election " + election + "ms");
      scheduler.schedule(() -> meta.leaderChange(election), at, TimeUnit.MILLISECONDS);
    }
    scheduleOwnershipFaults();
    if (faultRandom.nextInt(3) == 0) {
      long at = faultRandom.nextLong(workloadMillis);
      Duration skew = Duration.ofSeconds(faultRandom.nextBoolean() ? 90 : -90);
      String id = "n" + faultRandom.nextInt(config.nodes());
      schedule.add("t+" + at + "ms clock of " + id + " steps by " + skew.toSeconds() + "s");
      scheduler.schedule(
          () -> {
            nodes.stream().filter(n -> n.id.equals(id)).forEach(n -> n.clock.setOffset(skew));
            count("clockSteps");
            trace.add("clock step " + id + " " + skew);
          },
          at,
          TimeUnit.MILLISECONDS);
    }
  }

  private void scheduleOwnershipFaults() {
    long workloadMillis = config.workload().toMillis();
    long liveness = ownershipSettings.livenessTimeout().toMillis();
    int pauses = faultRandom.nextInt(3);
    for (int i = 0; i < pauses; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      long length = 500 + faultRandom.nextLong(2 * liveness);
      String id = "n" + faultRandom.nextInt(config.nodes());
      schedule.add("t+" + at + "ms pause " + id + " for " + length + "ms (stops renewing)");
      scheduler.schedule(() -> pause(id, length), at, TimeUnit.MILLISECONDS);
    }
    int slotChanges = faultRandom.nextInt(4);
    for (int i = 0; i < slotChanges; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      String id = "n" + faultRandom.nextInt(config.nodes());
      int slots = faultRandom.nextInt(4);
      schedule.add("t+" + at + "ms slots of " + id + " := " + slots);
      scheduler.schedule(() -> setSlots(id, slots), at, TimeUnit.MILLISECONDS);
    }
    int transfers = faultRandom.nextInt(4);
    for (int i = 0; i < transfers; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      Stream st = streams.get(faultRandom.nextInt(streams.size()));
      String to = "n" + faultRandom.nextInt(config.nodes());
      schedule.add("t+" + at + "ms transfer " + st.name() + " to " + to);
      scheduler.schedule(() -> transfer(st, to), at, TimeUnit.MILLISECONDS);
    }
    if (!zones.isEmpty() && faultRandom.nextBoolean()) {
      long at = faultRandom.nextLong(workloadMillis);
      long length = 1_000 + faultRandom.nextInt(8_000);
      int z = faultRandom.nextInt(3);
      schedule.add("t+" + at + "ms zone " + z + " down for " + length + "ms");
      scheduler.schedule(
          () -> {
            zones.get(z).setDown(true);
            count("zoneOutages");
            trace.add("zone down " + z);
          },
          at,
          TimeUnit.MILLISECONDS);
      scheduler.schedule(
          () -> {
            zones.get(z).setDown(false);
            trace.add("zone up " + z);
          },
          at + length,
          TimeUnit.MILLISECONDS);
    }
    if (faultRandom.nextInt(2) == 0) {
      long at = faultRandom.nextLong(workloadMillis);
      long down = 500 + faultRandom.nextInt(5_000);
      String id = "n" + faultRandom.nextInt(config.nodes());
      schedule.add("t+" + at + "ms graceful leave " + id + ", back after " + down + "ms");
      scheduler.schedule(() -> leave(id, down), at, TimeUnit.MILLISECONDS);
    }
  }

  /** The node's process stops (a SIGSTOP, a long GC): no renewals, no timers; same epoch after. */
  private void pause(String id, long lengthMillis) {
    Node n = byId(id);
    if (!running(n)) {
      return;
    }
    SimScheduler.Process p = n.process;
    p.pause();
    trace.add("node pause " + id);
    count("pauses");
    scheduler.schedule(
        () -> {
          if (p.paused()) {
            p.resume();
            if (n.process == p) {
              n.disturbedAtNanos = clock.nanos();
            }
            trace.add("node resume " + id);
          }
        },
        lengthMillis,
        TimeUnit.MILLISECONDS);
  }

  private void setSlots(String id, int slots) {
    Node via = liveNode();
    if (via == null) {
      return;
    }
    count("slotChanges");
    trace.add("slots " + id + " := " + slots + " via " + via.id);
    pendingOps++;
    via.node
        .log()
        .setNodeSlots(id, slots)
        .whenComplete(
            (d, e) -> {
              pendingOps--;
              trace.add("slots " + id + " " + (e == null ? "set" : "failed " + kind(e)));
            });
  }

  /** A transfer sent to the stream's owner as this simulation's replica names it. */
  private void transfer(Stream st, String to) {
    StreamInfo info = meta.read(r -> r.stream(NS, st.name())).orElseThrow();
    String owner = meta.read(r -> r.ownership(info.id()).map(StreamOwnership::owner).orElse(null));
    Node via = owner == null ? null : byId(owner);
    if (via == null || !running(via)) {
      via = liveNode();
    }
    if (via == null) {
      return;
    }
    count("transfers");
    trace.add("transfer " + st.name() + " to " + to + " via " + via.id);
    pendingOps++;
    via.node
        .log()
        .transferStream(NS, st.name(), to)
        .whenComplete(
            (o, e) -> {
              pendingOps--;
              String v = e == null ? "pending" : kind(e).toString();
              trace.add("transfer " + st.name() + " " + v);
              count("transfer." + v);
            });
  }

  /** Graceful leave (LoamNode.leaveCluster), then a graceful close, then a new process later. */
  private void leave(String id, long downMillis) {
    Node n = byId(id);
    if (!running(n) || n.leaving) {
      return;
    }
    LoamNode node = n.node;
    n.leaving = true;
    count("leaves");
    trace.add("node leave " + id);
    pendingOps++;
    node.leaveClusterAsync()
        .handle(
            (moved, e) -> {
              trace.add("node left " + id + " moved=" + moved + " " + (e == null ? "" : kind(e)));
              count(e == null ? "leave.deregistered" : "leave.failed." + kind(e));
              if (e != null) {
                // The metastore's faults are transient: a graceful leave retries through them.
                checker.violation("graceful leave failed node=" + id + " kind=" + kind(e));
              }
              return node.closeAsync();
            })
        .thenCompose(f -> f)
        .whenComplete(
            (v, e) -> {
              pendingOps--;
              if (n.node != node) {
                return; // crashed (and maybe restarted) meanwhile
              }
              trace.add("node closed " + id);
              n.node = null;
              scheduler.schedule(
                  () -> {
                    if (n.node == null) {
                      start(n);
                    }
                  },
                  downMillis,
                  TimeUnit.MILLISECONDS);
            });
  }

  // ------------------------------------------------------------------ ownership checks

  /**
   * The liveness judge: null when a death verdict on {@code id} at {@code epoch} is explained by
   * what the simulation did to the node (crashed, left, paused or resumed within the liveness
   * timeout, or its clock ahead past the future-stamp limit so that its renewals are refused).
   */
  private String whyNotDead(String id, long epoch) {
    Node n = byId(id);
    if (n == null || n.node == null || n.node.epoch() != epoch || n.leaving) {
      return null;
    }
    if (n.process.paused()) {
      return null;
    }
    if (n.clock.offset().compareTo(Duration.ZERO) > 0) {
      return null; // docs/ownership.md "Known limits": its commands are refused FUTURE_STAMP
    }
    long runningMillis = TimeUnit.NANOSECONDS.toMillis(clock.nanos() - n.disturbedAtNanos);
    long liveness = ownershipSettings.livenessTimeout().toMillis();
    if (runningMillis < liveness) {
      return null;
    }
    return "it was running, unpaused, for "
        + runningMillis
        + "ms (liveness timeout "
        + liveness
        + "ms) clockOffset="
        + n.clock.offset();
  }

  /** After every applied command: owner availability, revival time, consumer offsets, trims. */
  private void afterApply(dev.loam.meta.command.Command command, Outcome outcome) {
    trackAvailability();
    dev.loam.meta.command.Command inner = command instanceof OwnerFenced f ? f.inner() : command;
    if (inner instanceof CommitConsumerOffset c && !(outcome instanceof Outcome.Rejected)) {
      long now =
          meta.read(
              r ->
                  r.consumerLease(c.streamId(), c.partition(), c.consumer())
                      .map(ConsumerLease::committedOffset)
                      .orElse(-1L));
      String key = c.streamId() + "/" + c.partition() + "/" + c.consumer();
      trace.add(
          "applied commit "
              + key
              + " offset="
              + c.offset()
              + " gen="
              + c.generation()
              + " from="
              + c.origin().nodeId()
              + "@"
              + c.origin().nodeEpoch()
              + " stamp="
              + c.origin().stampMillis());
      // Not "never decreases": a commit whose answer was lost (never acknowledged) may be followed
      // by a lower one from the same consumer re-reading (seed 2654); what may not happen is a
      // committed offset below one the consumer was told is committed.
      for (Consumer k : consumers) {
        if (k.name.equals(c.consumer()) && now < k.lastAckedCommit) {
          checker.violation(
              "committed offset below the last acknowledged commit consumer="
                  + key
                  + " committed="
                  + now
                  + " lastAcknowledged="
                  + k.lastAckedCommit);
        }
      }
    }
    if (inner instanceof TrimPartition t && outcome instanceof Outcome.Trimmed tr) {
      checkTrim(t, tr);
    }
  }

  /**
   * A stream is available for owner-bound work when it is OPEN by a node that is running at the
   * owner epoch; the longest gap is reported, and a stream whose owner died or left must be open
   * again within twice the liveness timeout plus 10 s.
   */
  private void trackAvailability() {
    long now = clock.nanos();
    for (StreamOwnership o : ownershipChecker.current().owners().values()) {
      Node owner = o.owner() == null ? null : byId(o.owner());
      boolean available =
          o.state() == StreamOwnership.State.OPEN
              && owner != null
              && running(owner)
              && owner.node.epoch() == o.ownerEpoch();
      Long since = unavailableSince.get(o.streamId());
      if (available && since != null) {
        unavailableSince.remove(o.streamId());
        maxOwnerGapNanos = Math.max(maxOwnerGapNanos, now - since);
      } else if (!available && since == null) {
        unavailableSince.put(o.streamId(), now);
      }
      Long closed = closedSince.get(o.streamId());
      if (o.state() == StreamOwnership.State.CLOSED && closed == null) {
        closedSince.put(o.streamId(), now);
      } else if (o.state() == StreamOwnership.State.OPEN && closed != null) {
        closedSince.remove(o.streamId());
        long took = now - closed;
        count("own.revivals");
        maxRevivalNanos = Math.max(maxRevivalNanos, took);
        long bound = 2 * ownershipSettings.livenessTimeout().toNanos() + 10_000_000_000L;
        if (took > bound) {
          checker.violation(
              "stream revived only after "
                  + TimeUnit.NANOSECONDS.toMillis(took)
                  + "ms streamId="
                  + o.streamId());
        }
      }
    }
  }

  /** A time trim never drops a record younger than the retention (by a true clock). */
  private void checkTrim(TrimPartition t, Outcome.Trimmed tr) {
    StreamInfo info = meta.read(r -> r.streamById(t.streamId())).orElse(null);
    if (info == null) {
      return;
    }
    Stream st = streams.stream().filter(x -> x.name().equals(info.name())).findFirst().orElse(null);
    if (st == null) {
      return;
    }
    count("trims." + t.reason());
    long hw =
        meta.read(
            r ->
                r.partition(t.streamId(), t.partition())
                    .map(PartitionInfo::highWatermark)
                    .orElse(0L));
    if (tr.logStartOffset() > hw) {
      checker.violation("log start beyond the high watermark after a trim " + t);
    }
    if (t.reason() != TrimPartition.Reason.TIME || st.retentionMillis() < 0) {
      return;
    }
    long horizonNanos = clock.nanos() - TimeUnit.MILLISECONDS.toNanos(st.retentionMillis());
    for (Append a : appends) {
      if (a.acked == null || a.stream != st || !a.sentUnskewed) {
        continue;
      }
      for (AppendResult.RecordPosition pos : a.acked.positions()) {
        if (pos.partition() == t.partition()
            && pos.offset() < tr.logStartOffset()
            && a.sentNanos >= horizonNanos) {
          checker.violation(
              "retention dropped a record younger than retentionMillis="
                  + st.retentionMillis()
                  + " a="
                  + a.id
                  + " offset="
                  + pos.offset()
                  + " sentAgoMillis="
                  + TimeUnit.NANOSECONDS.toMillis(clock.nanos() - a.sentNanos));
          return;
        }
      }
    }
  }

  /** OffsetOutOfRange is right only below the log start or above the high watermark. */
  private void checkOutOfRange(Stream st, int partition, long from, Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (!(t instanceof OffsetOutOfRangeException)) {
      return;
    }
    count("fetchOutOfRange");
    PartitionInfo pi =
        meta.read(r -> r.stream(NS, st.name()).flatMap(s -> r.partition(s.id(), partition)))
            .orElseThrow();
    if (from >= pi.logStartOffset() && from <= pi.highWatermark()) {
      checker.violation(
          "fetch inside retention refused OffsetOutOfRange part="
              + st.name()
              + "/"
              + partition
              + " from="
              + from
              + " logStart="
              + pi.logStartOffset()
              + " hw="
              + pi.highWatermark());
    }
  }

  // ------------------------------------------------------------------ named consumers

  private void scheduleConsumer(Consumer c) {
    scheduler.schedule(() -> consumerTick(c), 100 + workRandom.nextInt(300), TimeUnit.MILLISECONDS);
  }

  private void consumerTick(Consumer c) {
    if (clock.nanos() >= workloadEndNanos) {
      return;
    }
    scheduleConsumer(c);
    if (c.busy) {
      return;
    }
    if (c.host == null
        || c.host.node == null
        || c.host.incarnation != c.hostIncarnation
        || c.host.leaving) {
      // The consumer's process died with its node: a new instance starts on another node.
      Node h = liveNode();
      if (h == null) {
        return;
      }
      c.host = h;
      c.hostIncarnation = h.incarnation;
      c.instance++;
      c.holder = c.name + "-i" + c.instance;
      c.generation = -1;
      count("consumer.instances");
      trace.add("consumer " + c.name + " instance " + c.instance + " on " + h.id);
    }
    if (c.host.process.paused()) {
      return;
    }
    int inst = c.instance;
    c.busy = true;
    pendingOps++;
    CompletableFuture<?> op = c.generation < 0 ? acquire(c) : consume(c);
    op.whenComplete(
        (v, e) -> {
          pendingOps--;
          if (c.instance == inst) {
            c.busy = false;
          }
        });
  }

  /** Calls an owner-bound operation; a NOT_OWNER answer is followed once to the owner (a 307). */
  private <T> CompletableFuture<T> ownerBound(
      Node via, Function<dev.loam.api.Log, CompletableFuture<T>> call) {
    return call.apply(via.node.log())
        .exceptionallyCompose(
            e -> {
              Throwable t =
                  e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
              if (t instanceof NotOwnerException no) {
                Node owner = byId(no.ownerNodeId());
                if (owner != null && running(owner)) {
                  count("consumer.redirects");
                  return call.apply(owner.node.log());
                }
              }
              return CompletableFuture.failedFuture(t);
            });
  }

  private CompletableFuture<?> acquire(Consumer c) {
    int inst = c.instance;
    return ownerBound(
            c.host,
            l ->
                l.acquireConsumerLease(
                    NS,
                    c.name,
                    c.stream.name(),
                    c.partition,
                    c.holder,
                    Duration.ofMillis(c.leaseMillis)))
        .whenComplete(
            (st, e) -> {
              if (c.instance != inst) {
                return;
              }
              if (e != null) {
                count("consumer.acquireFailed." + kind(e));
                return;
              }
              c.generation = st.generation();
              long committed = st.committedOffset().orElse(-1);
              if (committed < c.lastAckedCommit) {
                checker.violation(
                    "consumer "
                        + c.name
                        + " resumes at "
                        + committed
                        + " behind its last acknowledged commit "
                        + c.lastAckedCommit);
              }
              c.position = Math.max(committed, 0);
              count("consumer.resumes");
              trace.add(
                  "consumer "
                      + c.name
                      + " holds gen="
                      + c.generation
                      + " resumes at "
                      + c.position);
            });
  }

  private CompletableFuture<?> consume(Consumer c) {
    int inst = c.instance;
    long from = c.position;
    return c.host
        .node
        .log()
        .fetch(NS, c.stream.name(), c.partition, from, 4096, Duration.ZERO)
        .handle(
            (r, e) -> {
              if (c.instance != inst) {
                return CompletableFuture.completedFuture(null);
              }
              if (e != null) {
                jumpIfOutOfRange(c, e);
                return CompletableFuture.completedFuture(null);
              }
              checker.checkFetch(
                  new Checker.Part(c.stream.name(), c.partition), from, r, "consumer " + c.name);
              if (r.records().isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              long next = r.nextOffset();
              return ownerBound(
                      c.host,
                      l ->
                          l.commitConsumerOffset(
                              NS, c.name, c.stream.name(), c.partition, c.generation, next))
                  .whenComplete(
                      (st, ce) -> {
                        if (c.instance != inst) {
                          return;
                        }
                        if (ce != null) {
                          Kind k = kind(ce);
                          count("consumer.commitFailed." + k);
                          if (k == Kind.FENCED) {
                            c.generation = -1;
                          }
                          jumpIfOutOfRange(c, ce);
                          return;
                        }
                        count("consumer.commits");
                        trace.add(
                            "consumer " + c.name + " committed " + next + " gen=" + c.generation);
                        if (next < c.lastAckedCommit) {
                          checker.violation(
                              "consumer "
                                  + c.name
                                  + " acknowledged commit went backwards from "
                                  + c.lastAckedCommit
                                  + " to "
                                  + next);
                        }
                        c.lastAckedCommit = Math.max(c.lastAckedCommit, next);
                        c.position = next;
                      });
            })
        .thenCompose(f -> f);
  }

  private void jumpIfOutOfRange(Consumer c, Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof OffsetOutOfRangeException o && c.position < o.logStartOffset()) {
      count("consumer.skippedTrimmed");
      c.position = o.logStartOffset();
    }
  }

  private void crash(String id, long downMillis) {
    Node n = nodes.stream().filter(x -> x.id.equals(id)).findFirst().orElseThrow();
    if (n.node == null) {
      return;
    }
    trace.add("node crash " + id);
    count("crashes");
    LoamNode old = n.node;
    n.node = null;
    old.crash();
    scheduler.schedule(
        () -> {
          if (n.node == null) {
            start(n);
          }
        },
        downMillis,
        TimeUnit.MILLISECONDS);
  }

  // ------------------------------------------------------------------ heal and validate

  private void heal() {
    store.setFaultsEnabled(false);
    meta.setFaultsEnabled(false);
    healing = true;
    for (SimObjectStore z : zones) {
      z.setFaultsEnabled(false);
      z.setDown(false);
    }
    trace.add("heal");
    for (Node n : nodes) {
      if (n.process != null && n.process.paused()) {
        n.process.resume();
        n.disturbedAtNanos = clock.nanos();
      }
    }
    // Let restarts, retries and in-flight commits finish (the commit budget is 60 s).
    scheduler.runFor(Duration.ofSeconds(90));
    for (Node n : nodes) {
      if (n.node == null) {
        start(n);
      }
    }
    // Slots back to 1 everywhere (a slots fault may have left every node out of placement).
    for (Node n : nodes) {
      Node via = liveNode();
      if (via != null) {
        pendingOps++;
        via.node.log().setNodeSlots(n.id, 1).whenComplete((d, e) -> pendingOps--);
      }
    }
    scheduler.runUntil(
        () -> pendingOps == 0 && producers.stream().allMatch(p -> p.outstanding == null),
        5_000_000);
    if (pendingOps != 0) {
      checker.violation("operations never completed after healing pending=" + pendingOps);
    }
    // Liveness after healing: every stream open by a running node within a few ownership steps.
    scheduler.runFor(ownershipSettings.livenessTimeout().multipliedBy(2));
    trackAvailability();
    for (StreamOwnership o : ownershipChecker.current().owners().values()) {
      Node owner = o.owner() == null ? null : byId(o.owner());
      if (o.state() != StreamOwnership.State.OPEN
          || owner == null
          || !running(owner)
          || owner.node.epoch() != o.ownerEpoch()) {
        checker.violation("stream not open by a running node after healing " + o);
      }
    }
    for (Consumer c : consumers) {
      StreamInfo info = meta.read(r -> r.stream(NS, c.stream.name())).orElseThrow();
      long committed =
          meta.read(
              r ->
                  r.consumerLease(info.id(), c.partition, c.name)
                      .map(ConsumerLease::committedOffset)
                      .orElse(-1L));
      if (committed < c.lastAckedCommit) {
        checker.violation(
            "consumer "
                + c.name
                + " committed offset "
                + committed
                + " is behind its last acknowledged commit "
                + c.lastAckedCommit);
      }
      counts.merge("consumer.finalCommitted", Math.max(committed, 0), Long::sum);
    }
  }

  private void validate() {
    Node reader =
        nodes.stream()
            .filter(n -> n.node != null && n.clock.offset().isZero())
            .findFirst()
            .orElse(null);
    if (reader == null) {
      Node fresh = new Node("reader", clock.skewed(Duration.ZERO));
      nodes.add(fresh);
      if (!start(fresh)) {
        checker.violation("no node can start for the read-back");
        return;
      }
      reader = fresh;
    }
    Map<String, String> where = new HashMap<>();
    Set<String> seen = new HashSet<>();
    long duplicates = 0;
    for (Stream st : streams) {
      StreamInfo info = meta.read(r -> r.stream(NS, st.name())).orElseThrow();
      for (int p = 0; p < st.partitions(); p++) {
        int partition = p;
        Checker.Part part = new Checker.Part(st.name(), p);
        PartitionInfo pi = meta.read(r -> r.partition(info.id(), partition)).orElseThrow();
        long offset = pi.logStartOffset();
        while (offset < pi.highWatermark()) {
          CompletableFuture<FetchResult> f =
              reader.node.log().fetch(NS, st.name(), p, offset, 1 << 20, Duration.ZERO);
          if (!scheduler.runUntil(f::isDone, 1_000_000) || f.isCompletedExceptionally()) {
            checker.violation(
                "read-back fetch failed part=" + part + " offset=" + offset + " " + f);
            break;
          }
          FetchResult r = f.join();
          if (r.records().isEmpty()) {
            checker.violation("read-back stalled part=" + part + " offset=" + offset);
            break;
          }
          checker.checkFetch(part, offset, r, "read-back");
          for (var rec : r.records()) {
            String v = Checker.value(rec);
            if (!seen.add(v)) {
              duplicates++;
              checker.violation("duplicate record value=" + abbreviate(v) + " part=" + part);
            }
            where.put(v, part + "@" + rec.offset());
          }
          offset = r.nextOffset();
        }
        // Every object the index references exists (GC never deletes live data).
        List<IndexEntry> entries =
            meta.read(r -> r.indexEntries(info.id(), partition, 0, Integer.MAX_VALUE));
        for (IndexEntry e : entries) {
          if (e.objectKey().startsWith("wal/express/")) {
            // An acknowledged express object is on a majority of the zones.
            long copies =
                zones.stream()
                    .filter(z -> z.direct().head(e.objectKey()).join().isPresent())
                    .count();
            if (copies < 2) {
              checker.violation(
                  "express object on fewer than 2 zones copies="
                      + copies
                      + " key="
                      + e.objectKey());
            }
          } else if (store.direct().head(e.objectKey()).join().isEmpty()) {
            checker.violation("index references a missing object key=" + e.objectKey());
          }
        }
      }
    }
    long lost = 0;
    long absentDefinite = 0;
    long trimmed = 0;
    Map<String, Long> logStarts = new HashMap<>();
    for (Stream st : streams) {
      StreamInfo info = meta.read(r -> r.stream(NS, st.name())).orElseThrow();
      for (int p = 0; p < st.partitions(); p++) {
        int partition = p;
        logStarts.put(
            st.name() + "/" + p,
            meta.read(r -> r.partition(info.id(), partition))
                .map(PartitionInfo::logStartOffset)
                .orElse(0L));
      }
    }
    for (Append a : appends) {
      if (a.acked != null) {
        for (int i = 0; i < a.values.size(); i++) {
          AppendResult.RecordPosition pos = a.acked.positions().get(i);
          if (pos.offset() < logStarts.getOrDefault(a.stream.name() + "/" + pos.partition(), 0L)) {
            trimmed++; // removed by retention: its absence is the retention working
            continue;
          }
          String expected = a.stream.name() + "/" + pos.partition() + "@" + pos.offset();
          String got = where.get(a.values.get(i));
          if (!expected.equals(got)) {
            lost++;
            checker.violation(
                "acknowledged record not at its offset a="
                    + a.id
                    + " expected="
                    + expected
                    + " got="
                    + got);
          }
        }
      } else if (!a.unknown) {
        // Every attempt failed with a definite kind: nothing may have been appended.
        for (String v : a.values) {
          if (where.containsKey(v)) {
            absentDefinite++;
            checker.violation(
                "append that failed definitely is present a=" + a.id + " at " + where.get(v));
          }
        }
      }
    }
    counts.put("ackedLost", lost);
    counts.put("ackedTrimmedByRetention", trimmed);
    counts.put("duplicates", duplicates);
    counts.put("definiteFailuresPresent", absentDefinite);
    counts.put("recordsReadBack", (long) where.size());
    counts.put("store.outcomeUnknown", store.stats().outcomeUnknown);
    counts.put("store.unavailable", store.stats().unavailable);
    counts.put("store.missingRead", store.stats().missingRead);
    counts.put("store.slow", store.stats().slow);
    counts.put("zones.slow", zones.stream().mapToLong(z -> z.stats().slow).sum());
    counts.put(
        "zones.outcomeUnknown", zones.stream().mapToLong(z -> z.stats().outcomeUnknown).sum());
    counts.put("zones.missingRead", zones.stream().mapToLong(z -> z.stats().missingRead).sum());
    counts.put("meta.lostBeforeLog", meta.stats().lostBeforeLog);
    counts.put("meta.delayed", meta.stats().delayed);
    counts.put("zones.unavailable", zones.stream().mapToLong(z -> z.stats().unavailable).sum());
    counts.put("meta.answerLost", meta.stats().answerLost);
    counts.put("meta.refused", meta.stats().refused);
    counts.put("meta.futureStamp", meta.stats().futureStamp);
    counts.put("meta.leaderChanges", meta.stats().leaderChanges);
    trace.add("validated records=" + where.size());
  }

  private static String abbreviate(String v) {
    return v.length() > 40 ? v.substring(0, 40) + "..." : v;
  }
}
