package dev.loam.sim;

import dev.loam.api.Durability;
import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import dev.loam.core.runtime.LoamThreads;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.TrimPartition;
import dev.loam.sim.actor.Changelogs;
import dev.loam.sim.actor.Consumers;
import dev.loam.sim.actor.Nemesis;
import dev.loam.sim.actor.Producers;
import dev.loam.sim.actor.Workload;
import dev.loam.sim.check.Availability;
import dev.loam.sim.check.Checker;
import dev.loam.sim.check.ConsumerOffsets;
import dev.loam.sim.check.FinalValidation;
import dev.loam.sim.check.History;
import dev.loam.sim.check.OwnershipChecker;
import dev.loam.sim.check.RetentionModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One deterministic run of a Loam cluster, decided by one seed (docs/design/simulation.md): N real
 * {@link LoamNode}s sharing a {@link SimObjectStore} and a {@link SimMetastore}, all on one {@link
 * SimScheduler}; a workload of plain and idempotent appends (idempotent ones retried until
 * acknowledged), fetches, node crashes and restarts, metastore leader changes and a clock step of
 * ±90 s on one node; then a healing phase (faults off, every node back) and a read-back of every
 * partition that the {@link Checker} validates.
 *
 * <p>The run is a harness in the shape of SlateDB's simulation and Kafka's {@code
 * RaftEventSimulationTest}: the {@link SimCluster} holds the nodes; the actors ({@link Workload},
 * {@link Producers}, {@link Consumers}, {@link Nemesis}) act on it from the scheduler; the checks
 * ({@link Checker}, {@link OwnershipChecker}, {@link RetentionModel}, {@link Availability}, {@link
 * ConsumerOffsets}) judge every applied command and every answer as it happens, and {@link
 * FinalValidation} judges the end state. This class draws the shape of the run and drives its
 * phases: setup, workload, heal, validate.
 *
 * <p>Everything random is drawn from per-component streams of the seed ({@link Seeds}), so a seed
 * replays exactly: {@link Result#traceHash()} is the same on every run.
 */
public final class Simulation {
  /**
   * The shape of a run; the fault probabilities themselves are drawn from the seed.
   *
   * @param workload simulated time during which the workload and the faults run
   */
  public record Config(
      int nodes, Duration workload, int producers, boolean faults, boolean encrypted) {
    /** A run whose namespace is written plain. */
    public Config(int nodes, Duration workload, int producers, boolean faults) {
      this(nodes, workload, producers, faults, false);
    }

    /** 3 nodes, 20 s of workload, 3 idempotent producers, faults on. */
    public static Config defaults() {
      return new Config(3, Duration.ofSeconds(20), 3, true);
    }

    /**
     * This shape with the run's namespace encrypted: created with its first key (docs/security.md,
     * "Data at rest"), so every chunk the workload writes is sealed, every read opens sealed
     * chunks, and the invariants are judged on the records read back.
     */
    public Config withEncryption() {
      return new Config(nodes, workload, producers, faults, true);
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
    /** No invariant was violated. */
    public boolean ok() {
      return violations.isEmpty();
    }

    /** The failure report: seed, violations, the fault schedule and how to replay. */
    public String report() {
      StringBuilder b = new StringBuilder();
      b.append("simulation seed=").append(seed).append(" violations=").append(violations.size());
      b.append("\nreplay: ").append(replayCommand(seed));
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

  /**
   * What replays {@code seed}: the same test with {@code -Dloam.sim.seed} (read by {@code
   * SimSeeds.check} and by ClusterSimTest#replay).
   */
  public static String replayCommand(long seed) {
    return "rerun the failing test with -Dloam.sim.seed="
        + seed
        + " (the harness's own workload: mvn -B -pl loam-sim -am test -Dtest=ClusterSimTest#replay"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dloam.sim.seed="
        + seed
        + ")";
  }

  private final long seed;
  private final Config config;
  private final SimClock clock = new SimClock();
  private final SimScheduler scheduler = new SimScheduler(clock);
  private final Trace trace = new Trace(clock);
  private final SimContext ctx;
  private final SplittableRandom workRandom;
  private final SimObjectStore store;

  /** The three zonal stores of the express class, or empty when this seed runs without it. */
  private final List<SimObjectStore> zones = new ArrayList<>();

  private final SimMetastore meta;
  private final SimCluster cluster;
  private final List<SimStream> streams = new ArrayList<>();
  private final History history = new History();
  private final Checker checker;
  private final RetentionModel retentionModel;
  private final OwnershipChecker ownershipChecker;
  private final Availability availability;
  private final ConsumerOffsets consumerOffsets;
  private final Producers producers;
  private final Consumers consumers;
  private final Workload workload;
  // The changelog stream of the seeds that draw one; null otherwise.
  private final Changelogs changelogs;
  private final Nemesis nemesis;
  private final HostWorkload host;
  private final HostContext hostContext;
  // The quorum journal's simulated Raft and its faults on the seeds that draw one; null otherwise.
  private final dev.loam.sim.quorum.SimRaft raft;
  private final dev.loam.sim.actor.JournalFaults journalFaults;
  private boolean blockingReported;

  /** A run of {@code seed} in the shape {@code config}; nothing happens until {@link #run()}. */
  public Simulation(long seed, Config config) {
    this(seed, config, HostWorkload.NONE);
  }

  /**
   * A run of {@code seed} in the shape {@code config} with a host application's workload and
   * invariants ({@link HostWorkload}) besides the harness's own.
   */
  public Simulation(long seed, Config config, HostWorkload host) {
    this(seed, config, host, dev.loam.sim.quorum.SimRaft.Rules.raft());
  }

  /**
   * A run whose quorum journal (on the seeds that have one) follows {@code raftRules}: Raft's own
   * but in the tests that break one rule to show the checks catch it.
   */
  Simulation(
      long seed, Config config, HostWorkload host, dev.loam.sim.quorum.SimRaft.Rules raftRules) {
    this.seed = seed;
    this.host = java.util.Objects.requireNonNull(host, "host");
    this.config = config;
    this.ctx = new SimContext(seed, clock, scheduler, trace);
    this.workRandom = Seeds.stream(seed, "workload");
    SplittableRandom faultRandom = Seeds.stream(seed, "faults");
    Scenario scenario = Scenario.draw(Seeds.stream(seed, "plan"), config.faults());
    SimObjectStore.Faults sf = scenario.storeFaults();
    MetaSettings ms = MetaSettings.defaults();
    this.store = new SimObjectStore(scheduler, Seeds.stream(seed, "store"), sf, trace);
    this.meta =
        new SimMetastore(scheduler, Seeds.stream(seed, "meta"), scenario.metaFaults(), ms, trace);
    // The zones join the list below, before any node starts.
    this.cluster =
        new SimCluster(
            ctx,
            store,
            zones,
            meta,
            scenario.replicaLag(),
            scenario.settings(),
            scenario.ownership(),
            workRandom,
            config.encrypted() ? new SimKms(Seeds.stream(seed, "kms")) : null,
            scenario.diskCache());
    this.checker = new Checker(clock, ms.maxFutureStamp().toMillis());
    // Listeners run in this order on every applied command: afterApply reads the ownership state
    // the OwnershipChecker has just taken.
    meta.addApplyListener(checker);
    this.retentionModel = new RetentionModel(clock, checker, this::streamById);
    meta.addApplyListener(retentionModel);
    Function<Function<MetaReader, OwnershipChecker.Snapshot>, OwnershipChecker.Snapshot> reader =
        meta::read;
    this.ownershipChecker = new OwnershipChecker(checker, reader, cluster::whyNotDead);
    meta.addApplyListener(ownershipChecker);
    meta.addApplyListener((index, command, outcome) -> afterApply(command, outcome));
    if (scenario.express()) {
      for (int z = 0; z < 3; z++) {
        zones.add(new SimObjectStore(scheduler, Seeds.stream(seed, "zone-" + z), sf, trace));
      }
    }
    ctx.planned(scenario.faultsLine());
    ctx.planned(scenario.settingsLine());
    scheduler.onStep((deadline, seq, periodic) -> trace.add("step " + seq));
    this.availability =
        new Availability(ctx, meta, checker, ownershipChecker, cluster, streams, history);
    this.consumerOffsets = new ConsumerOffsets(ctx, meta, checker);
    this.producers =
        new Producers(ctx, cluster, workRandom, streams, history, checker, availability);
    this.consumers = new Consumers(ctx, cluster, workRandom, streams, checker, consumerOffsets);
    this.workload =
        new Workload(
            ctx, cluster, meta, store, workRandom, streams, producers, checker, availability);
    this.nemesis =
        new Nemesis(
            ctx, cluster, store, meta, zones, streams, checker, faultRandom, config.nodes());
    this.hostContext = new HostContext(ctx, cluster, checker::violation);
    this.changelogs = Changelogs.draw(ctx, cluster, Seeds.stream(seed, "changelog"));
    // Quorum streams of encrypted namespaces are refused (docs/design/quorum.md "Quorum streams").
    if (scenario.quorum() && config.nodes() >= 3 && !config.encrypted()) {
      this.raft =
          new dev.loam.sim.quorum.SimRaft(
              ctx,
              Seeds.stream(seed, "journal"),
              scenario.journalFaults(),
              raftRules,
              SimCluster.JOURNAL_MAX_UNSEALED_BYTES,
              checker::violation);
      cluster.quorum(raft);
      this.journalFaults =
          new dev.loam.sim.actor.JournalFaults(
              ctx, cluster, raft, Seeds.stream(seed, "journal-faults"), config.nodes());
    } else {
      this.raft = null;
      this.journalFaults = null;
    }
  }

  /** Runs {@code seed} with {@link Config#defaults()}. */
  public static Result run(long seed) {
    return new Simulation(seed, Config.defaults()).run();
  }

  /**
   * Runs the phases (setup, workload, heal, validate) and reports what the run did and found. The
   * thread is a Loam thread meanwhile ({@code LoamThreads}): a blocking wait on a Loam future that
   * is not done, by the host's workload or anything else, fails at once and is a violation, where
   * it would otherwise wait forever for a scheduler that only this thread runs.
   */
  public Result run() {
    try {
      return LoamThreads.callAs("simulation seed=" + seed, this::blockingRefused, this::runPhases);
    } finally {
      cluster.deleteDiskCaches();
    }
  }

  private void blockingRefused(RuntimeException e) {
    ctx.count("blockingWaitsRefused");
    if (!blockingReported) {
      blockingReported = true;
      checker.violation(
          "a blocking wait on the simulation's thread was refused: " + e.getMessage());
    }
  }

  /**
   * WAL objects left in the stores (the standard one and the express zones) that hold a sealed
   * chunk: an encrypted run's evidence (retention and GC may have removed the others).
   */
  private long sealedWalObjects() {
    long n = sealedWalObjects(store.direct());
    for (SimObjectStore z : zones) {
      n += sealedWalObjects(z.direct());
    }
    return n;
  }

  private static long sealedWalObjects(dev.loam.store.memory.InMemoryObjectStore direct) {
    long n = 0;
    String after = "";
    while (true) {
      dev.loam.spi.store.ListPage page = direct.list("", after, 1000).join();
      for (dev.loam.spi.store.ObjectInfo o : page.objects()) {
        if (o.key().startsWith("wal/")) {
          dev.loam.wal.object.WalObject w =
              dev.loam.wal.object.WalObjectReader.parse(direct.get(o.key()).join());
          if (w.chunks().stream().anyMatch(dev.loam.wal.object.ChunkIndexEntry::sealed)) {
            n++;
          }
        }
      }
      if (page.nextStartAfter().isEmpty()) {
        return n;
      }
      after = page.nextStartAfter().get();
    }
  }

  private Result runPhases() {
    setup();
    long workloadEndNanos = clock.nanos() + config.workload().toNanos();
    availability.workloadStarted();
    workload.start(workloadEndNanos);
    if (changelogs != null) {
      changelogs.start(workloadEndNanos);
    }
    consumers.start(workloadEndNanos);
    if (config.faults()) {
      nemesis.schedule(config.workload());
      if (journalFaults != null) {
        journalFaults.schedule(config.workload().toMillis());
      }
    }
    hostContext.workloadEnds(workloadEndNanos);
    host.start(hostContext);
    scheduler.runFor(config.workload());
    heal();
    validate();
    hostContext.allowAwait(true);
    host.validate(hostContext);
    hostContext.allowAwait(false);
    scheduler.uncaught().forEach(t -> checker.violation("uncaught task failure " + t));
    if (config.encrypted()) {
      ctx.put("walObjectsSealed", sealedWalObjects());
    }
    cluster.countDiskCacheReads();
    ctx.put("appends", (long) history.appends().size());
    ctx.put("acked", history.appends().stream().filter(a -> a.acked() != null).count());
    ctx.put(
        "ackedRecords",
        history.appends().stream()
            .filter(a -> a.acked() != null)
            .mapToLong(a -> a.values().size())
            .sum());
    ctx.put("fetchesChecked", checker.fetchesChecked());
    ctx.put("readYourWritesChecked", checker.readYourWritesChecked());
    ctx.put("trimsJudged", retentionModel.trimsJudged());
    ctx.put("own.deaths", ownershipChecker.deaths());
    ctx.put("own.opens", ownershipChecker.opens());
    ctx.put("own.placements", ownershipChecker.placements());
    ctx.put("own.fencedRefusals", ownershipChecker.fencedRefusals());
    ctx.put("maxOwnerGapMillis", TimeUnit.NANOSECONDS.toMillis(availability.maxOwnerGapNanos()));
    ctx.put("maxRevivalMillis", TimeUnit.NANOSECONDS.toMillis(availability.maxRevivalNanos()));
    ctx.put("maxAckGapMillis", TimeUnit.NANOSECONDS.toMillis(availability.maxAckGapNanos()));
    return new Result(
        seed,
        trace.hash(),
        trace.lines(),
        scheduler.steps(),
        clock.millis() - SimClock.DEFAULT_START_MILLIS,
        checker.violations(),
        ctx.schedule(),
        ctx.counts(),
        trace.tail());
  }

  /** Nodes, namespace, streams, producers and consumers, all with the faults off. */
  private void setup() {
    nemesis.perCallFaults(false);
    cluster.startNodes(config.nodes());
    LoamNode first = cluster.nodes().get(0).node();
    if (config.encrypted()) {
      await(first.log().createEncryptedNamespace(SimContext.NS));
      trace.add("namespace " + SimContext.NS + " encrypted");
    } else {
      await(first.log().createNamespace(SimContext.NS));
    }
    int streamCount = 1 + workRandom.nextInt(2);
    for (int s = 0; s < streamCount; s++) {
      // Retention on some streams, running concurrently with everything (time or size).
      int r = workRandom.nextInt(4);
      long retentionMillis = r == 1 ? 3_000 + workRandom.nextInt(6_000) : -1;
      long retentionBytes = r == 2 ? (16L << 10) + workRandom.nextInt(48 << 10) : -1;
      if (retentionBytes > 0) {
        // Half the size-retained streams keep only 1-8 KiB: a few flushes' worth, so size trims
        // run all through the workload. Drawn from a stream of its own, so the workload's draws
        // (and the runs of every other seed) stay as they were.
        SplittableRandom small = Seeds.stream(seed, "retention-" + s);
        if (small.nextBoolean()) {
          retentionBytes = (1L << 10) + small.nextInt(7 << 10);
        }
      }
      boolean express = !zones.isEmpty() && workRandom.nextBoolean();
      SimStream st =
          new SimStream(
              "s" + s, 1 + workRandom.nextInt(3), retentionMillis, retentionBytes, express);
      streams.add(st);
      await(
          first
              .log()
              .createStream(
                  SimContext.NS,
                  st.name(),
                  new StreamSpec(
                      st.partitions(),
                      express ? Durability.EXPRESS : Durability.STANDARD,
                      retentionMillis,
                      retentionBytes,
                      false)));
      ctx.planned(
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
    if (changelogs != null) {
      changelogs.setup(first.log(), this::await);
    }
    if (raft != null) {
      createQuorumStream(first);
    }
    producers.create(config.producers());
    consumers.create(workRandom.nextInt(3));
    hostContext.allowAwait(true);
    host.setup(hostContext);
    hostContext.allowAwait(false);
    nemesis.perCallFaults(config.faults());
    if (raft != null) {
      raft.setFaultsEnabled(config.faults());
    }
    trace.add("setup done streams=" + streams);
  }

  /**
   * The quorum stream {@code q0} (1–2 partitions, drawn from a stream of its own), once every node
   * advertises its journal endpoint: the create refuses the quorum class while fewer than three do.
   */
  private void createQuorumStream(LoamNode first) {
    List<String> ids = cluster.nodes().stream().map(SimCluster.Node::id).toList();
    SplittableRandom q = Seeds.stream(seed, "quorum");
    SimStream st = new SimStream("q0", 1 + q.nextInt(2), -1, -1, false, true);
    // The create refuses a quorum stream unless three live nodes advertise a journal port (the
    // node runtime's rule, read through the creating node's replica, which may lag); a node can be
    // late to register or be declared dead a moment by the faults of the setup, so wait for three
    // and retry a refusal a bounded number of times, half a second apart.
    for (int attempt = 1; ; attempt++) {
      boolean advertised =
          scheduler.runUntil(
              () ->
                  meta.read(
                          r ->
                              ids.stream()
                                  .filter(
                                      id ->
                                          r.nodeStatus(id)
                                                  .map(dev.loam.meta.command.NodeStatus::live)
                                                  .orElse(false)
                                              && r.node(id)
                                                  .map(n -> n.endpoints().containsKey("journal"))
                                                  .orElse(false))
                                  .count())
                      >= 3,
              1_000_000);
      if (!advertised) {
        throw new IllegalStateException("journal endpoints never advertised seed=" + seed);
      }
      CompletableFuture<?> created =
          first
              .log()
              .createStream(
                  SimContext.NS,
                  st.name(),
                  new StreamSpec(st.partitions(), Durability.QUORUM, -1, -1, false));
      if (!scheduler.runUntil(created::isDone, 1_000_000)) {
        throw new IllegalStateException("setup step never completed seed=" + seed);
      }
      try {
        created.join();
        break;
      } catch (java.util.concurrent.CompletionException e) {
        boolean tooFewLive =
            e.getCause() instanceof dev.loam.error.LoamException le
                && le.kind() == dev.loam.error.LoamException.Kind.INVALID
                && String.valueOf(le.getMessage()).contains("live nodes with a journal port");
        if (!tooFewLive || attempt >= 20) {
          throw e;
        }
        // The creating node reads its own metastore replica, which may lag the cluster's.
        scheduler.runFor(java.time.Duration.ofMillis(500));
      }
    }
    streams.add(st);
    ctx.planned("stream " + st.name() + " partitions=" + st.partitions() + " quorum");
  }

  /** The run's stream with this metastore id, or null. */
  private SimStream streamById(long id) {
    String name = meta.read(r -> r.streamById(id)).map(StreamInfo::name).orElse(null);
    return streams.stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
  }

  private <T> T await(CompletableFuture<T> f) {
    if (!scheduler.runUntil(f::isDone, 1_000_000)) {
      throw new IllegalStateException("setup step never completed seed=" + seed);
    }
    return f.join();
  }

  /**
   * After every applied command: owner availability, revival time, consumer offsets, trims (the
   * invariants besides the {@link Checker}'s and the {@link OwnershipChecker}'s).
   */
  private void afterApply(Command command, Outcome outcome) {
    availability.trackAvailability();
    Command inner = command instanceof OwnerFenced f ? f.inner() : command;
    if (inner instanceof CommitConsumerOffset c && !(outcome instanceof Outcome.Rejected)) {
      consumerOffsets.onCommitApplied(c);
    }
    if (inner instanceof TrimPartition t && outcome instanceof Outcome.Trimmed tr) {
      availability.checkTrim(t, tr);
    }
  }

  /** Faults off, every node back, every operation answered, then ownership settles. */
  private void heal() {
    nemesis.stop();
    if (raft != null) {
      raft.heal();
    }
    availability.healingStarted();
    trace.add("heal");
    cluster.resumeAll();
    // Let restarts, retries and in-flight commits finish (the commit budget is 60 s).
    scheduler.runFor(Duration.ofSeconds(90));
    cluster.startStopped();
    cluster.restoreSlots();
    scheduler.runUntil(() -> ctx.pendingOps() == 0 && producers.settled(), 5_000_000);
    if (ctx.pendingOps() != 0) {
      checker.violation("operations never completed after healing pending=" + ctx.pendingOps());
    }
    // Liveness after healing: every stream open by a running node within a few ownership steps.
    scheduler.runFor(cluster.ownershipSettings().livenessTimeout().multipliedBy(2));
    availability.trackAvailability();
    availability.checkOpenAfterHealing();
    consumerOffsets.checkAfterHealing();
  }

  /** The read-back and the final validations, then what the fault injectors did. */
  private void validate() {
    SimCluster.Node reader = cluster.readBackNode();
    if (reader == null) {
      checker.violation("no node can start for the read-back");
      return;
    }
    if (changelogs != null) {
      // Time for the owner's worker to turn the last source records into changes.
      scheduler.runFor(Duration.ofSeconds(30));
      changelogs.check(reader.node().log(), this::await, checker);
    }
    FinalValidation validation =
        new FinalValidation(ctx, meta, store, zones, streams, history, checker, retentionModel);
    validation.run(reader, quorumReader(reader));
    countInjectedFaults();
    trace.add("validated records=" + validation.recordsReadBack());
  }

  /**
   * The node that reads the quorum stream back: {@code reader} when it hosts the journal, else a
   * running node that does: a node that is no replica of the journal (a fresh reader node) answers
   * a quorum fetch NOT_OWNER.
   */
  private SimCluster.Node quorumReader(SimCluster.Node reader) {
    if (raft == null || hostsJournal(reader)) {
      return reader;
    }
    for (SimCluster.Node n : cluster.nodes()) {
      if (hostsJournal(n)) {
        ctx.count("quorum.readBackThroughAnotherReplica");
        return n;
      }
    }
    return reader;
  }

  private static boolean hostsJournal(SimCluster.Node n) {
    return n.node() != null
        && n.node()
            .quorumHost()
            .map(h -> h.replicates(dev.loam.core.quorum.QuorumStreams.JOURNAL))
            .orElse(false);
  }

  private void countInjectedFaults() {
    ctx.put("store.outcomeUnknown", store.stats().outcomeUnknown);
    ctx.put("store.unavailable", store.stats().unavailable);
    ctx.put("store.missingRead", store.stats().missingRead);
    ctx.put("store.slow", store.stats().slow);
    ctx.put("zones.slow", zones.stream().mapToLong(z -> z.stats().slow).sum());
    ctx.put("zones.outcomeUnknown", zones.stream().mapToLong(z -> z.stats().outcomeUnknown).sum());
    ctx.put("zones.missingRead", zones.stream().mapToLong(z -> z.stats().missingRead).sum());
    ctx.put("meta.lostBeforeLog", meta.stats().lostBeforeLog);
    ctx.put("meta.delayed", meta.stats().delayed);
    ctx.put("zones.unavailable", zones.stream().mapToLong(z -> z.stats().unavailable).sum());
    ctx.put("meta.answerLost", meta.stats().answerLost);
    ctx.put("meta.refused", meta.stats().refused);
    ctx.put("meta.futureStamp", meta.stats().futureStamp);
    ctx.put("meta.leaderChanges", meta.stats().leaderChanges);
    ctx.put("meta.replicaStalls", meta.stats().replicaStalls);
    ctx.put("meta.commitGroups", meta.stats().commitGroups);
    ctx.put("meta.groupedObjects", meta.stats().groupedObjects);
    ctx.put("meta.groupFaults", meta.stats().groupFaults);
    ctx.put("meta.pipelined", meta.stats().pipelined);
    ctx.put("meta.pipelinedFaults", meta.stats().pipelinedFaults);
  }
}
