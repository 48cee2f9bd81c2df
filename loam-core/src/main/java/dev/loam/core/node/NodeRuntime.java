package dev.loam.core.node;

import dev.loam.api.CompactionSettings;
import dev.loam.api.Log;
import dev.loam.api.NodeHealth;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.core.Rejections;
import dev.loam.core.auth.ApiKeys;
import dev.loam.core.changelog.ChangelogAgent;
import dev.loam.core.changelog.ChangelogWorker;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.crypto.NamespaceKeyRing;
import dev.loam.core.maintain.Compactor;
import dev.loam.core.maintain.InvalidatingObjectStore;
import dev.loam.core.maintain.Maintenance;
import dev.loam.core.maintain.ObjectGc;
import dev.loam.core.maintain.RetentionTask;
import dev.loam.core.maintain.Segmenter;
import dev.loam.core.ownership.OwnershipAgent;
import dev.loam.core.read.DiskCache;
import dev.loam.core.read.PartitionWatch;
import dev.loam.core.read.ReadCounters;
import dev.loam.core.read.ReadPath;
import dev.loam.core.read.TailCache;
import dev.loam.core.runtime.SystemDrivers;
import dev.loam.core.write.ClassRoutingObjectStore;
import dev.loam.core.write.WalWriter;
import dev.loam.core.write.WriteCounters;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kms.KeyManagementService;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.spi.quorum.QuorumHost;
import dev.loam.spi.quorum.QuorumHostContext;
import dev.loam.spi.quorum.QuorumHostFactory;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.UlidGenerator;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

/**
 * Everything one running node holds: its registration, its WAL writers (one per leaderless class),
 * the read path and caches, the long-poll watch, and the {@link Log} over them. Built by {@code
 * LoamNode}; owns no threads or clocks of its own (all injected).
 */
public final class NodeRuntime {
  private final String clusterId;
  private final String nodeId;
  private final long epoch;
  private final Metastore meta;
  private final EnumMap<DurabilityClass, WalWriter> writers = new EnumMap<>(DurabilityClass.class);
  private final PartitionWatch watch;
  private final TailCache tailCache;
  private final WriteCounters stats = new WriteCounters();
  private final ReadCounters readStats = new ReadCounters();
  private final DiskCache diskCache;
  private final LogService log;
  private final ApiKeys apiKeys;
  private final NamespaceEncryption encryption;
  private final Maintenance maintenance;
  private final OwnershipAgent ownership;
  private final ScheduledFuture<?> maintenanceTask;
  private final ChangelogAgent changelogAgent;
  private final ScheduledFuture<?> changelogTask;

  /** How often the changelog agent polls its workers. */
  static final long CHANGELOG_INTERVAL_MILLIS = 20;

  private final ScheduledFuture<?> ownershipTask;
  private final List<StoreHealth> storeHealth;
  private final ScheduledExecutorService scheduler;
  private final QuorumHost quorum;
  private volatile boolean stopped;

  /** How long a node holds an unwrapped key-encryption key before asking the KMS again. */
  static final Duration KEY_TTL = Duration.ofHours(1);

  /** The default bound of one namespace's KMS call. */
  public static final Duration DEFAULT_KMS_TIMEOUT = Duration.ofSeconds(5);

  private NodeRuntime(
      String clusterId,
      String nodeId,
      long epoch,
      NodeSettings settings,
      ObjectStore standardStore,
      ObjectStore expressStore,
      Metastore meta,
      InstantSource clock,
      RandomGenerator random,
      ScheduledExecutorService scheduler,
      Executor ioExecutor,
      OwnershipSettings ownershipSettings,
      CompactionSettings compactionSettings,
      KeyManagementService kms,
      Duration kmsTimeout,
      java.security.SecureRandom keyRandom,
      JournalPort journal) {
    // Every call of the node goes through a health watch, so readiness reflects the store's recent
    // answers without a probe of its own.
    StoreHealth standardHealth = new StoreHealth(standardStore, "object store", clock);
    StoreHealth expressHealth =
        expressStore == null ? null : new StoreHealth(expressStore, "express store", clock);
    this.storeHealth =
        expressHealth == null ? List.of(standardHealth) : List.of(standardHealth, expressHealth);
    ObjectStore store =
        expressHealth == null
            ? standardHealth
            : new ClassRoutingObjectStore(standardHealth, expressHealth);
    this.scheduler = scheduler;
    this.clusterId = clusterId;
    this.nodeId = nodeId;
    this.epoch = epoch;
    this.meta = meta;
    this.tailCache = new TailCache(settings.tailCacheBytes());
    this.watch = new PartitionWatch(settings.maxWaitingFetches(), scheduler);
    // The metastore cannot forget a listener, so register a forwarder that goes quiet when this
    // node stops: a restarted node on a shared metastore leaves only this small object behind.
    UlidGenerator ulids = new UlidGenerator(random);
    NodeContext ctx = new NodeContext(clusterId, nodeId, epoch, meta, clock, ulids, scheduler);
    // Key derivations are CPU work of milliseconds: the I/O pool runs them, never a caller's
    // thread (an HTTP event loop) nor the node's step thread. A runtime built without a pool (test
    // harnesses) derives on the calling thread.
    this.apiKeys =
        new ApiKeys(
            ctx, SystemDrivers.secureRandom(), ioExecutor != null ? ioExecutor : Runnable::run);
    // Envelope encryption (docs/security.md, "Data at rest"): key-encryption keys are held in
    // memory for an hour at most, and every KMS call of a namespace is bounded by kmsTimeout.
    this.encryption =
        new NamespaceEncryption(
            meta,
            nodeId,
            ctx::origin,
            Rejections::of,
            kms == null
                ? null
                : new NamespaceKeyRing(
                    store, kms, clusterId, clock, KEY_TTL, kmsTimeout, keyRandom),
            kms);
    // The quorum class (docs/design/quorum.md "Hosting journals on a node"): only a node given a
    // journal port starts a journal server, through the loam-journal module.
    QuorumHost q = null;
    if (journal != null) {
      // Before anything is scheduled or listening: a failure here leaves nothing running.
      q =
          journal
              .hostFactory()
              .start(
                  new QuorumHostContext(
                      nodeId,
                      journal.address(),
                      journal.dir(),
                      meta,
                      ctx::origin,
                      scheduler,
                      ioExecutor,
                      store,
                      (streamId, partition, base) -> {
                        dev.loam.wal.ulid.Ulid u = ulids.next(clock.millis());
                        return new dev.loam.spi.quorum.SegmentNamer.SegmentName(
                            ObjectLayout.segmentKey(clusterId, streamId, partition, base, u),
                            u.timestampMillis());
                      },
                      journal.maxUnsealedBytes(),
                      journal.snapshotThresholdEntries(),
                      journal.quietSealMillis(),
                      journal.peerTls()));
    }
    this.quorum = q;
    meta.addApplyListener(
        (index, command, outcome) -> {
          if (!stopped) {
            watch.onApplied(index, command, outcome);
            apiKeys.onApplied(outcome);
            encryption.onApplied(outcome);
          }
        });
    // Express needs its three-zone store; without one the node refuses express streams.
    List<DurabilityClass> classes =
        expressStore == null
            ? List.of(DurabilityClass.STANDARD)
            : List.of(DurabilityClass.STANDARD, DurabilityClass.EXPRESS);
    for (DurabilityClass c : classes) {
      Duration interval =
          c == DurabilityClass.EXPRESS
              ? settings.expressFlushInterval()
              : settings.standardFlushInterval();
      writers.put(
          c,
          new WalWriter(
              ctx,
              c,
              interval,
              settings.walObjectMaxBytes(),
              settings.maxObjectsInFlight(),
              settings.maxCommitsInFlight(),
              settings.maxBufferedBytes(),
              settings.commitBudget(),
              settings.retryBackoffInitial(),
              store,
              tailCache,
              stats,
              keyRandom));
    }
    if (settings.diskCacheBytes() > 0) {
      this.diskCache =
          new DiskCache(
              settings.diskCacheDir(),
              settings.diskCacheBytes(),
              DISK_CACHE_MAX_FILES,
              ioExecutor,
              readStats);
      diskCache.start();
    } else {
      this.diskCache = null;
    }
    ReadPath readPath =
        new ReadPath(
            store,
            tailCache,
            diskCache,
            readStats,
            ReadPath.blockBytes(settings.segmentMaxBytes()),
            ReadPath.SEGMENT_INDEX_CACHE_BYTES,
            (micros, task) -> scheduler.schedule(task, micros, TimeUnit.MICROSECONDS),
            ReadPath.WAL_MERGE_WINDOW_MICROS,
            settings.walReadAheadBytes(),
            encryption);
    ObjectStore gcStore = new InvalidatingObjectStore(store, diskCache, readPath);
    this.ownership =
        new OwnershipAgent(
            ctx,
            ownershipSettings,
            () ->
                new RegisterNode(
                    ctx.origin(), settings.advertisedAddress(), settings.slots(), settings.zone()));
    this.log =
        new LogService(
            ctx,
            writers,
            readPath,
            watch,
            settings.walObjectMaxBytes(),
            settings.maxFetchWait(),
            ownership,
            apiKeys,
            encryption,
            quorum);
    // Retention, segmenter and GC (stream-engine.txt §5), driven by the node's scheduler.
    this.maintenance =
        new Maintenance(
            ownership,
            new RetentionTask(ctx),
            new Segmenter(
                ctx,
                store,
                readPath,
                settings.segmentThresholdBytes(),
                settings.segmentMaxBytes(),
                settings.segmentEntryMaxBytes(),
                encryption,
                keyRandom != null ? keyRandom : SystemDrivers.secureRandom()),
            new Compactor(
                ctx,
                store,
                readPath,
                compactionSettings,
                settings.segmentMaxBytes(),
                settings.segmentEntryMaxBytes(),
                encryption,
                keyRandom != null ? keyRandom : SystemDrivers.secureRandom()),
            new ObjectGc(
                ctx,
                gcStore,
                settings.gcGracePeriod().toMillis(),
                settings.orphanMinAge().toMillis()));
    long every = settings.maintenanceInterval().toMillis();
    this.maintenanceTask =
        scheduler.scheduleWithFixedDelay(
            () -> {
              if (!stopped) {
                maintenance.poll();
              }
            },
            every,
            every,
            TimeUnit.MILLISECONDS);
    // The changelog workers of the compacted streams this node owns (docs/design/changelog.md),
    // on their own short cadence: an idle pass is one local read per changelog partition.
    this.changelogAgent = new ChangelogAgent(ctx, log, store, ChangelogWorker.Settings.defaults());
    this.changelogTask =
        scheduler.scheduleWithFixedDelay(
            () -> {
              if (!stopped) {
                changelogAgent.poll();
              }
            },
            CHANGELOG_INTERVAL_MILLIS,
            CHANGELOG_INTERVAL_MILLIS,
            TimeUnit.MILLISECONDS);
    long tick = ownershipSettings.tickInterval().toMillis();
    this.ownershipTask =
        scheduler.scheduleWithFixedDelay(
            () -> {
              if (!stopped) {
                ownership.tick();
              }
            },
            0,
            tick,
            TimeUnit.MILLISECONDS);
  }

  /**
   * Where a node's journal server listens and keeps its Raft logs.
   *
   * @param address {@code host:port}, bound on that host only and advertised as the node's {@code
   *     journal} endpoint
   * @param dir the journal server's directory
   * @param maxUnsealedBytes per journal, the bound on unsealed bytes (0: the journal default)
   * @param snapshotThresholdEntries a journal snapshot every this many entries (0: the default)
   * @param quietSealMillis a quiet partition's tail is sealed after this long (0: the default)
   * @param peerTls mutual TLS on the journal port, or empty for plain Raft
   * @param factory starts the node's quorum host, or null for the one found with {@link
   *     java.util.ServiceLoader} ({@link QuorumHostFactory#get()})
   */
  public record JournalPort(
      String address,
      java.nio.file.Path dir,
      long maxUnsealedBytes,
      long snapshotThresholdEntries,
      long quietSealMillis,
      java.util.Optional<dev.loam.tls.TlsSettings> peerTls,
      QuorumHostFactory factory) {
    public JournalPort {
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(dir, "dir");
      Objects.requireNonNull(peerTls, "peerTls");
    }

    /** A plain journal port with the journal defaults, started by the factory on the class path. */
    public JournalPort(String address, java.nio.file.Path dir) {
      this(address, dir, 0, 0, 0, java.util.Optional.empty(), null);
    }

    /** The factory given, else the one on the class path. */
    QuorumHostFactory hostFactory() {
      return factory != null ? factory : QuorumHostFactory.get();
    }
  }

  /** This node's journal host, when it was given a journal port. */
  public java.util.Optional<QuorumHost> quorumHost() {
    return java.util.Optional.ofNullable(quorum);
  }

  /** The disk cache's bound on files (its index lives in memory, about 200 bytes a range). */
  static final int DISK_CACHE_MAX_FILES = 1_000_000;

  /**
   * Registers the node (epoch: the clock at start, or one more than a registered epoch that is not
   * older, so a restart within the same millisecond still supersedes), establishes its cluster
   * identity ({@link ClusterIdentity}: the metastore's cluster id, the store's marker, one
   * referenced object present) and completes with the runtime. Nothing blocks: the steps complete
   * on the metastore's and the stores' threads. {@code ioExecutor} runs the disk cache's blocking
   * file I/O (needed only when the settings ask for a disk cache); it must not be the scheduler.
   * {@code abandoned} is set by a caller that gave up waiting: the runtime is then never built.
   */
  private static CompletableFuture<NodeRuntime> startAsync(
      String nodeId,
      NodeSettings settings,
      ObjectStore store,
      ObjectStore expressStore,
      Metastore meta,
      InstantSource clock,
      RandomGenerator random,
      ScheduledExecutorService scheduler,
      Executor ioExecutor,
      OwnershipSettings ownershipSettings,
      CompactionSettings compactionSettings,
      KeyManagementService kms,
      Duration kmsTimeout,
      java.security.SecureRandom keyRandom,
      JournalPort journal,
      AtomicBoolean claimed) {
    if (settings.diskCacheBytes() > 0 && ioExecutor == null) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.INVALID, "a disk cache needs an I/O executor node=" + nodeId));
    }
    if (journal != null && ioExecutor == null) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.INVALID, "a journal port needs an I/O executor node=" + nodeId));
    }
    if (journal != null) {
      try {
        // Refuse a host without loam-journal before registering, not after.
        journal.hostFactory();
      } catch (LoamException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    long now = clock.millis();
    long registered = meta.read(r -> r.node(nodeId).map(NodeInfo::epoch).orElse(0L));
    long epoch = Math.max(now, registered + 1);
    Origin origin = new Origin(nodeId, epoch, now);
    List<ObjectStore> stores = expressStore == null ? List.of(store) : List.of(store, expressStore);
    ObjectStore routing =
        expressStore == null ? store : new ClassRoutingObjectStore(store, expressStore);
    return meta.propose(
            new RegisterNode(
                origin, settings.advertisedAddress(), settings.slots(), settings.zone()))
        .handle(
            (a, t) -> {
              if (t != null) {
                Throwable c = t instanceof CompletionException ? t.getCause() : t;
                // Keep the metastore's kind (unavailable, outcome unknown, fenced...): callers
                // retry only the transient ones.
                Kind kind = c instanceof LoamException le ? le.kind() : Kind.UNAVAILABLE;
                throw new LoamException(kind, "could not register node=" + nodeId, c);
              }
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw new LoamException(
                    Kind.FENCED, r.message() + " node=" + nodeId + " epoch=" + epoch);
              }
              return a;
            })
        .thenCompose(
            a ->
                ClusterIdentity.establish(
                    meta,
                    new Origin(nodeId, epoch, clock.millis()),
                    stores,
                    routing,
                    () -> new UlidGenerator(random).next(clock.millis()).toString()))
        .thenApply(
            clusterId -> {
              if (!claimed.compareAndSet(false, true)) {
                throw new LoamException(
                    Kind.UNAVAILABLE, "start abandoned by its caller node=" + nodeId);
              }
              return new NodeRuntime(
                  clusterId,
                  nodeId,
                  epoch,
                  settings,
                  store,
                  expressStore,
                  meta,
                  clock,
                  random,
                  scheduler,
                  ioExecutor,
                  ownershipSettings,
                  compactionSettings,
                  kms,
                  kmsTimeout,
                  keyRandom,
                  journal);
            });
  }

  /** A builder for one node runtime; {@link Builder#start()} registers the node and builds it. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The settings and components one node runtime is started from. Required: node id, settings,
   * store, metastore, clock, randomness, scheduler and start timeout; the express store (none: the
   * node refuses express streams), the I/O executor (none: the settings must not ask for a disk
   * cache), ownership and compaction settings (their defaults) are optional.
   */
  public static final class Builder {
    private String nodeId;
    private NodeSettings settings;
    private ObjectStore store;
    private ObjectStore expressStore;
    private Metastore meta;
    private InstantSource clock;
    private RandomGenerator random;
    private ScheduledExecutorService scheduler;
    private Executor ioExecutor;
    private Duration startTimeout;
    private OwnershipSettings ownershipSettings = OwnershipSettings.defaults();
    private CompactionSettings compactionSettings = CompactionSettings.defaults();
    private KeyManagementService kms;
    private Duration kmsTimeout = DEFAULT_KMS_TIMEOUT;
    private java.security.SecureRandom keyRandom;
    private JournalPort journal;

    private Builder() {}

    /** The node's journal port, or null (the default) for none: the node hosts no journals. */
    public Builder journal(JournalPort journal) {
      this.journal = journal;
      return this;
    }

    /**
     * The source of key-encryption keys, data keys and nonces; null (the default) for the
     * platform's strong source. Only a simulation, which must replay a seed exactly, gives a seeded
     * one.
     */
    public Builder keyRandom(java.security.SecureRandom keyRandom) {
      this.keyRandom = keyRandom;
      return this;
    }

    /**
     * The key-management service that holds the namespaces' master keys, or null (the default) for
     * none: the node then writes and reads plain namespaces only. Not closed by the runtime.
     */
    public Builder keyManagement(KeyManagementService kms) {
      this.kms = kms;
      return this;
    }

    /** The longest one namespace's KMS call may take before its appends fail (default 5 s). */
    public Builder kmsTimeout(Duration kmsTimeout) {
      this.kmsTimeout = java.util.Objects.requireNonNull(kmsTimeout, "kmsTimeout");
      return this;
    }

    public Builder nodeId(String nodeId) {
      this.nodeId = nodeId;
      return this;
    }

    public Builder settings(NodeSettings settings) {
      this.settings = settings;
      return this;
    }

    /** The standard store: standard WAL objects and segments. */
    public Builder store(ObjectStore store) {
      this.store = store;
      return this;
    }

    /** The express (three-zone) store, or null for none. */
    public Builder expressStore(ObjectStore expressStore) {
      this.expressStore = expressStore;
      return this;
    }

    public Builder meta(Metastore meta) {
      this.meta = meta;
      return this;
    }

    public Builder clock(InstantSource clock) {
      this.clock = clock;
      return this;
    }

    public Builder random(RandomGenerator random) {
      this.random = random;
      return this;
    }

    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = scheduler;
      return this;
    }

    /**
     * Runs the disk cache's blocking file I/O and API key derivations; must not be the scheduler.
     */
    public Builder ioExecutor(Executor ioExecutor) {
      this.ioExecutor = ioExecutor;
      return this;
    }

    /** How long registration may take before start fails OUTCOME_UNKNOWN. */
    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    public Builder ownershipSettings(OwnershipSettings ownershipSettings) {
      this.ownershipSettings = ownershipSettings;
      return this;
    }

    public Builder compactionSettings(CompactionSettings compactionSettings) {
      this.compactionSettings = compactionSettings;
      return this;
    }

    /**
     * Starts the node without blocking (see {@link NodeRuntime}'s start rules); the start timeout
     * is the caller's to apply. For a caller that must keep running the node's scheduler while it
     * waits, such as a one-thread simulation.
     */
    public CompletableFuture<NodeRuntime> startAsync() {
      return startAsync(new AtomicBoolean());
    }

    /**
     * Registers the node, establishes its cluster identity and returns its runtime, waiting at most
     * the start timeout: OUTCOME_UNKNOWN after it (the registration may have happened; the runtime
     * is then never built), otherwise the failing step's own kind.
     */
    public NodeRuntime start() {
      AtomicBoolean claimed = new AtomicBoolean();
      CompletableFuture<NodeRuntime> f = startAsync(claimed);
      try {
        return f.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        claimed.set(true);
        throw new LoamException(Kind.UNAVAILABLE, "interrupted starting node=" + nodeId, e);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof LoamException le
            ? le
            : new LoamException(Kind.UNAVAILABLE, "could not start node=" + nodeId, e.getCause());
      } catch (TimeoutException e) {
        if (!claimed.compareAndSet(false, true)) {
          // Built just as the wait ended: it is running, so hand it over.
          return f.join();
        }
        throw new LoamException(
            Kind.OUTCOME_UNKNOWN,
            "could not register node="
                + nodeId
                + " and establish its cluster identity within startTimeout="
                + startTimeout,
            e);
      }
    }

    private CompletableFuture<NodeRuntime> startAsync(AtomicBoolean claimed) {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(settings, "settings");
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(meta, "meta");
      Objects.requireNonNull(clock, "clock");
      Objects.requireNonNull(random, "random");
      Objects.requireNonNull(scheduler, "scheduler");
      Objects.requireNonNull(startTimeout, "startTimeout");
      Objects.requireNonNull(ownershipSettings, "ownershipSettings");
      Objects.requireNonNull(compactionSettings, "compactionSettings");
      return NodeRuntime.startAsync(
          nodeId,
          settings,
          store,
          expressStore,
          meta,
          clock,
          random,
          scheduler,
          ioExecutor,
          ownershipSettings,
          compactionSettings,
          kms,
          kmsTimeout,
          keyRandom == null ? SystemDrivers.secureRandom() : keyRandom,
          journal,
          claimed);
    }
  }

  public Log log() {
    return log;
  }

  /**
   * The cluster this node belongs to: its metastore's cluster id, which the store's marker names.
   */
  public String clusterId() {
    return clusterId;
  }

  public String nodeId() {
    return nodeId;
  }

  public long epoch() {
    return epoch;
  }

  public WriteCounters stats() {
    return stats;
  }

  /**
   * Runs one maintenance pass now (retention, segmenter, GC) or joins the one in progress; for
   * tests, tools and benchmarks. Completes when the pass ends; never fails.
   */
  public CompletableFuture<Void> runMaintenance() {
    return maintenance.poll();
  }

  /**
   * Leaves the cluster gracefully (ownership-and-routing.txt "Transfers"): out of placement, every
   * owned stream transferred to another live node (waiting up to the drain timeout for the targets
   * to open them), then deregistered. Completes with how many transfers were started. Call before
   * {@link #drain()} and {@link #stop()} on a planned shutdown.
   */
  public CompletableFuture<Integer> leave() {
    return ownership.leave();
  }

  /** Runs one ownership step now (renew, expire silent nodes, claim); for tests and tools. */
  public CompletableFuture<Void> runOwnershipStep() {
    return ownership.tick();
  }

  /**
   * This node's health now (see {@link NodeHealth}): {@code stopping} as its host says, the
   * metastore's own {@code unavailableReason}, and each store's recent outcomes. Sends nothing.
   */
  public NodeHealth health(boolean stopping) {
    List<NodeHealth.Reason> reasons = new ArrayList<>();
    if (stopping || stopped) {
      reasons.add(new NodeHealth.Reason(NodeHealth.STOPPING, "the node is closing node=" + nodeId));
    }
    metastoreUnavailable()
        .ifPresent(r -> reasons.add(new NodeHealth.Reason(NodeHealth.METASTORE, r)));
    for (StoreHealth h : storeHealth) {
      h.unreachableReason().ifPresent(r -> reasons.add(new NodeHealth.Reason(NodeHealth.STORE, r)));
    }
    return NodeHealth.of(reasons);
  }

  /** Why the metastore cannot commit now, or empty (its {@code unavailableReason}). */
  public java.util.Optional<String> metastoreUnavailable() {
    try {
      return meta.unavailableReason();
    } catch (RuntimeException e) {
      return java.util.Optional.of("metastore health unknown: " + e);
    }
  }

  /** Read-path counters per tier. */
  public ReadCounters readStats() {
    return readStats;
  }

  /**
   * Stops taking appends, flushes what is buffered, and wakes every long-poll. Completes when every
   * buffered append has its verdict, and the appenders' own futures too: the verdicts are given on
   * the scheduler, and a caller's stage on an append future runs in the same scheduler task after
   * the writer's, so completion waits for one more scheduler turn (none once it is shut down).
   */
  public CompletableFuture<Void> drain() {
    List<CompletableFuture<Void>> fs = new ArrayList<>();
    for (WalWriter w : writers.values()) {
      w.closeForAppends();
      fs.add(w.flush());
    }
    return CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new))
        .thenComposeAsync(v -> CompletableFuture.<Void>completedFuture(null), scheduler);
  }

  /**
   * Stops: fails whatever is still buffered or in flight (UNAVAILABLE, or CommitUnknown for objects
   * in flight), ends every long-poll, and detaches from the metastore. After a complete {@link
   * #drain()} there is nothing left to fail. Acknowledged appends stay durable.
   */
  public void stop() {
    stopped = true;
    maintenanceTask.cancel(false);
    changelogTask.cancel(false);
    ownershipTask.cancel(false);
    writers.values().forEach(WalWriter::abandon);
    watch.close();
    if (diskCache != null) {
      diskCache.close();
    }
    if (quorum != null) {
      quorum.close();
    }
  }
}
