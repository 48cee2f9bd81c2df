package dev.loam.api;

import dev.loam.core.node.HostLog;
import dev.loam.core.node.NodeRuntime;
import dev.loam.core.runtime.SystemDrivers;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectStores;
import dev.loam.store.fs.FileSystemObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * One Loam node embedded in the host application. Start it with {@link #builder()}; it registers in
 * the metastore with a fresh epoch and serves the {@link Log} API. On the embedded default (a data
 * directory) it keeps objects in {@code <dir>/objects} and the single-node metastore in {@code
 * <dir>/meta}; several nodes become a cluster by sharing an object store and a replicated
 * metastore.
 *
 * <pre>{@code
 * try (LoamNode node = LoamNode.builder().nodeId("n1").dataDir(Path.of("loam-data")).start()) {
 *   Log log = node.log();
 *   log.createNamespace("demo").join();
 *   log.createStream("demo", "events", StreamSpec.standard(3)).join();
 *   AppendResult r = log.append("demo", "events", List.of(AppendRecord.of("k", "v"))).join();
 *   FetchResult f = log.fetch("demo", "events", 0, 0, 1 << 20, Duration.ZERO).join();
 * }
 * }</pre>
 */
public final class LoamNode implements AutoCloseable {
  private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private final NodeRuntime runtime;

  /** How long close() waits for the host's queued completions to run (they are quick). */
  private static final long CALLBACK_DRAIN_SECONDS = 10;

  private final List<AutoCloseable> owned;
  private final Duration closeTimeout;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicBoolean halted = new AtomicBoolean();
  private final Log log;

  private LoamNode(
      NodeRuntime runtime, List<AutoCloseable> owned, Duration closeTimeout, Executor callbacks) {
    this.runtime = runtime;
    this.owned = owned;
    this.closeTimeout = closeTimeout;
    this.log = HostLog.wrap(runtime.log(), callbacks);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The log API of this node. Its futures complete on a callback thread of the node's own (when the
   * node created its threads; with a scheduler given to the builder, on the thread that completes
   * them), never on the threads that write, read and commit. A {@code join()} or {@code get()} of a
   * future not done yet, called on a Loam thread (inside such a callback), fails at once with
   * {@link BlockingOnLoamThreadException} instead of deadlocking the node.
   */
  public Log log() {
    return log;
  }

  /** The cluster this node belongs to (its metastore's cluster id, named by the store's marker). */
  public String clusterId() {
    return runtime.clusterId();
  }

  public String nodeId() {
    return runtime.nodeId();
  }

  /** This process's registration epoch; commands of older epochs are refused. */
  public long epoch() {
    return runtime.epoch();
  }

  /**
   * This node's part in the quorum class (its journal server and placement agent), when it was
   * started with a {@link Builder#journalAddress journal port}.
   */
  public java.util.Optional<dev.loam.spi.quorum.QuorumHost> quorumHost() {
    return runtime.quorumHost();
  }

  /** A snapshot of the write-path counters (PUTs, commits, flushes). */
  public WriterStats writerStats() {
    return runtime.stats().snapshot();
  }

  /**
   * A snapshot of the read-path counters per tier (tail cache, disk cache, object-store GETs,
   * coalesced loads).
   */
  public ReadStats readStats() {
    return runtime.readStats().snapshot();
  }

  /**
   * Whether this node can serve now, and if not why: closing, no metastore majority reachable, or
   * its object store unreachable ({@link NodeHealth}). A momentary view that sends nothing, so a
   * readiness probe may call it as often as it likes; every listener of the node answers its
   * readiness from it.
   */
  public NodeHealth health() {
    return runtime.health(stopping.get());
  }

  /**
   * Leaves the cluster gracefully before a planned shutdown (ownership-and-routing.txt
   * "Transfers"): takes this node out of placement, transfers every stream it owns to another live
   * node and waits (up to the drain timeout of {@link OwnershipSettings}) until the targets opened
   * them, then deregisters. Returns how many transfers it started. Follow with {@link #close()}. A
   * node that crashes instead is declared dead by the others after the liveness timeout.
   *
   * <p>Waits at most the close timeout ({@link Builder#closeTimeout}), and fails once the metastore
   * has had no reachable majority for {@value #UNREACHABLE_GRACE_MILLIS} ms: no transfer or
   * deregistration could commit then. The others then declare this node dead after the liveness
   * timeout and revive its streams, as after a crash.
   *
   * @throws LoamException UNAVAILABLE when the node could not leave within that bound
   */
  public int leaveCluster() {
    CompletableFuture<Integer> left = runtime.leave();
    String stoppedWaiting = awaitWhileMetastoreReachable(left);
    if (stoppedWaiting != null) {
      throw new LoamException(
          Kind.UNAVAILABLE, "could not leave the cluster: " + stoppedWaiting + " node=" + nodeId());
    }
    try {
      return left.join();
    } catch (CompletionException e) {
      throw new LoamException(
          Kind.UNAVAILABLE, "could not leave the cluster node=" + nodeId(), e.getCause());
    }
  }

  /** The longest a wait of {@link #close()} or {@link #leaveCluster()} goes between two checks. */
  static final long CLOSE_CHECK_MILLIS = 100;

  /**
   * How long the metastore must stay unable to commit before such a wait gives up: longer than a
   * leader election (about one election timeout, 300-600 ms by default), so an election during a
   * close does not cost the appends it would have committed.
   */
  static final long UNREACHABLE_GRACE_MILLIS = 1000;

  /**
   * Waits for {@code f} up to the close timeout, checking every {@link #CLOSE_CHECK_MILLIS} ms that
   * the metastore can still commit; returns null once {@code f} is done, else why it stopped
   * waiting (the timeout, or no reachable majority for {@link #UNREACHABLE_GRACE_MILLIS} ms).
   */
  private String awaitWhileMetastoreReachable(CompletableFuture<?> f) {
    long waited = 0;
    long unreachableFor = 0;
    while (true) {
      long slice = Math.min(CLOSE_CHECK_MILLIS, closeTimeout.toMillis() - waited);
      if (slice <= 0) {
        return f.isDone() ? null : "not done within closeTimeout=" + closeTimeout;
      }
      try {
        f.get(slice, TimeUnit.MILLISECONDS);
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      } catch (java.util.concurrent.ExecutionException e) {
        return null;
      } catch (java.util.concurrent.TimeoutException e) {
        waited += slice;
      }
      java.util.Optional<String> unreachable = runtime.metastoreUnavailable();
      unreachableFor = unreachable.isPresent() ? unreachableFor + slice : 0;
      if (unreachableFor >= UNREACHABLE_GRACE_MILLIS) {
        return "the metastore cannot commit: " + unreachable.get();
      }
    }
  }

  /**
   * As {@link #leaveCluster()} without blocking the caller: completes with how many transfers were
   * started, once deregistered. For hosts (and the deterministic simulation) whose only thread must
   * not wait.
   */
  public java.util.concurrent.CompletableFuture<Integer> leaveClusterAsync() {
    return runtime.leave();
  }

  /** Runs one ownership step now (renew, declare silent nodes dead, claim streams); for tests. */
  public java.util.concurrent.CompletableFuture<Void> runOwnershipStep() {
    return runtime.runOwnershipStep();
  }

  /**
   * Flushes buffered appends and waits for their verdicts, stops, and closes what the builder
   * created (docs/operations/running-a-cluster.md "Stopping"). Appends acknowledged before are
   * durable regardless.
   *
   * <p>Bounded: it waits at most the close timeout ({@link Builder#closeTimeout}, 30 s by default)
   * for the verdicts, and stops waiting once the metastore has had no reachable majority for
   * {@value #UNREACHABLE_GRACE_MILLIS} ms (nothing more could commit). Every append still pending
   * then is answered: UNAVAILABLE when its commit was never handed to the metastore (nothing was
   * appended), {@link CommitUnknownException} when a commit attempt got no answer (it may still
   * land). Then the node's timers stop and what the builder created (scheduler, pools, store,
   * embedded metastore) is closed; a metastore or store the host gave is the host's to close.
   */
  @Override
  public void close() {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    // The verdicts reach the appenders through their own futures; what is left when the wait ends
    // is answered by stop().
    awaitWhileMetastoreReachable(runtime.drain());
    halt();
  }

  /**
   * As {@link #close()} without blocking the caller: completes once buffered appends have their
   * verdicts and the node is stopped (there is no timeout: a caller that needs one adds it).
   */
  public java.util.concurrent.CompletableFuture<Void> closeAsync() {
    if (!stopping.compareAndSet(false, true)) {
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
    return runtime
        .drain()
        .handle(
            (v, t) -> {
              halt();
              return null;
            });
  }

  /**
   * Stops at once without flushing, as a process crash would: buffered appends fail with
   * UNAVAILABLE (they were never acknowledged). For tests of durability.
   *
   * <p>A crash during a {@link #close()} or {@link #closeAsync()} still stops at once: a process
   * dies whatever it was doing, so the close stops waiting for its verdicts and every append still
   * pending is answered as {@link #close()} describes.
   */
  public void crash() {
    stopping.set(true);
    halt();
  }

  /** Stops the node's work and closes what the builder created, once. */
  private void halt() {
    if (!halted.compareAndSet(false, true)) {
      return;
    }
    runtime.stop();
    closeOwned();
  }

  private void closeOwned() {
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        owned.get(i).close();
      } catch (Exception e) {
        // Keep closing the rest.
      }
    }
  }

  /**
   * Configures and starts a node. Components (store, metastore, clock, randomness, scheduler) are
   * optional: whatever is not given is created for the embedded default and closed with the node.
   */
  public static final class Builder {
    private String nodeId;
    private Path dataDir;
    private ObjectStore store;
    private String storeUri;
    private Map<String, String> storeProperties = Map.of();
    private ObjectStore expressStore;
    private Metastore metastore;
    private InstantSource clock;
    private RandomGenerator random;
    private ScheduledExecutorService scheduler;
    private Executor ioExecutor;
    private NodeSettings settings = NodeSettings.defaults();
    private MetaSettings metaSettings = MetaSettings.defaults();
    private OwnershipSettings ownershipSettings = OwnershipSettings.defaults();
    private CompactionSettings compactionSettings = CompactionSettings.defaults();
    private Duration startTimeout = Duration.ofSeconds(30);
    private Duration closeTimeout = Duration.ofSeconds(30);
    private dev.loam.kms.KeyManagementService kms;
    private Duration kmsTimeout = NodeRuntime.DEFAULT_KMS_TIMEOUT;
    private java.security.SecureRandom keyRandom;
    private String journalAddress;
    private Path journalDir;
    private long journalMaxUnsealedBytes;
    private long journalSnapshotEntries;
    private Duration journalQuietSeal;
    private dev.loam.tls.TlsSettings journalPeerTls;
    private dev.loam.spi.quorum.QuorumHostFactory quorumHostFactory;

    private Builder() {}

    /**
     * The {@code host:port} of this node's journal server, or null (the default) for none. A node
     * with a journal port replicates the quorum class's journals the metastore places on it
     * (docs/design/quorum.md "Hosting journals on a node"); it needs the {@code loam-journal}
     * module on the class path. The server binds that host only and the address is advertised as
     * the node's {@code journal} endpoint, so other nodes must be able to reach it there.
     */
    public Builder journalAddress(String hostPort) {
      this.journalAddress = hostPort;
      return this;
    }

    /** The journal server's directory; default {@code <dataDir>/journal}. */
    public Builder journalDir(Path dir) {
      this.journalDir = dir;
      return this;
    }

    /**
     * Per journal, the bound on the batch bytes not sealed into segments yet (default 256 MiB, at
     * least 1 MiB); appends beyond it answer UNAVAILABLE until sealing frees room. Every node of
     * the cluster must give the same value: the journals' state machines depend on it. The sealer
     * seals a partition once its tail holds a sixteenth of it, into segments of at most a quarter
     * of it (docs/design/quorum.md "Sealing").
     */
    public Builder journalMaxUnsealedBytes(long bytes) {
      this.journalMaxUnsealedBytes = bytes;
      return this;
    }

    /**
     * A journal snapshot (the segment pointers and the unsealed tail) every this many applied
     * entries (default 10 000), after which the journal's Raft log behind it is purged.
     */
    public Builder journalSnapshotEntries(long entries) {
      this.journalSnapshotEntries = entries;
      return this;
    }

    /**
     * How long a quorum partition's non-empty journal tail may go without a seal before it is
     * sealed whatever its size (default 10 minutes, {@link
     * dev.loam.spi.quorum.QuorumHostContext#DEFAULT_QUIET_SEAL}; 1 s to 1 day). Retention trims
     * sealed segments only, so this bounds how long a slowly written partition's records stay in
     * the journal past their retention; shorter costs more small segment objects and offset-index
     * entries. Measured by each journal's leader on its own clock (docs/design/quorum.md
     * "Sealing").
     *
     * @throws LoamException INVALID (from {@link #start}) naming {@code journalQuietSealInterval}
     *     when out of range, or without a {@link #journalAddress journal port}
     */
    public Builder journalQuietSealInterval(Duration interval) {
      this.journalQuietSeal = Objects.requireNonNull(interval, "journalQuietSealInterval");
      return this;
    }

    /**
     * Mutual TLS on the journal port (default: none, plain Raft): every replica of a journal and
     * every journal client presents a certificate of the CA {@code tls} names as its client CA, and
     * the port refuses any other connection. The files are re-read when they change, as on the
     * metastore's Raft port ({@code loam node} gives both ports the same {@code --peer-tls-*}
     * files). Every journal node of the cluster needs it, or none: a plain replica and a TLS
     * replica cannot talk.
     *
     * @throws LoamException INVALID (from {@link #start}) if {@code tls} does not require client
     *     certificates
     */
    public Builder journalPeerTls(dev.loam.tls.TlsSettings tls) {
      this.journalPeerTls = Objects.requireNonNull(tls, "journalPeerTls");
      return this;
    }

    /**
     * What starts this node's quorum host when it has a {@link #journalAddress journal port}; by
     * default (null) the {@code loam-journal} implementation found with {@link
     * java.util.ServiceLoader}. A harness gives its own: the deterministic simulation starts each
     * node's journals on its simulated Raft (docs/design/simulation.md "Quorum streams").
     */
    public Builder quorumHostFactory(dev.loam.spi.quorum.QuorumHostFactory factory) {
      this.quorumHostFactory = factory;
      return this;
    }

    /**
     * The source of the node's key-encryption keys, data keys and nonces (default: the platform's
     * strong source). For deterministic simulations only: a seeded source makes every key and nonce
     * predictable from the seed.
     */
    public Builder keyRandom(java.security.SecureRandom r) {
      this.keyRandom = Objects.requireNonNull(r, "keyRandom");
      return this;
    }

    /**
     * The key-management service holding the namespaces' master keys, for envelope encryption
     * (docs/security.md, "Data at rest"; implementations in docs/reference/kms.md). Without one
     * (the default) the node writes and reads plain namespaces only and refuses {@link
     * Log#addNamespaceKey}. The host owns it: the node does not close it.
     */
    public Builder keyManagement(dev.loam.kms.KeyManagementService kms) {
      this.kms = Objects.requireNonNull(kms, "kms");
      return this;
    }

    /**
     * The longest one namespace's KMS call may take (default 5 s): past it, that namespace's
     * appends fail with UNAVAILABLE naming it, and no other namespace waits.
     */
    public Builder kmsTimeout(Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new LoamException(Kind.INVALID, "kms timeout must be positive kmsTimeout=" + d);
      }
      this.kmsTimeout = d;
      return this;
    }

    /**
     * The longest {@link LoamNode#close()} waits for buffered appends' verdicts, and {@link
     * LoamNode#leaveCluster()} for its transfers and deregistration (default 30 s; 0 stops at
     * once). Either stops waiting sooner when the metastore has no reachable majority.
     */
    public Builder closeTimeout(Duration d) {
      Objects.requireNonNull(d, "closeTimeout");
      if (d.isNegative()) {
        throw new LoamException(Kind.INVALID, "closeTimeout must be >= 0 closeTimeout=" + d);
      }
      this.closeTimeout = d;
      return this;
    }

    /** The node's stable id: 1..64 of {@code [A-Za-z0-9_.-]}. Required. */
    public Builder nodeId(String id) {
      this.nodeId = id;
      return this;
    }

    /** The embedded default's directory for objects and the metastore. */
    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    /**
     * Opens the object store named by a URI ({@code mem://}, {@code file:///path}, or a scheme of a
     * storage module on the class path, see {@link dev.loam.store.ObjectStores}) instead of {@code
     * <dataDir>/objects}; closed with the node.
     */
    public Builder storeUri(String uri) {
      this.storeUri = uri;
      return this;
    }

    /**
     * Properties handed to the provider that opens {@link #storeUri(String)}, as {@link
     * StoreContext#properties()}: credentials and other settings that should not be written into a
     * URI that may be logged (for example {@code s3.access-key-id} and {@code
     * s3.secret-access-key}; each storage module's page lists the names it reads, and a property
     * wins over the URI parameter of the same setting). Copied; never logged, and {@link
     * StoreContext#toString()} masks every value. Ignored when the store is given with {@link
     * #objectStore(ObjectStore)}.
     */
    public Builder storeProperties(Map<String, String> properties) {
      Map<String, String> copy = new TreeMap<>();
      properties.forEach(
          (k, v) -> {
            if (k == null || k.isBlank() || v == null) {
              throw new LoamException(
                  Kind.INVALID,
                  "a store property needs a name and a value property="
                      + (k == null ? "null" : k.strip()));
            }
            copy.put(k, v);
          });
      this.storeProperties = Map.copyOf(copy);
      return this;
    }

    /**
     * The store for express-class WAL objects, normally an {@link
     * dev.loam.store.express.ExpressObjectStore} over three zonal stores. Without one, the node
     * refuses express streams (INVALID). Not closed by the node.
     */
    public Builder expressStore(ObjectStore s) {
      this.expressStore = s;
      return this;
    }

    /** The object store to use instead of {@code <dataDir>/objects}. Not closed by the node. */
    public Builder objectStore(ObjectStore s) {
      this.store = s;
      return this;
    }

    /** The metastore to use instead of {@code <dataDir>/meta}. Not closed by the node. */
    public Builder metastore(Metastore m) {
      this.metastore = m;
      return this;
    }

    public Builder clock(InstantSource c) {
      this.clock = c;
      return this;
    }

    public Builder random(RandomGenerator r) {
      this.random = r;
      return this;
    }

    /** The executor for timers and write/read steps. Not shut down by the node. */
    public Builder scheduler(ScheduledExecutorService s) {
      this.scheduler = s;
      return this;
    }

    /**
     * The executor for the node's blocking file I/O (the disk cache). By default the I/O pool the
     * builder creates for the object store, else a small pool of its own. Never the scheduler. Not
     * shut down by the node.
     */
    public Builder ioExecutor(Executor e) {
      this.ioExecutor = e;
      return this;
    }

    public Builder settings(NodeSettings s) {
      this.settings = Objects.requireNonNull(s);
      return this;
    }

    /** Liveness timeout and ownership step interval (ownership-and-routing.txt). */
    public Builder ownership(OwnershipSettings s) {
      this.ownershipSettings = Objects.requireNonNull(s);
      return this;
    }

    /** Tombstone retention and memory bound of the compaction of compacted streams. */
    public Builder compaction(CompactionSettings s) {
      this.compactionSettings = Objects.requireNonNull(s);
      return this;
    }

    /** Sequencer windows for an embedded metastore the builder creates. */
    public Builder metaSettings(MetaSettings s) {
      this.metaSettings = Objects.requireNonNull(s);
      return this;
    }

    /**
     * Starts the node: opens what is missing, registers with a fresh epoch and establishes the
     * node's cluster identity (the metastore's cluster id, which the store root's marker must name:
     * a store root belongs to exactly one cluster). Throws a {@link LoamException}: INVALID for bad
     * settings, UNAVAILABLE if the metastore cannot be opened (for example because another process
     * holds the data directory), CONFLICT if the store belongs to another cluster, CORRUPTION if
     * the metastore references objects the store does not hold.
     */
    public LoamNode start() {
      return open(
          (runtime, owned, callbacks) ->
              new LoamNode(runtime.start(), owned, closeTimeout, callbacks));
    }

    /**
     * As {@link #start()}, but the registration and identity steps complete through the future
     * instead of blocking the caller, and the start timeout is the caller's to apply: for a host
     * that must keep running the node's scheduler meanwhile, such as a one-thread simulation. The
     * stores and metastore are opened before it returns.
     */
    public CompletableFuture<LoamNode> startAsync() {
      return open(
          (runtime, owned, callbacks) ->
              runtime
                  .startAsync()
                  .handle(
                      (rt, t) -> {
                        if (t != null) {
                          closeAll(owned);
                          throw t instanceof CompletionException ce
                              ? ce
                              : new CompletionException(t);
                        }
                        return new LoamNode(rt, owned, closeTimeout, callbacks);
                      }));
    }

    private static void closeAll(List<AutoCloseable> owned) {
      for (int i = owned.size() - 1; i >= 0; i--) {
        try {
          owned.get(i).close();
        } catch (Exception ignored) {
          // Already failing.
        }
      }
    }

    /** The last step of {@link #open}: starts the configured runtime. */
    private interface Finish<T> {
      T apply(NodeRuntime.Builder runtime, List<AutoCloseable> owned, Executor callbacks);
    }

    private <T> T open(Finish<T> finish) {
      if (nodeId == null || !NODE_ID.matcher(nodeId).matches()) {
        throw new LoamException(Kind.INVALID, "invalid node id nodeId=" + nodeId);
      }
      if (store != null && storeUri != null) {
        throw new LoamException(Kind.INVALID, "give either an object store or a store URI");
      }
      if (((store == null && storeUri == null) || metastore == null) && dataDir == null) {
        throw new LoamException(
            Kind.INVALID, "a data directory is needed unless both store and metastore are given");
      }
      if (journalPeerTls != null && journalAddress == null) {
        throw new LoamException(
            Kind.INVALID,
            "journal peer TLS without a journal address certificate="
                + journalPeerTls.certificateChain());
      }
      if (journalPeerTls != null && !journalPeerTls.requiresClientCertificate()) {
        throw new LoamException(
            Kind.INVALID,
            "journal peer TLS must require client certificates (mutual TLS) certificate="
                + journalPeerTls.certificateChain());
      }
      long quietSealMillis = 0;
      if (journalQuietSeal != null) {
        if (journalAddress == null) {
          throw new LoamException(
              Kind.INVALID,
              "journalQuietSealInterval without a journal address interval=" + journalQuietSeal);
        }
        Duration min = dev.loam.spi.quorum.QuorumHostContext.MIN_QUIET_SEAL;
        Duration max = dev.loam.spi.quorum.QuorumHostContext.MAX_QUIET_SEAL;
        if (journalQuietSeal.compareTo(min) < 0 || journalQuietSeal.compareTo(max) > 0) {
          throw new LoamException(
              Kind.INVALID,
              "journalQuietSealInterval must be within "
                  + min
                  + ".."
                  + max
                  + " journalQuietSealInterval="
                  + journalQuietSeal);
        }
        quietSealMillis = journalQuietSeal.toMillis();
      }
      NodeRuntime.JournalPort journal = null;
      if (journalAddress != null) {
        if (journalDir == null && dataDir == null) {
          throw new LoamException(
              Kind.INVALID, "a journal port needs a journal directory or a data directory");
        }
        journal =
            new NodeRuntime.JournalPort(
                journalAddress,
                journalDir != null ? journalDir : dataDir.resolve("journal"),
                journalMaxUnsealedBytes,
                journalSnapshotEntries,
                quietSealMillis,
                java.util.Optional.ofNullable(journalPeerTls),
                quorumHostFactory);
      }
      List<AutoCloseable> owned = new ArrayList<>();
      try {
        InstantSource c = clock != null ? clock : SystemDrivers.clock();
        RandomGenerator r = random != null ? random : SystemDrivers.random();
        ScheduledExecutorService s = scheduler;
        // The host's callbacks run on a thread of their own when the node owns its threads. It
        // is shut down last (owned closes in reverse), after close() answered every append; a
        // completion after that runs on the completing thread.
        Executor callbacks = Runnable::run;
        if (s == null) {
          String cbName = "loam-" + nodeId + "-callbacks";
          ExecutorService cb = SystemDrivers.callbackThread(cbName);
          owned.add(
              () -> {
                cb.shutdown();
                // Wait for the completions already queued, so that every future close() answered
                // is complete when close() returns; not from a callback itself (a host closing
                // the node in one), which would wait for its own end.
                if (!Thread.currentThread().getName().equals(cbName)) {
                  cb.awaitTermination(CALLBACK_DRAIN_SECONDS, TimeUnit.SECONDS);
                }
              });
          callbacks = cb;
        }
        if (s == null) {
          ScheduledExecutorService created = SystemDrivers.scheduler("loam-" + nodeId);
          // shutdown, not shutdownNow: steps already queued complete their callers' futures.
          owned.add(created::shutdown);
          s = created;
        }
        Executor ioExec = ioExecutor;
        ObjectStore os = store;
        if (os == null) {
          ExecutorService io = SystemDrivers.ioPool("loam-" + nodeId + "-io", 4);
          owned.add(io::shutdownNow);
          if (ioExec == null) {
            ioExec = io;
          }
          os =
              storeUri != null
                  ? ObjectStores.open(storeUri, new StoreContext(c, io, storeProperties))
                  : new FileSystemObjectStore(dataDir.resolve("objects"), io, c);
          owned.add(os);
        }
        Metastore m = metastore;
        if (m == null) {
          ExecutorService metaExec = SystemDrivers.ioPool("loam-" + nodeId + "-meta", 1);
          owned.add(metaExec::shutdownNow);
          m =
              EmbeddedMetastore.open(
                  dataDir.resolve("meta"),
                  metaSettings,
                  EmbeddedMetastore.Options.defaults(),
                  c,
                  metaExec);
          owned.add(m);
        }
        if (ioExec == null && settings.diskCacheBytes() > 0) {
          ExecutorService cacheIo = SystemDrivers.ioPool("loam-" + nodeId + "-cache", 2);
          owned.add(cacheIo::shutdownNow);
          ioExec = cacheIo;
        }
        if (ioExec == null) {
          // API key derivations (PBKDF2) need a pool of their own when nothing else made one.
          ExecutorService keysIo = SystemDrivers.ioPool("loam-" + nodeId + "-keys", 2);
          owned.add(keysIo::shutdownNow);
          ioExec = keysIo;
        }
        return finish.apply(
            NodeRuntime.builder()
                .nodeId(nodeId)
                .settings(settings)
                .store(os)
                .expressStore(expressStore)
                .meta(m)
                .clock(c)
                .random(r)
                .scheduler(s)
                .ioExecutor(ioExec)
                .startTimeout(startTimeout)
                .ownershipSettings(ownershipSettings)
                .compactionSettings(compactionSettings)
                .keyManagement(kms)
                .kmsTimeout(kmsTimeout)
                .keyRandom(keyRandom)
                .journal(journal),
            owned,
            callbacks);
      } catch (RuntimeException e) {
        closeAll(owned);
        throw e;
      }
    }
  }
}
