package dev.loam.sim;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
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
      Map<String, Long> counts) {
    public boolean ok() {
      return violations.isEmpty();
    }

    /** The failure report: seed, violations, the fault schedule and how to replay. */
    public String report() {
      StringBuilder b = new StringBuilder();
      b.append("simulation seed=").append(seed).append(" violations=").append(violations.size());
      b.append("\nreplay: mvn -B -pl loam-sim test -Dtest=ClusterSimTest#replay -Dloam.sim.seed=")
          .append(seed);
      violations.forEach(v -> b.append("\n  violation: ").append(v));
      b.append("\nfault schedule:");
      faultSchedule.forEach(f -> b.append("\n  ").append(f));
      b.append("\ncounts: ").append(counts);
      b.append("\ntrace hash=").append(traceHash).append(" lines=").append(traceLines);
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
  private final SimMetastore meta;
  private final Checker checker;
  private final NodeSettings settings;
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

    Node(String id, SimClock.Skewed clock) {
      this.id = id;
      this.clock = clock;
    }
  }

  private record Stream(String name, int partitions) {}

  /** One append as the client saw it: every attempt's verdict. */
  private static final class Append {
    final int id;
    final Stream stream;
    final List<String> values = new ArrayList<>();
    final boolean idempotent;
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
    schedule.add("faults " + sf + " " + mf);
    schedule.add(
        "settings flush="
            + settings.standardFlushInterval().toMillis()
            + "ms inFlight="
            + settings.maxObjectsInFlight()
            + " tailCache="
            + tailCache);
    scheduler.onStep((deadline, seq, periodic) -> trace.add("step " + seq));
  }

  public static Result run(long seed) {
    return new Simulation(seed, Config.defaults()).run();
  }

  // ------------------------------------------------------------------ the run

  public Result run() {
    setup();
    workloadEndNanos = clock.nanos() + config.workload().toNanos();
    scheduleWorkload();
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
    return new Result(
        seed,
        trace.hash(),
        trace.lines(),
        scheduler.steps(),
        clock.millis() - SimClock.DEFAULT_START_MILLIS,
        checker.violations(),
        List.copyOf(schedule),
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counts)));
  }

  private void setup() {
    store.setFaultsEnabled(false);
    meta.setFaultsEnabled(false);
    for (int i = 0; i < config.nodes(); i++) {
      Node n = new Node("n" + i, clock.skewed(Duration.ZERO));
      nodes.add(n);
      start(n);
    }
    LoamNode first = nodes.get(0).node;
    await(first.log().createNamespace(NS));
    int streamCount = 1 + workRandom.nextInt(2);
    for (int s = 0; s < streamCount; s++) {
      Stream st = new Stream("s" + s, 1 + workRandom.nextInt(3));
      streams.add(st);
      await(first.log().createStream(NS, st.name(), StreamSpec.standard(st.partitions())));
    }
    for (int p = 0; p < config.producers(); p++) {
      Stream st = streams.get(workRandom.nextInt(streams.size()));
      producers.add(new Producer(1000 + p, st, workRandom.nextInt(st.partitions())));
    }
    store.setFaultsEnabled(config.faults());
    meta.setFaultsEnabled(config.faults());
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
    try {
      n.node =
          LoamNode.builder()
              .nodeId(n.id)
              .objectStore(store)
              .metastore(meta)
              .clock(n.clock)
              .random(Seeds.stream(seed, "node-" + n.id + "-" + n.incarnation))
              .scheduler(scheduler)
              .settings(settings)
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

  private Node liveNode() {
    List<Node> live = nodes.stream().filter(n -> n.node != null).toList();
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
    if (faultRandom.nextInt(3) == 0) {
      long at = faultRandom.nextLong(workloadMillis);
      Duration skew = Duration.ofSeconds(faultRandom.nextBoolean() ? 90 : -90);
      String id = "n" + faultRandom.nextInt(config.nodes());
      schedule.add("t+" + at + "ms clock of " + id + " steps by " + skew.toSeconds() + "s");
      scheduler.schedule(
          () -> {
            nodes.stream().filter(n -> n.id.equals(id)).forEach(n -> n.clock.setOffset(skew));
            trace.add("clock step " + id + " " + skew);
          },
          at,
          TimeUnit.MILLISECONDS);
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
    trace.add("heal");
    // Let restarts, retries and in-flight commits finish (the commit budget is 60 s).
    scheduler.runFor(Duration.ofSeconds(90));
    for (Node n : nodes) {
      if (n.node == null) {
        start(n);
      }
    }
    scheduler.runUntil(
        () -> pendingOps == 0 && producers.stream().allMatch(p -> p.outstanding == null),
        5_000_000);
    if (pendingOps != 0) {
      checker.violation("operations never completed after healing pending=" + pendingOps);
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
          if (store.direct().head(e.objectKey()).join().isEmpty()) {
            checker.violation("index references a missing object key=" + e.objectKey());
          }
        }
      }
    }
    long lost = 0;
    long absentDefinite = 0;
    for (Append a : appends) {
      if (a.acked != null) {
        for (int i = 0; i < a.values.size(); i++) {
          AppendResult.RecordPosition pos = a.acked.positions().get(i);
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
    counts.put("duplicates", duplicates);
    counts.put("definiteFailuresPresent", absentDefinite);
    counts.put("recordsReadBack", (long) where.size());
    counts.put("store.outcomeUnknown", store.stats().outcomeUnknown);
    counts.put("store.unavailable", store.stats().unavailable);
    counts.put("store.missingRead", store.stats().missingRead);
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
