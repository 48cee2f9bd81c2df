package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.StoreUris;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.core.runtime.SystemDrivers;
import dev.loam.error.LoamException;
import dev.loam.examples.fault.FaultFile;
import dev.loam.examples.fault.FaultInjectingStore;
import dev.loam.http.LoamHttpServer;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code loam node}: one member of a cluster in its own process
 * (docs/operations/running-a-cluster.md). Its metastore is a {@link RatisMetastore} replica whose
 * peers are {@code --peers}; its objects live in the shared store {@code --store}; it serves the
 * native HTTP API on {@code --http-port}.
 *
 * <pre>
 * java -cp 'loam-embedded-examples/target/classes:loam-embedded-examples/target/lib/*' \
 *     dev.loam.examples.server.LoamNodeMain \
 *     --id n1 --peers n1=127.0.0.1:9001,n2=127.0.0.1:9002,n3=127.0.0.1:9003 \
 *     --data-dir /var/lib/loam/n1 --store file:///shared/loam --http-port 8081 \
 *     [--zone Z] [--host 127.0.0.1] [--slots 1] [--advertised-address http://host:port] \
 *     [--voters N] [--flush-ms MS] [--start-timeout-s 300] [--liveness-timeout-ms 10000]
 *     [--fault-file PATH]
 * </pre>
 *
 * <p>Start-up order does not matter: the replica starts, then the node waits (up to {@code
 * --start-timeout-s}) for a metastore leader, which needs a majority of the voters running. Only
 * then does it register (a fresh epoch) and serve. It prints {@code loam: node ID ready http=URL
 * ...} once serving, and {@code loam: node ID metastore role=leader|follower|listener} whenever its
 * replica's role changes. SIGTERM (or Ctrl-C) stops it cleanly, see {@link Member#stop}; a kill -9
 * loses only unacknowledged appends.
 *
 * <p>Which peers vote: every peer of {@code --peers}, up to 3; of 4 peers the first 3; of 5 or more
 * the first 5. The rest are Ratis listeners (full replicas that never count towards a majority).
 * {@code --voters N} overrides the count. Every node must be given the same peer list in the same
 * order. The first start records the identity in {@code <data-dir>/loam-node.properties}; a later
 * start with another id or other peers is refused, since a Raft group keeps its members in its log
 * (changing them needs a configuration change, which this command does not do).
 */
public final class LoamNodeMain {
  /** Bound on any wait for the first metastore leader; a human may start the peers slowly. */
  static final Duration MAX_START_TIMEOUT = Duration.ofHours(1);

  private static final String IDENTITY_FILE = "loam-node.properties";

  /** How often {@code --fault-file} is re-read. */
  static final Duration FAULT_FILE_POLL = Duration.ofMillis(100);

  private LoamNodeMain() {}

  /** The parsed command line; plain validated values. */
  record Options(
      String id,
      String zone,
      Map<String, String> voters,
      Map<String, String> listeners,
      Path dataDir,
      String store,
      String host,
      int httpPort,
      int slots,
      String advertisedAddress,
      Duration flushInterval,
      Duration startTimeout,
      Duration livenessTimeout,
      Path faultFile) {

    /** Where this node's Ratis replica keeps its log and snapshots. */
    Path metaDir() {
      return dataDir.resolve("meta");
    }

    RatisSettings ratisSettings() {
      return RatisSettings.builder(id, voters, metaDir()).listeners(listeners).build();
    }

    NodeSettings nodeSettings() {
      NodeSettings s = NodeSettings.defaults();
      if (flushInterval != null) {
        s = s.withFlushInterval(flushInterval);
      }
      return s.withIdentity(advertisedAddress, zone, slots);
    }

    String role() {
      return voters.containsKey(id) ? "voter" : "listener";
    }
  }

  public static void main(String[] args) throws InterruptedException {
    Options o;
    try {
      if (CMD.parse(args).help()) {
        usage(System.out);
        return;
      }
      o = parse(args);
    } catch (UsageException e) {
      CMD.printUsageError(e, System.err);
      System.exit(2);
      return;
    }
    // Ratis and gRPC log every refused connection to a peer that is down: keep the output
    // readable unless the user asked otherwise (-Dorg.slf4j.simpleLogger...).
    System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.ratis", "warn");
    System.getProperties()
        .putIfAbsent("org.slf4j.simpleLogger.log.org.apache.ratis.client.impl.OrderedAsync", "off");
    Member m;
    try {
      m = Member.start(o, System.out);
    } catch (Throwable e) {
      // Whatever failed, the member closed what it had started (its replica, its pools): exit so
      // that nothing keeps serving half a node, with one line saying which flag to change.
      System.err.println(
          "loam node: " + o.id() + " could not start: " + StartFailure.describe(e, null));
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  m.stop();
                  stopped.countDown();
                },
                "loam-shutdown"));
    stopped.await();
  }

  /**
   * A running member: its metastore replica, its node and its HTTP server, and the small pools they
   * run on. Built by {@link #start}, torn down by {@link #stop}.
   */
  static final class Member {
    private final Options options;
    private final PrintStream out;
    private final ExecutorService metaExecutor;
    private final ScheduledExecutorService roleWatch;
    private volatile RatisMetastore meta;
    private volatile LoamNode node;
    private volatile LoamHttpServer server;
    private volatile ObjectStore faultyStore;
    private volatile FaultFile faultFile;
    private volatile ExecutorService storeIo;

    private Member(Options options, PrintStream out) {
      this.options = options;
      this.out = out;
      this.metaExecutor = Executors.newFixedThreadPool(4, daemon("loam-meta-" + options.id()));
      this.roleWatch =
          Executors.newSingleThreadScheduledExecutor(daemon("loam-role-" + options.id()));
    }

    /**
     * Starts the replica, waits for a metastore leader, starts the node (a fresh epoch) and the
     * HTTP server, then prints the ready line. Throws (after closing what it started) if any step
     * fails or no leader appears within the start timeout.
     */
    static Member start(Options o, PrintStream out) {
      Member m = new Member(o, out);
      try {
        StartFailure.step(
            "--data-dir " + o.dataDir(),
            null,
            () -> {
              checkIdentity(o);
              return null;
            });
        InstantSource clock = InstantSource.system();
        String peerAddress =
            o.voters().containsKey(o.id()) ? o.voters().get(o.id()) : o.listeners().get(o.id());
        m.meta =
            StartFailure.step(
                "--peers " + o.id() + "=" + peerAddress + " (this node's metastore replica)",
                peerAddress,
                () ->
                    RatisMetastore.start(
                        o.ratisSettings(), MetaSettings.defaults(), clock, m.metaExecutor));
        m.watchRole();
        long waitStart = System.nanoTime();
        m.awaitMetastore();
        long leaderWaitMillis = (System.nanoTime() - waitStart) / 1_000_000;
        LoamNode.Builder nb = LoamNode.builder().nodeId(o.id());
        if (o.faultFile() != null) {
          StartFailure.step(
              "--fault-file " + o.faultFile(),
              null,
              () -> {
                m.openFaultyStore(clock);
                return null;
              });
          nb.objectStore(m.faultyStore).ioExecutor(m.storeIo);
        } else {
          nb.storeUri(o.store());
        }
        nb.metastore(m.meta)
            .settings(o.nodeSettings())
            .ownership(OwnershipSettings.defaults().withLivenessTimeout(o.livenessTimeout()))
            .clock(clock);
        m.node =
            StartFailure.step(
                "--store " + o.store(),
                null,
                () -> startNodeRetrying(nb, o.id(), waitStart, o.startTimeout(), out));
        String bind = o.host() + ":" + o.httpPort();
        m.server =
            StartFailure.step(
                "--http-port " + o.httpPort(),
                bind,
                () ->
                    LoamHttpServer.builder()
                        .node(m.node)
                        .host(o.host())
                        .port(o.httpPort())
                        .start());
        out.println(
            "loam: node "
                + o.id()
                + " ready http="
                + o.advertisedAddress()
                + " bind="
                + o.host()
                + ":"
                + m.server.port()
                + " zone="
                + (o.zone().isEmpty() ? "-" : o.zone())
                + " epoch="
                + m.node.epoch()
                + " metastore="
                + o.role()
                + " voters="
                + o.voters().keySet()
                + " store="
                + o.store()
                + " data="
                + o.dataDir().toAbsolutePath()
                + " leader_wait_ms="
                + leaderWaitMillis
                + " jvm_uptime_ms="
                + ManagementFactory.getRuntimeMXBean().getUptime());
        out.flush();
        return m;
      } catch (Throwable e) {
        // Also what a library throws undeclared (a BindException from Netty): close the replica,
        // the node and the pools, so that no port stays bound and no thread keeps the JVM up.
        m.close();
        throw e;
      }
    }

    /**
     * Stops cleanly, in this order: stop accepting HTTP requests and let in-flight produce requests
     * finish; flush the node (every buffered append gets its verdict); close the metastore replica
     * (a leader is replaced by the others after an election timeout). Run by the SIGTERM hook.
     */
    void stop() {
      out.println("loam: node " + options.id() + " stopping");
      out.flush();
      // Drain (ownership-and-routing.txt "Transfers"): hand the streams this node owns to the
      // others while the server and the node still run, then leave the registry.
      if (node != null) {
        try {
          int moved = node.leaveCluster();
          out.println("loam: node " + options.id() + " transferred " + moved + " streams");
        } catch (RuntimeException e) {
          out.println("loam: node " + options.id() + " could not drain: " + e.getMessage());
        }
      }
      close();
      out.println("loam: node " + options.id() + " stopped");
      out.flush();
    }

    /** Closes what was started, each part even if another failed to close. */
    private void close() {
      roleWatch.shutdownNow();
      quietly(server);
      quietly(node);
      quietly(faultFile);
      quietly(faultyStore);
      if (storeIo != null) {
        storeIo.shutdownNow();
      }
      quietly(meta);
      metaExecutor.shutdownNow();
    }

    private void quietly(AutoCloseable c) {
      if (c == null) {
        return;
      }
      try {
        c.close();
      } catch (Exception e) {
        out.println("loam: node " + options.id() + " could not close " + c + ": " + e);
      }
    }

    /**
     * Opens the shared store wrapped in a {@link FaultInjectingStore} driven by {@code
     * --fault-file} (chaos tests). Each injected fault prints {@code loam: node ID fault kind=K
     * op=OP key=KEY}, so a test can count them from the output even after a kill -9.
     */
    private void openFaultyStore(InstantSource clock) {
      storeIo = SystemDrivers.ioPool("loam-" + options.id() + "-io", 4);
      ObjectStore real =
          ObjectStores.open(options.store(), new StoreContext(clock, storeIo, Map.of()));
      String prefix = "loam: node " + options.id() + " ";
      FaultInjectingStore faulty =
          new FaultInjectingStore(
              real,
              SystemDrivers.random(),
              (kind, op, key) -> {
                out.println(prefix + "fault kind=" + kind.key() + " op=" + op + " key=" + key);
                out.flush();
              });
      faultyStore = faulty;
      out.println(prefix + "fault injection armed file=" + options.faultFile().toAbsolutePath());
      faultFile =
          FaultFile.watch(
              options.faultFile(),
              faulty,
              notice -> {
                out.println(prefix + notice);
                out.flush();
              },
              roleWatch,
              FAULT_FILE_POLL);
    }

    /** Prints a line whenever this replica's Raft role changes (operators and tests watch it). */
    private void watchRole() {
      String other = options.voters().containsKey(options.id()) ? "follower" : "listener";
      String[] last = {null};
      roleWatch.scheduleWithFixedDelay(
          () -> {
            RatisMetastore m = meta;
            if (m == null) {
              return;
            }
            String role = m.isLeader() ? "leader" : other;
            if (!role.equals(last[0])) {
              last[0] = role;
              out.println("loam: node " + options.id() + " metastore role=" + role);
              out.flush();
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
    }

    /**
     * Returns once a leader answered a linearizable read (and this replica applied up to it), so
     * the node's registration reads the newest epoch of its id. Without a majority of the voters
     * running each attempt fails after the Ratis retry budget; attempts go on until the start
     * timeout.
     */
    private void awaitMetastore() {
      long deadline = System.nanoTime() + options.startTimeout().toNanos();
      long nextNotice = System.nanoTime();
      RuntimeException lastFailure = null;
      while (System.nanoTime() - deadline < 0) {
        long wait = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        try {
          meta.readLinearizable(r -> r.appliedIndex()).get(wait, TimeUnit.MILLISECONDS);
          return;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LoamException(
              LoamException.Kind.UNAVAILABLE, "interrupted waiting for the metastore", e);
        } catch (Exception e) {
          lastFailure = new LoamException(LoamException.Kind.UNAVAILABLE, e.toString(), e);
        }
        if (System.nanoTime() - nextNotice >= 0) {
          out.println(
              "loam: node "
                  + options.id()
                  + " waiting for a metastore leader (needs a majority of the voters "
                  + options.voters()
                  + ")");
          out.flush();
          nextNotice = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        }
      }
      throw new LoamException(
          LoamException.Kind.UNAVAILABLE,
          "no metastore leader within the start timeout startTimeout="
              + options.startTimeout()
              + " voters="
              + options.voters(),
          lastFailure);
    }
  }

  /**
   * Starts a node, retrying its registration while the metastore answers "unavailable" or "outcome
   * unknown" (a leader change or a slow majority right after a restart), every 500 ms until {@code
   * timeout} after {@code startedNanos}. A registration retried after an unknown outcome takes a
   * fresh, higher epoch, so it cannot collide with the one that may have landed. Other failures (a
   * fenced or invalid registration) are thrown at once.
   */
  static LoamNode startNodeRetrying(
      LoamNode.Builder nb, String id, long startedNanos, Duration timeout, PrintStream out) {
    long deadline = startedNanos + timeout.toNanos();
    while (true) {
      try {
        return nb.start();
      } catch (LoamException e) {
        boolean transientFailure =
            e.kind() == LoamException.Kind.UNAVAILABLE
                || e.kind() == LoamException.Kind.OUTCOME_UNKNOWN;
        if (!transientFailure || System.nanoTime() - deadline >= 0) {
          throw e;
        }
        out.println(
            "loam: node "
                + id
                + " registration not confirmed ("
                + e.getMessage()
                + (e.getCause() == null ? "" : ": " + e.getCause())
                + "), retrying");
        out.flush();
        try {
          Thread.sleep(500);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** The flags of {@code loam node}, in the order of its help. */
  public static final Command CMD =
      new Command(
          "loam node",
          "Runs one cluster member: a Ratis metastore replica (its peer address is its entry in\n"
              + "--peers, its log in DIR/meta), a node on the shared object store and the HTTP API.\n"
              + "Every node gets the same --peers in the same order."
              + " See docs/operations/running-a-cluster.md.");

  static final Flag<String> ID =
      CMD.required(
          "--id|--node-id", "ID", LoamNodeMain::nodeId, "the node's stable id, one of --peers");
  static final Flag<Map<String, String>> PEERS =
      CMD.required(
          "--peers",
          "id=host:port,...",
          LoamNodeMain::parsePeers,
          "every member's metastore peer address, in the same order on every node");
  static final Flag<Path> DATA_DIR =
      CMD.required(
          "--data-dir", "DIR", Values.path(), "this node's own directory (Raft log, identity)");
  static final Flag<String> STORE =
      CMD.required(
          "--store",
          "URI",
          StoreUris.parser(true),
          "the object store every node shares: file:///dir, s3://, azblob://, gs://");
  static final Flag<Integer> HTTP_PORT =
      CMD.required("--http-port|--port", "PORT", Values.port(false), "the HTTP API port");
  static final Flag<String> HOST =
      CMD.flag(
          "--host",
          "H",
          Values.nonBlank(),
          "127.0.0.1",
          "the HTTP bind address; 0.0.0.0 binds every interface");
  static final Flag<String> ADVERTISED =
      CMD.optional(
          "--advertised-address",
          "URL",
          LoamNodeMain::advertisedUrl,
          "http://H:PORT",
          "the address other nodes and clients use to reach this node");
  static final Flag<String> ZONE =
      CMD.optional("--zone", "Z", Values.text(), "none", "the node's availability zone");
  static final Flag<Integer> SLOTS =
      CMD.flag(
          "--slots", "N", Values.integer(1, 1_000_000), 1, "capacity weight for stream placement");
  static final Flag<Integer> VOTERS =
      CMD.optional(
          "--voters",
          "N",
          Values.integer(1, RatisSettings.MAX_VOTERS),
          "all peers up to 3, 3 of 4, 5 of 5 or more",
          "how many of the first --peers vote in the metastore; the rest are listeners");
  static final Flag<Duration> FLUSH =
      CMD.optional(
          "--flush-ms",
          "MS",
          Values.millis(1, 60_000),
          "250 standard, 5 express",
          "the WAL flush interval of standard and express streams");
  static final Flag<Integer> START_TIMEOUT_S =
      CMD.flag(
          "--start-timeout-s",
          "S",
          Values.integer(1, (int) MAX_START_TIMEOUT.toSeconds()),
          300,
          "how long to wait for a metastore leader and a confirmed registration");
  static final Flag<Integer> LIVENESS_TIMEOUT_MS =
      CMD.flag(
          "--liveness-timeout-ms",
          "MS",
          Values.integer(1000, 3_600_000),
          (int) OwnershipSettings.defaults().livenessTimeout().toMillis(),
          "how long a node may go without renewing before the others declare it dead");
  static final Flag<Path> FAULT_FILE =
      CMD.optional(
          "--fault-file",
          "PATH",
          FaultFile::checkPath,
          "none (no faults)",
          "chaos tests only: store fault rates read from PATH, re-read every 100 ms");

  /**
   * Parses and validates the command line without touching the data directory, the store or the
   * network; a {@link UsageException} names the flag at fault. {@code --help} is the caller's to
   * check first ({@link Command#parse} skips every check then).
   */
  static Options parse(String[] args) {
    ParsedArgs a = CMD.parse(args);
    if (a.help()) {
      throw new UsageException(null, "--help is not a node to run");
    }
    String id = a.get(ID);
    Map<String, String> all = a.get(PEERS);
    if (!all.containsKey(id)) {
      throw new UsageException(ID.name(), id + " is not one of the --peers " + all.keySet());
    }
    int voters = a.given(VOTERS) ? a.get(VOTERS) : defaultVoters(all.size());
    if (voters > all.size()) {
      throw new UsageException(
          VOTERS.name(), voters + " exceeds the " + all.size() + " peers of --peers");
    }
    Map<String, String> voterMap = new LinkedHashMap<>();
    Map<String, String> listenerMap = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      (voterMap.size() < voters ? voterMap : listenerMap).put(e.getKey(), e.getValue());
    }
    String host = a.get(HOST);
    int httpPort = a.get(HTTP_PORT);
    String advertised = a.get(ADVERTISED);
    if (advertised == null) {
      try {
        advertised = "http://" + advertisableHost(host) + ":" + httpPort;
      } catch (IllegalArgumentException e) {
        throw new UsageException(HOST.name(), e.getMessage(), e);
      }
    }
    return new Options(
        id,
        a.given(ZONE) ? a.get(ZONE) : "",
        voterMap,
        listenerMap,
        a.get(DATA_DIR),
        a.get(STORE),
        host,
        httpPort,
        a.get(SLOTS),
        advertised,
        a.get(FLUSH),
        Duration.ofSeconds(a.get(START_TIMEOUT_S)),
        Duration.ofMillis(a.get(LIVENESS_TIMEOUT_MS)),
        a.get(FAULT_FILE));
  }

  /**
   * Parses and validates a {@code loam node} command line as {@link #main} would, without starting
   * anything; a {@link UsageException} names the flag at fault.
   */
  public static void validate(String[] args) {
    if (!CMD.parse(args).help()) {
      parse(args);
    }
  }

  private static String nodeId(String v) {
    if (!v.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException("not an id of [A-Za-z0-9._-]+: " + v);
    }
    return v;
  }

  /**
   * How many of {@code peers} vote: all up to 3, then 3 of 4 (a fourth voter adds no failure
   * tolerance but one more vote to wait for), then 5 (tolerates two failures; more voters only slow
   * each commit down).
   */
  static int defaultVoters(int peers) {
    if (peers <= 3) {
      return peers;
    }
    return peers == 4 ? 3 : 5;
  }

  /** {@code id1=host:port,id2=host:port,...} in order; each id once. */
  static Map<String, String> parsePeers(String peers) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String p : peers.split(",")) {
      String s = p.strip();
      if (s.isEmpty()) {
        continue;
      }
      int eq = s.indexOf('=');
      require(eq > 0 && eq < s.length() - 1, "a peer must be id=host:port, got " + s);
      String pid = nodeId(s.substring(0, eq));
      String addr = s.substring(eq + 1);
      int colon = addr.lastIndexOf(':');
      require(colon > 0 && colon < addr.length() - 1, "a peer must be id=host:port, got " + s);
      String port = addr.substring(colon + 1);
      try {
        Values.port(false).parse(port);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("the port of peer " + pid + ": " + e.getMessage(), e);
      }
      require(out.put(pid, addr) == null, "peer " + pid + " is listed twice");
    }
    require(!out.isEmpty(), "lists no peer");
    return out;
  }

  /** The node settings {@code s} with this node's identity in the cluster. */
  /**
   * Refuses a data directory that belongs to another node id or another peer list, or that holds a
   * single-node {@code loam server} metastore; records the identity on the first start.
   */
  static void checkIdentity(Options o) {
    Path file = o.dataDir().resolve(IDENTITY_FILE);
    Properties want = new Properties();
    want.setProperty("id", o.id());
    want.setProperty("voters", join(o.voters()));
    want.setProperty("listeners", join(o.listeners()));
    try {
      if (Files.exists(file)) {
        Properties have = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
          have.load(in);
        }
        for (String k : List.of("id", "voters", "listeners")) {
          if (!Objects.equals(have.getProperty(k), want.getProperty(k))) {
            throw new IllegalArgumentException(
                o.dataDir()
                    + " belongs to a node started with another "
                    + k
                    + " (a Raft group keeps its members in its log) recorded="
                    + have.getProperty(k)
                    + " given="
                    + want.getProperty(k));
          }
        }
        return;
      }
      if (Files.exists(o.metaDir())) {
        throw new IllegalArgumentException(
            o.dataDir() + " holds a metastore not started by loam node (a loam server directory?)");
      }
      Files.createDirectories(o.dataDir());
      Path tmp = o.dataDir().resolve(IDENTITY_FILE + ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        want.store(out, "loam node identity: a later start must give the same id and peers");
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String join(Map<String, String> peers) {
    StringBuilder b = new StringBuilder();
    peers.forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(v));
    return b.toString();
  }

  private static String advertisedUrl(String advertised) {
    try {
      URI u = new URI(advertised);
      require(
          ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null,
          "not http://host:port: " + advertised);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI: " + advertised, e);
    }
    return advertised;
  }

  /** A bind address others can use; the wildcard addresses are replaced by this host's name. */
  private static String advertisableHost(String host) {
    if (!host.equals("0.0.0.0") && !host.equals("::") && !host.equals("[::]")) {
      return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "--host "
              + host
              + " binds every interface and this host has no name: give"
              + " --advertised-address",
          e);
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  static void usage(PrintStream out) {
    out.print(CMD.help());
  }
}
