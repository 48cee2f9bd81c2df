package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
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
import java.util.Locale;
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
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        usage(System.out);
        return;
      }
    }
    Options o;
    try {
      o = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("loam node: " + e.getMessage());
      usage(System.err);
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
    } catch (RuntimeException e) {
      System.err.println("loam node: " + o.id() + " could not start: " + e);
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
        checkIdentity(o);
        InstantSource clock = InstantSource.system();
        m.meta =
            RatisMetastore.start(o.ratisSettings(), MetaSettings.defaults(), clock, m.metaExecutor);
        m.watchRole();
        long waitStart = System.nanoTime();
        m.awaitMetastore();
        long leaderWaitMillis = (System.nanoTime() - waitStart) / 1_000_000;
        LoamNode.Builder nb = LoamNode.builder().nodeId(o.id());
        if (o.faultFile() != null) {
          m.openFaultyStore(clock);
          nb.objectStore(m.faultyStore).ioExecutor(m.storeIo);
        } else {
          nb.storeUri(o.store());
        }
        nb.metastore(m.meta)
            .settings(o.nodeSettings())
            .ownership(OwnershipSettings.defaults().withLivenessTimeout(o.livenessTimeout()))
            .clock(clock);
        m.node = startNodeRetrying(nb, o.id(), waitStart, o.startTimeout(), out);
        m.server = LoamHttpServer.builder().node(m.node).host(o.host()).port(o.httpPort()).start();
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
      } catch (RuntimeException e) {
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

    private void close() {
      roleWatch.shutdownNow();
      if (server != null) {
        server.close();
      }
      if (node != null) {
        node.close();
      }
      if (faultFile != null) {
        faultFile.close();
      }
      if (faultyStore != null) {
        faultyStore.close();
      }
      if (storeIo != null) {
        storeIo.shutdownNow();
      }
      if (meta != null) {
        meta.close();
      }
      metaExecutor.shutdownNow();
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

  /** Parses the command line; IllegalArgumentException names what is wrong. */
  static Options parse(String[] args) {
    String id = null;
    String zone = "";
    String peers = null;
    Path dataDir = null;
    String store = null;
    String host = "127.0.0.1";
    int httpPort = -1;
    int slots = 1;
    String advertised = null;
    int voterCount = 0;
    Duration flush = null;
    Duration startTimeout = Duration.ofMinutes(5);
    Duration liveness = OwnershipSettings.defaults().livenessTimeout();
    Path faultFile = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--id", "--node-id" -> id = v;
        case "--zone" -> zone = v;
        case "--peers" -> peers = v;
        case "--data-dir" -> dataDir = Path.of(v);
        case "--store" -> store = v;
        case "--host" -> host = v;
        case "--http-port", "--port" -> httpPort = intIn(a, v, 1, 65535);
        case "--slots" -> slots = intIn(a, v, 1, 1_000_000);
        case "--advertised-address" -> advertised = v;
        case "--voters" -> voterCount = intIn(a, v, 1, RatisSettings.MAX_VOTERS);
        case "--flush-ms" -> flush = Duration.ofMillis(intIn(a, v, 1, 60_000));
        case "--start-timeout-s" ->
            startTimeout = Duration.ofSeconds(intIn(a, v, 1, (int) MAX_START_TIMEOUT.toSeconds()));
        case "--liveness-timeout-ms" -> liveness = Duration.ofMillis(intIn(a, v, 1000, 3_600_000));
        case "--fault-file" -> faultFile = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    require(id != null, "--id is required");
    require(peers != null, "--peers is required");
    require(dataDir != null, "--data-dir is required");
    require(store != null, "--store is required (an object store every node shares)");
    require(httpPort > 0, "--http-port is required");
    checkStore(store);
    Map<String, String> all = parsePeers(peers);
    require(all.containsKey(id), "--id " + id + " is not one of the --peers " + all.keySet());
    int voters = voterCount > 0 ? voterCount : defaultVoters(all.size());
    require(
        voters <= all.size(),
        "--voters " + voters + " exceeds the " + all.size() + " peers of --peers");
    Map<String, String> voterMap = new LinkedHashMap<>();
    Map<String, String> listenerMap = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      (voterMap.size() < voters ? voterMap : listenerMap).put(e.getKey(), e.getValue());
    }
    if (advertised == null) {
      advertised = "http://" + advertisableHost(host) + ":" + httpPort;
    }
    checkAdvertised(advertised);
    return new Options(
        id,
        zone,
        voterMap,
        listenerMap,
        dataDir,
        store,
        host,
        httpPort,
        slots,
        advertised,
        flush,
        startTimeout,
        liveness,
        faultFile);
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
      String pid = s.substring(0, eq);
      String addr = s.substring(eq + 1);
      int colon = addr.lastIndexOf(':');
      require(colon > 0 && colon < addr.length() - 1, "a peer must be id=host:port, got " + s);
      intIn("the port of peer " + pid, addr.substring(colon + 1), 1, 65535);
      require(out.put(pid, addr) == null, "peer " + pid + " is listed twice in --peers");
    }
    require(!out.isEmpty(), "--peers lists no peer");
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

  private static void checkStore(String store) {
    require(
        !store.toLowerCase(Locale.ROOT).startsWith("mem:"),
        "--store mem:// is private to one process; a cluster needs a shared store"
            + " (file:///shared/dir, s3://, azblob://, gs://)");
    try {
      URI u = new URI(store);
      require(
          u.getScheme() != null, "--store must be a URI such as file:///shared/dir, got " + store);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("--store is not a URI: " + store, e);
    }
  }

  private static void checkAdvertised(String advertised) {
    try {
      URI u = new URI(advertised);
      require(
          ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null,
          "--advertised-address must be http://host:port, got " + advertised);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("--advertised-address is not a URI: " + advertised, e);
    }
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

  private static int intIn(String what, String v, int min, int max) {
    try {
      int n = Integer.parseInt(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Fall through.
    }
    throw new IllegalArgumentException(what + " must be in " + min + ".." + max + ", got " + v);
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
    out.println(
        "usage: loam node --id ID --peers id1=host:port,id2=host:port,id3=host:port\n"
            + "                 --data-dir DIR --store URI --http-port PORT [--zone Z]\n"
            + "                 [--host 127.0.0.1] [--slots 1] [--advertised-address URL]\n"
            + "                 [--voters N] [--flush-ms MS] [--start-timeout-s 300]\n"
            + "                 [--liveness-timeout-ms 10000] [--fault-file PATH]\n"
            + "  Runs one cluster member: a Ratis metastore replica (its peer address is its\n"
            + "  entry in --peers, its log in DIR/meta), a node on the shared object store URI\n"
            + "  (file:///shared/dir, s3://, azblob://, gs://) and the HTTP API on PORT.\n"
            + "  Every node gets the same --peers in the same order. --fault-file is for\n"
            + "  chaos tests only: it makes the store fail a fraction of reads and writes as\n"
            + "  the file says (re-read every 100 ms; absent = no faults). See\n"
            + "  docs/operations/running-a-cluster.md.");
  }
}
