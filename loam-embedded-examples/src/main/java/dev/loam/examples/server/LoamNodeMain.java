package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.api.OwnershipSettings;
import dev.loam.cli.UsageException;
import dev.loam.core.runtime.SystemDrivers;
import dev.loam.error.LoamException;
import dev.loam.examples.fault.FaultFile;
import dev.loam.examples.fault.FaultInjectingStore;
import dev.loam.grpc.GrpcSettings;
import dev.loam.grpc.LoamGrpcServer;
import dev.loam.http.LoamHttpServer;
import dev.loam.kafka.KafkaGateway;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.otlp.OtlpReceiver;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.InstantSource;
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
 * ...} once serving, {@code loam: node ID metastore role=leader|follower|listener} whenever its
 * replica's role changes, and (with {@code --journal-port}) {@code loam: node ID journal J
 * role=leader|follower} whenever its replica of journal J changes role. SIGTERM (or Ctrl-C) stops
 * it cleanly, see {@link Member#stop}; a kill -9 loses only unacknowledged appends.
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

  public static void main(String[] args) throws InterruptedException {
    NodeOptions o;
    OtlpFlags.Ports otlp;
    int grpcPort;
    int flightPort;
    try {
      if (NodeOptions.CMD.parse(args).help()) {
        usage(System.out);
        return;
      }
      o = NodeOptions.parse(args);
      otlp = NodeOptions.OTLP.ports(NodeOptions.CMD.parse(args));
      grpcPort = GrpcFlags.port(NodeOptions.CMD.parse(args), NodeOptions.GRPC);
      flightPort = FlightFlags.port(NodeOptions.CMD.parse(args), NodeOptions.FLIGHT);
    } catch (UsageException e) {
      NodeOptions.CMD.printUsageError(e, System.err);
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
      m = Member.start(o, otlp, grpcPort, flightPort, System.out);
    } catch (Throwable e) {
      // Whatever failed, the member closed what it had started (its replica, its pools): exit so
      // that nothing keeps serving half a node, with one line saying which flag to change.
      System.err.println(
          "loam node: " + o.id() + " could not start: " + StartFailure.describe(e, null));
      System.exit(1);
      return;
    }
    m.meta.whenFailed().thenAccept(f -> m.failStop(f));
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
    /** How long a fail-stop waits for the node's parts to close before the process halts. */
    private static final Duration FAIL_STOP_CLOSE = Duration.ofSeconds(10);

    private final NodeOptions options;
    private final PrintStream out;
    private final ExecutorService metaExecutor;
    private final ScheduledExecutorService roleWatch;
    private volatile RatisMetastore meta;
    private volatile LoamNode node;
    private volatile LoamHttpServer server;
    private volatile KafkaGateway kafka;
    private volatile OtlpReceiver otlp;
    private volatile LoamGrpcServer grpc;
    private volatile dev.loam.flight.LoamFlightServer flight;
    private volatile ObjectStore faultyStore;
    private volatile FaultFile faultFile;
    private volatile ExecutorService storeIo;
    private volatile dev.loam.kms.KeyManagementService kms;

    private Member(NodeOptions options, PrintStream out) {
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
    static Member start(NodeOptions o, PrintStream out) {
      return start(o, OtlpFlags.Ports.OFF, out);
    }

    /** As {@link #start(NodeOptions, PrintStream)}, serving OTLP logs on the ports that are on. */
    static Member start(NodeOptions o, OtlpFlags.Ports otlpPorts, PrintStream out) {
      return start(o, otlpPorts, -1, out);
    }

    /** As {@link #start(NodeOptions, OtlpFlags.Ports, PrintStream)}, with gRPC on a port >= 0. */
    static Member start(NodeOptions o, OtlpFlags.Ports otlpPorts, int grpcPort, PrintStream out) {
      return start(o, otlpPorts, grpcPort, -1, out);
    }

    /** As above, with Arrow Flight on a port >= 0. */
    static Member start(
        NodeOptions o, OtlpFlags.Ports otlpPorts, int grpcPort, int flightPort, PrintStream out) {
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
        StartFailure.step(
            "--start-timeout-s " + o.startTimeout().toSeconds(),
            null,
            () -> {
              m.awaitMetastore();
              return null;
            });
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
        if (o.kms().isPresent()) {
          KmsFlags.Settings k = o.kms().get();
          m.kms = k.open();
          nb.keyManagement(m.kms).kmsTimeout(k.timeout());
        }
        if (o.journalAddress() != null) {
          nb.journalAddress(o.journalAddress())
              .journalDir(o.dataDir().resolve("journal"))
              .journalQuietSealInterval(o.journalQuietSeal());
          // The journal port takes the metastore port's peer files: one CA admits a node to both.
          o.peerTls().ifPresent(nb::journalPeerTls);
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
                    LoamServerMain.withTls(
                            LoamHttpServer.builder()
                                .node(m.node)
                                .host(o.host())
                                .port(o.httpPort())
                                .authentication(
                                    LoamServerMain.authentication(o.host(), o.insecure())),
                            o.tls())
                        .start());
        LoamServerMain.printAuthentication(o.host(), o.insecure(), m.server.authentication());
        if (o.kafkaPort() >= 0) {
          m.kafka =
              LoamServerMain.startKafka(
                  m.node,
                  o.host(),
                  o.kafkaPort(),
                  URI.create(o.advertisedAddress()).getHost(),
                  o.tls(),
                  m.server.authentication(),
                  o.kafkaSecurity());
        }
        m.otlp =
            OtlpFlags.start(
                m.node,
                o.host(),
                otlpPorts,
                m.server.authentication(),
                dev.loam.http.IngestQuota.unlimited(),
                o.tls());
        m.grpc =
            GrpcFlags.start(
                m.node,
                o.host(),
                grpcPort,
                m.server.authentication(),
                dev.loam.http.IngestQuota.unlimited(),
                o.tls(),
                GrpcSettings.defaults().cloudEventsDedupWindow());
        m.flight =
            FlightFlags.start(m.node, o.host(), flightPort, m.server.authentication(), o.tls());
        out.println(
            "loam: node "
                + o.id()
                + " ready http="
                + o.advertisedAddress()
                + " bind="
                + o.host()
                + ":"
                + m.server.port()
                + (m.kafka == null ? "" : " kafka=" + m.kafka.advertisedAddress())
                + OtlpFlags.describe(m.otlp, o.host())
                + GrpcFlags.describe(m.grpc, o.host())
                + FlightFlags.describe(m.flight, o.host())
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
      // Kafka clients first: the gateway withdraws its endpoint, so Metadata from the other nodes
      // stops naming this one while the streams drain. OTLP exporters retry elsewhere.
      quietly(kafka);
      quietly(otlp);
      // gRPC subscribers resume on another node from their next offset; Flight readers likewise.
      quietly(grpc);
      quietly(flight);
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

    /**
     * The metastore replica stopped after a failure it cannot recover from in place (its Raft log
     * could not be written — the disk full —, an apply or snapshot failed): the process exits with
     * status 1 rather than serve as a node whose replica neither votes nor persists, so its
     * supervisor restarts it once the cause is fixed, and it recovers from its log like after a
     * crash. No drain (its proposals would fail); what was acknowledged is in the others' logs.
     */
    void failStop(Throwable failure) {
      out.println(
          "loam: node "
              + options.id()
              + " metastore replica failed, exiting with status 1: "
              + failure.getMessage());
      out.flush();
      // The replica first: its close restores a term and vote file a full disk emptied, and must
      // not wait behind the rest of the node for the halt below.
      Thread closer =
          new Thread(
              () -> {
                quietly(meta);
                close();
              },
              "loam-fail-stop");
      closer.setDaemon(true);
      closer.start();
      try {
        closer.join(FAIL_STOP_CLOSE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      // halt, not exit: the shutdown hook's graceful leave needs the metastore this node lost.
      Runtime.getRuntime().halt(1);
    }

    /** Closes what was started, each part even if another failed to close. */
    private void close() {
      roleWatch.shutdownNow();
      quietly(flight);
      quietly(grpc);
      quietly(otlp);
      quietly(kafka);
      quietly(server);
      quietly(node);
      quietly(kms);
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
            LoamNode n = node;
            if (n != null) {
              n.quorumHost().ifPresent(this::printJournalRoles);
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
    }

    /** The journal roles last printed, by journal; touched only by the role-watch thread. */
    private final java.util.Map<String, String> journalRoles = new java.util.HashMap<>();

    /**
     * Prints {@code loam: node ID journal J role=leader|follower} whenever this node's replica of a
     * journal changes role (the leader is the one this replica knows: itself, or another).
     */
    private void printJournalRoles(dev.loam.spi.quorum.QuorumHost host) {
      for (String j : host.hostedJournals()) {
        String role =
            host.leader(j).filter(options.id()::equals).isPresent() ? "leader" : "follower";
        if (!role.equals(journalRoles.put(j, role))) {
          out.println("loam: node " + options.id() + " journal " + j + " role=" + role);
          out.flush();
        }
      }
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

  /**
   * Refuses a data directory that belongs to another node id or another peer list, or that holds a
   * single-node {@code loam server} metastore; records the identity on the first start.
   */
  static void checkIdentity(NodeOptions o) {
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
      if (holdsAnything(o.metaDir())) {
        // An empty directory is fine: an operator may mount the metastore's own disk there.
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

  private static boolean holdsAnything(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return Files.exists(dir);
    }
    try (java.util.stream.Stream<Path> s = Files.list(dir)) {
      return s.anyMatch(p -> !p.getFileName().toString().equals("lost+found"));
    }
  }

  private static String join(Map<String, String> peers) {
    StringBuilder b = new StringBuilder();
    peers.forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(v));
    return b.toString();
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
    out.print(NodeOptions.CMD.help());
  }
}
