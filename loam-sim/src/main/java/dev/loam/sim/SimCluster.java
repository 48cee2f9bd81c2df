package dev.loam.sim;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.express.ExpressObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The nodes of a run and what can happen to them: start (a new incarnation with a fresh epoch),
 * crash and restart, pause and resume, graceful close, a clock step, and healing. Every node is a
 * real {@link LoamNode} on the shared {@link SimObjectStore} (and the express zones, when the seed
 * has them) and {@link SimMetastore}, with its own skewable clock, its own {@link
 * SimScheduler.Process} and its own random stream per incarnation.
 *
 * <p>It also answers the {@link dev.loam.sim.check.OwnershipChecker}'s liveness question, because
 * only the harness knows what it did to a node ({@link #whyNotDead}).
 */
public final class SimCluster {
  /** The metastore's future-stamp limit (its default): a node this far ahead is refused. */
  private static final Duration MAX_FUTURE_STAMP = Duration.ofSeconds(60);

  /** One node id across its incarnations; {@link #node()} is null while it is down. */
  public static final class Node {
    final String id;
    final SimClock.Skewed clock;
    LoamNode node;
    int incarnation;
    SimScheduler.Process process;
    SimReplica replica;

    /** When this node last started or resumed: a death verdict soon after is explainable. */
    long disturbedAtNanos;

    boolean leaving;

    Node(String id, SimClock.Skewed clock) {
      this.id = id;
      this.clock = clock;
    }

    /** The node id, stable across incarnations ({@code n0}, {@code n1}, ... or {@code reader}). */
    public String id() {
      return id;
    }

    /** The node's own clock: the simulation's plus an offset that a clock step changes. */
    public SimClock.Skewed clock() {
      return clock;
    }

    /** The running incarnation, or null while the node is crashed, closed or refused a start. */
    public LoamNode node() {
      return node;
    }

    /** How many times this node was started; a client colocated with it dies with each one. */
    public int incarnation() {
      return incarnation;
    }

    /** The current incarnation's process on the scheduler (null before the first start). */
    public SimScheduler.Process process() {
      return process;
    }

    /** A graceful leave is under way: the node is on its way out. */
    public boolean leaving() {
      return leaving;
    }

    /** A node a client can reach: started, not paused (a paused process answers nothing). */
    public boolean running() {
      return node != null && !process.paused();
    }
  }

  private final SimContext ctx;
  private final SimClock clock;
  private final Trace trace;
  private final SimObjectStore store;
  private final List<SimObjectStore> zones;
  private final SimMetastore meta;
  private final SimReplica.Lag replicaLag;
  private final NodeSettings settings;
  private final OwnershipSettings ownershipSettings;
  private final SplittableRandom workRandom;
  // The run's KMS when its namespace is encrypted, else null.
  private final SimKms kms;
  private final List<Node> nodes = new ArrayList<>();

  /** The journals' simulated Raft when the seed runs a quorum stream, else null. */
  private dev.loam.sim.quorum.SimRaft raft;

  /**
   * Per journal, the bound on unsealed bytes of the quorum class in the simulation: small, so that
   * the seal agents seal (at a sixteenth of it) many times in a run.
   */
  public static final long JOURNAL_MAX_UNSEALED_BYTES = 128L << 10;

  /**
   * Where each node keeps its disk cache ({@code <root>/<node id>}, kept across its restarts), or
   * null when the seed runs without. The cache does real file I/O, on the node's simulated process:
   * each I/O step is a scheduled task, so a run replays. Its capacity is beyond what a run reads,
   * so no eviction happens (the start-up scan orders files by their real modification times, which
   * would make evictions after a restart differ between runs).
   */
  private final Path diskCacheRoot;

  private static final long DISK_CACHE_BYTES = 256L << 20;

  /**
   * @param zones the three zonal stores of the express class, or empty
   * @param workRandom the workload's stream: a client picks the node it talks to from it
   */
  SimCluster(
      SimContext ctx,
      SimObjectStore store,
      List<SimObjectStore> zones,
      SimMetastore meta,
      SimReplica.Lag replicaLag,
      NodeSettings settings,
      OwnershipSettings ownershipSettings,
      SplittableRandom workRandom,
      SimKms kms,
      boolean diskCache) {
    this.kms = kms;
    try {
      this.diskCacheRoot = diskCache ? Files.createTempDirectory("loam-sim-disk-cache") : null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the simulation's disk cache directory", e);
    }
    this.ctx = ctx;
    this.clock = ctx.clock();
    this.trace = ctx.trace();
    this.store = store;
    this.zones = zones;
    this.meta = meta;
    this.replicaLag = replicaLag;
    this.settings = settings;
    this.ownershipSettings = ownershipSettings;
    this.workRandom = workRandom;
  }

  /**
   * From now on every node started is given a journal port whose journals run on {@code raft}, the
   * run's simulated Raft (docs/design/simulation.md "Quorum streams").
   */
  void quorum(dev.loam.sim.quorum.SimRaft raft) {
    this.raft = raft;
  }

  /** The ownership settings every node runs with (drawn per seed). */
  public OwnershipSettings ownershipSettings() {
    return ownershipSettings;
  }

  /** Creates and starts nodes {@code n0 .. n<count-1>}, each with a true clock. */
  void startNodes(int count) {
    for (int i = 0; i < count; i++) {
      Node n = new Node("n" + i, clock.skewed(Duration.ZERO));
      nodes.add(n);
      start(n);
    }
  }

  /** Every node, in the order created; the read-back may add one named {@code reader}. */
  public List<Node> nodes() {
    return nodes;
  }

  /** Scheduler steps a node start may take (its registration and cluster identity checks). */
  private static final int START_MAX_STEPS = 100_000;

  /** How long a supervisor waits before starting a node again after a transient refusal. */
  private static final long START_RETRY_MILLIS = 1_000;

  /** Starts a new incarnation of {@code n}; false when the node refused to start. */
  /**
   * A key source for one incarnation of {@code n}, drawn from the seed: SHA1PRNG seeded before its
   * first use is deterministic, so every key and nonce of the run is the same on a replay.
   */
  private java.security.SecureRandom seededSecureRandom(Node n) {
    try {
      java.security.SecureRandom r = java.security.SecureRandom.getInstance("SHA1PRNG");
      r.setSeed(Seeds.stream(ctx.seed(), "keys-" + n.id + "-" + n.incarnation).nextLong());
      return r;
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA1PRNG", e);
    }
  }

  boolean start(Node n) {
    n.incarnation++;
    n.process = ctx.scheduler().process(n.id + "#" + n.incarnation);
    if (n.replica != null) {
      n.replica.detach();
    }
    n.replica =
        meta.replica(
            n.id + "#" + n.incarnation,
            n.process,
            Seeds.stream(ctx.seed(), "replica-" + n.id + "-" + n.incarnation),
            replicaLag);
    n.disturbedAtNanos = clock.nanos();
    n.leaving = false;
    try {
      LoamNode.Builder b = LoamNode.builder();
      if (kms != null) {
        // Keys, data keys and nonces from the seed, so the run replays; the KMS answers at once,
        // and the timeout (a wall-clock timer) is far beyond any run so it never fires.
        b.keyManagement(kms).kmsTimeout(Duration.ofHours(1)).keyRandom(seededSecureRandom(n));
      }
      NodeSettings nodeSettings = settings;
      if (diskCacheRoot != null) {
        Path dir = diskCacheRoot.resolve(n.id);
        if (n.incarnation > 1) {
          damageDiskCache(n, dir);
        }
        nodeSettings = settings.withDiskCache(dir, DISK_CACHE_BYTES);
        b.ioExecutor(n.process);
      }
      if (raft != null) {
        // The real node host of loam-journal over this node's replicas on the simulated Raft;
        // the address is only a name (no socket), the directory is never written.
        b.journalAddress(n.id + ".sim:7100")
            .journalDir(Path.of("sim-journal", n.id))
            .journalMaxUnsealedBytes(JOURNAL_MAX_UNSEALED_BYTES)
            .quorumHostFactory(raft.factory())
            .ioExecutor(n.process);
      }
      if (!zones.isEmpty()) {
        // Each node in its own zone (n0 in zone 0, ...): reads try the local zone first.
        int local = Math.floorMod(n.id.hashCode(), 3);
        b.expressStore(new ExpressObjectStore(List.copyOf(zones), local));
      }
      // The start's metastore and store steps complete through the simulated scheduler, which
      // only this thread runs: drive it until the start is decided.
      CompletableFuture<LoamNode> starting =
          b.nodeId(n.id)
              .objectStore(store)
              .metastore(n.replica)
              .clock(n.clock)
              .random(Seeds.stream(ctx.seed(), "node-" + n.id + "-" + n.incarnation))
              .scheduler(n.process)
              .settings(nodeSettings)
              .ownership(ownershipSettings)
              .startAsync();
      for (int i = 0; i < START_MAX_STEPS && !starting.isDone() && ctx.scheduler().step(); i++) {
        // each step runs one due task
      }
      if (!starting.isDone()) {
        throw new LoamException(Kind.UNAVAILABLE, "node start did not finish node=" + n.id);
      }
      try {
        n.node = starting.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof LoamException le
            ? le
            : new LoamException(Kind.INTERNAL, "node start failed node=" + n.id, e.getCause());
      }
      trace.add("node start " + n.id + " epoch=" + n.node.epoch());
      return true;
    } catch (LoamException e) {
      n.node = null;
      n.replica.detach();
      trace.add("node start refused " + n.id + " kind=" + e.kind());
      ctx.count("nodeStartRefused");
      if (e.kind() == Kind.UNAVAILABLE || e.kind() == Kind.OUTCOME_UNKNOWN) {
        // What a process supervisor does with a start that failed on a transient store or
        // metastore fault (as `loam node` retries its registration): try again a little later.
        restartAfter(n, START_RETRY_MILLIS);
      }
      return false;
    }
  }

  /** The node with this id, or null. */
  public Node byId(String id) {
    return nodes.stream().filter(x -> x.id.equals(id)).findFirst().orElse(null);
  }

  /** A running node drawn from the workload's stream, or null when none is running. */
  public Node liveNode() {
    List<Node> live = nodes.stream().filter(Node::running).toList();
    return live.isEmpty() ? null : live.get(workRandom.nextInt(live.size()));
  }

  /** {@link LoamNode#crash()}: unflushed buffers are lost; the same id starts again later. */
  public void crash(String id, long downMillis) {
    Node n = nodes.stream().filter(x -> x.id.equals(id)).findFirst().orElseThrow();
    if (n.node == null) {
      return;
    }
    trace.add("node crash " + id);
    ctx.count("crashes");
    LoamNode old = n.node;
    n.node = null;
    countDiskCacheReads(old);
    old.crash();
    n.replica.detach();
    restartAfter(n, downMillis);
  }

  /** Starts a new process of {@code n} after {@code downMillis}, unless one runs by then. */
  public void restartAfter(Node n, long downMillis) {
    ctx.scheduler()
        .schedule(
            () -> {
              if (n.node == null) {
                start(n);
              }
            },
            downMillis,
            TimeUnit.MILLISECONDS);
  }

  /** The node's process stops (a SIGSTOP, a long GC): no renewals, no timers; same epoch after. */
  public void pause(String id, long lengthMillis) {
    Node n = byId(id);
    if (!n.running()) {
      return;
    }
    SimScheduler.Process p = n.process;
    p.pause();
    trace.add("node pause " + id);
    ctx.count("pauses");
    ctx.scheduler()
        .schedule(
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

  /** A graceful leave of {@code n} begins: from now on a client treats it as gone. */
  public void beginLeave(Node n) {
    n.leaving = true;
  }

  /** The incarnation {@code n} closed gracefully; it is down until {@link #restartAfter}. */
  public void closed(Node n) {
    if (n.node != null) {
      countDiskCacheReads(n.node);
    }
    n.node = null;
    n.replica.detach();
  }

  // ---- the disk cache

  /**
   * What a crash can leave in a disk cache, and what the disk itself can do to it, before a restart
   * (drawn from the seed): a temporary file of a write the crash cut short, and one cached file
   * with a byte flipped. The node must read the flipped range as a miss and fetch it again.
   */
  private void damageDiskCache(Node n, Path dir) {
    SplittableRandom r = Seeds.stream(ctx.seed(), "disk-" + n.id + "-" + n.incarnation);
    try {
      if (!Files.isDirectory(dir) || r.nextInt(2) != 0) {
        return;
      }
      Files.write(dir.resolve("cut-short-" + n.incarnation + ".tmp"), new byte[] {1, 2, 3});
      List<Path> files;
      try (var s = Files.list(dir)) {
        files =
            s.filter(p -> p.getFileName().toString().endsWith(".ldc"))
                .sorted(Comparator.comparing(p -> p.getFileName().toString()))
                .toList();
      }
      if (files.isEmpty()) {
        return;
      }
      Path f = files.get(r.nextInt(files.size()));
      byte[] bytes = Files.readAllBytes(f);
      int at = r.nextInt(bytes.length);
      bytes[at] ^= (byte) (1 + r.nextInt(255));
      Files.write(f, bytes);
      trace.add("disk cache damaged node=" + n.id + " file#" + files.indexOf(f) + " at=" + at);
      ctx.count("diskCacheDamaged");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot damage the disk cache of " + n.id, e);
    }
  }

  /** Adds an incarnation's disk cache hits and refused files to the run's counts. */
  private void countDiskCacheReads(LoamNode node) {
    if (diskCacheRoot == null) {
      return;
    }
    dev.loam.api.ReadStats r = node.readStats();
    ctx.add("diskCacheHits", r.diskHits());
    ctx.add("diskCacheCorruptRefused", r.diskCorrupt());
  }

  /** At the end of a run: the running nodes' disk cache counts. */
  void countDiskCacheReads() {
    for (Node n : nodes) {
      if (n.node != null) {
        countDiskCacheReads(n.node);
      }
    }
  }

  /** Deletes the run's disk cache directories (after the run; nodes may still hold files). */
  void deleteDiskCaches() {
    if (diskCacheRoot == null) {
      return;
    }
    try (var walk = Files.walk(diskCacheRoot)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A temporary directory; what is left is the OS's to clean.
    }
  }

  /** The clock of node {@code id} steps to {@code offset} from the true time. */
  public void stepClock(String id, Duration offset) {
    for (Node n : nodes) {
      if (n.id.equals(id)) {
        if (n.clock.offset().compareTo(Duration.ZERO) > 0
            && offset.compareTo(n.clock.offset()) < 0) {
          // Coming back from a clock that ran ahead, whose renewals may have been refused as
          // FUTURE_STAMP all along: like a resumed pause, it gets a liveness timeout to renew
          // before a death verdict on it needs explaining (found by a 3 000-seed sweep, seed 163).
          n.disturbedAtNanos = clock.nanos();
        }
        n.clock.setOffset(offset);
      }
    }
  }

  /** Healing: every paused process resumes (and counts as disturbed now). */
  void resumeAll() {
    for (Node n : nodes) {
      if (n.process != null && n.process.paused()) {
        n.process.resume();
        n.disturbedAtNanos = clock.nanos();
      }
    }
  }

  /** Healing: every node that is down starts again. */
  void startStopped() {
    for (Node n : nodes) {
      if (n.node == null) {
        start(n);
      }
    }
  }

  /**
   * Healing: slots back to 1 everywhere (a slots fault may have left every node out of placement).
   */
  void restoreSlots() {
    for (Node n : nodes) {
      Node via = liveNode();
      if (via != null) {
        ctx.opStarted();
        via.node.log().setNodeSlots(n.id, 1).whenComplete((d, e) -> ctx.opDone());
      }
    }
  }

  /**
   * A started node with a true clock for the read-back; a fresh node named {@code reader} when
   * there is none. Null when that one cannot start either.
   */
  Node readBackNode() {
    Node reader =
        nodes.stream()
            .filter(n -> n.node != null && n.clock.offset().isZero())
            .findFirst()
            .orElse(null);
    if (reader == null) {
      Node fresh = new Node("reader", clock.skewed(Duration.ZERO));
      nodes.add(fresh);
      if (!start(fresh)) {
        return null;
      }
      reader = fresh;
    }
    return reader;
  }

  /**
   * Whether some node could open a closed stream now: running, unpaused, not leaving, in {@code
   * placeable} (the ids the replicated state holds live with slots), and with a clock not so far
   * ahead that the metastore refuses its commands.
   */
  public boolean someNodeCanOwn(Set<String> placeable) {
    for (Node n : nodes) {
      if (n.node != null
          && !n.leaving
          && !n.process.paused()
          && n.clock.offset().compareTo(MAX_FUTURE_STAMP) < 0
          && placeable.contains(n.id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The liveness judge: null when a death verdict on {@code id} at {@code epoch} is explained by
   * what the simulation did to the node (crashed, left, paused or resumed within the liveness
   * timeout, or its clock ahead past the future-stamp limit so that its renewals are refused).
   */
  String whyNotDead(String id, long epoch) {
    Node n = byId(id);
    if (n == null || n.node == null || n.node.epoch() != epoch || n.leaving) {
      return null;
    }
    if (n.process.paused()) {
      return null;
    }
    if (n.clock.offset().compareTo(Duration.ZERO) > 0) {
      return null; // docs/design/ownership.md "Known limits": its commands are refused FUTURE_STAMP
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
}
