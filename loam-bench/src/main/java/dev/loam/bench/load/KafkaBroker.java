package dev.loam.bench.load;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * The Apache Kafka broker of {@code ./loam bench --vs-kafka}: one KRaft node running both roles,
 * started in a separate JVM from {@code target/kafka-lib} (Maven Central jars, copied at build
 * time) on a temp log dir and free loopback ports, and stopped (destroy, then wait) by {@link
 * #close}. A separate JVM keeps the broker's Scala, log4j and zstd-jni away from Loam's classpath,
 * and lets its CPU be read apart from the bench JVM's.
 *
 * <p>Settings are Kafka's defaults for a single node (see {@link #SETTINGS}); in particular no
 * fsync per write ({@code log.flush.interval.messages} unset): an acks=all ack means "in this
 * broker's page cache", while Loam's filesystem store fsyncs before it acks.
 */
final class KafkaBroker implements KafkaTarget, AutoCloseable {
  /** The broker version that {@code target/kafka-lib} holds (loam-bench/pom.xml). */
  static final String VERSION = "4.4.0";

  /** Broker settings beyond listeners and log dir; the rest are Kafka's defaults. */
  static final Map<String, String> SETTINGS =
      Map.ofEntries(
          Map.entry("process.roles", "broker,controller"),
          Map.entry("node.id", "1"),
          Map.entry("num.network.threads", "3"),
          Map.entry("num.io.threads", "8"),
          Map.entry("num.partitions", "1"),
          Map.entry("default.replication.factor", "1"),
          Map.entry("min.insync.replicas", "1"),
          Map.entry("offsets.topic.replication.factor", "1"),
          Map.entry("transaction.state.log.replication.factor", "1"),
          Map.entry("transaction.state.log.min.isr", "1"),
          Map.entry("share.coordinator.state.topic.replication.factor", "1"),
          Map.entry("share.coordinator.state.topic.min.isr", "1"),
          Map.entry("group.initial.rebalance.delay.ms", "0"),
          Map.entry("log.segment.bytes", "1073741824"),
          // Topics deleted between runs free the disk quickly.
          Map.entry("file.delete.delay.ms", "1000"));

  /**
   * The broker JVM's flags: those of Kafka's own start scripts, plus a pre-touched heap as {@code
   * ./loam bench} gives Loam's JVM (docs/operations/performance.md "The machine").
   */
  static final List<String> JVM_FLAGS =
      List.of(
          "-Xms1g",
          "-Xmx1g",
          "-XX:+UseG1GC",
          "-XX:MaxGCPauseMillis=20",
          "-XX:InitiatingHeapOccupancyPercent=35",
          "-XX:+ExplicitGCInvokesConcurrent",
          "-XX:+AlwaysPreTouch",
          "-Djava.awt.headless=true");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Path dir;
  private final Process process;
  private final String bootstrap;
  private final Thread shutdownHook;
  private Admin admin;

  private KafkaBroker(Path dir, Process process, String bootstrap, Thread shutdownHook) {
    this.dir = dir;
    this.process = process;
    this.bootstrap = bootstrap;
    this.shutdownHook = shutdownHook;
  }

  /** The default place of the broker's jars: {@code target/kafka-lib} next to the bench classes. */
  static Path defaultLibDir() {
    try {
      Path classes =
          Path.of(KafkaBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return classes.resolveSibling("kafka-lib");
    } catch (Exception e) {
      return Path.of("loam-bench/target/kafka-lib");
    }
  }

  /**
   * Formats a fresh temp log dir with the StorageTool, starts {@code kafka.Kafka} and waits until
   * it answers metadata requests; on any failure the process is destroyed and the temp dir deleted
   * before the exception propagates.
   */
  static KafkaBroker start(Path libDir) throws IOException, InterruptedException {
    if (!Files.isDirectory(libDir)) {
      throw new IllegalStateException(
          "no Kafka broker jars at "
              + libDir
              + " (built by `mvn -pl loam-bench -am package`; or pass --kafka-lib DIR)");
    }
    Path dir = Files.createTempDirectory("loam-bench-kafka-");
    Process p = null;
    Thread hook = null;
    try {
      int port = freePort();
      int controllerPort = freePort();
      while (controllerPort == port) {
        controllerPort = freePort();
      }
      Properties props = new Properties();
      props.putAll(SETTINGS);
      props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
      props.put(
          "listeners",
          "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
      props.put("controller.listener.names", "CONTROLLER");
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
      props.put("log.dirs", dir.resolve("data").toString());
      Path server = dir.resolve("server.properties");
      try (var w = Files.newBufferedWriter(server, StandardCharsets.UTF_8)) {
        props.store(w, "loam bench --vs-kafka");
      }
      Path log4j = dir.resolve("log4j2.properties");
      Files.writeString(
          log4j,
          """
          appender.out.type = Console
          appender.out.name = out
          appender.out.layout.type = PatternLayout
          appender.out.layout.pattern = [%d] %p %m (%c)%n
          rootLogger.level = WARN
          rootLogger.appenderRef.out.ref = out
          """,
          StandardCharsets.UTF_8);
      String java = javaCommand();
      String cp = libDir.toAbsolutePath() + "/*";
      String log4jFlag = "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath();

      Path formatLog = dir.resolve("format.log");
      Process format =
          new ProcessBuilder(
                  java,
                  "-Xmx256m",
                  log4jFlag,
                  "-cp",
                  cp,
                  "kafka.tools.StorageTool",
                  "format",
                  "-t",
                  Uuid.randomUuid().toString(),
                  "-c",
                  server.toString())
              .redirectErrorStream(true)
              .redirectOutput(formatLog.toFile())
              .start();
      if (!format.waitFor(120, TimeUnit.SECONDS)) {
        format.destroyForcibly().waitFor();
        throw new IllegalStateException("Kafka StorageTool format timed out: " + tail(formatLog));
      }
      if (format.exitValue() != 0) {
        throw new IllegalStateException(
            "Kafka StorageTool format failed, exit " + format.exitValue() + ": " + tail(formatLog));
      }

      List<String> cmd = new ArrayList<>();
      cmd.add(java);
      cmd.addAll(JVM_FLAGS);
      cmd.add(log4jFlag);
      cmd.add("-cp");
      cmd.add(cp);
      cmd.add("kafka.Kafka");
      cmd.add(server.toString());
      Path brokerLog = dir.resolve("broker.log");
      p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(brokerLog.toFile())
              .start();
      Process started = p;
      // Ctrl-C of the bench must not leave the broker running.
      hook = new Thread(started::destroyForcibly, "loam-bench-kafka-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      KafkaBroker b = new KafkaBroker(dir, p, "127.0.0.1:" + port, hook);
      b.awaitReady(brokerLog);
      return b;
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (p != null) {
        stop(p);
      }
      if (hook != null) {
        removeHook(hook);
      }
      LoadRun.deleteTree(dir);
      throw e;
    }
  }

  private void awaitReady(Path brokerLog) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Kafka broker exited with " + process.exitValue() + ": " + tail(brokerLog));
      }
      try {
        if (!admin().describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        last = e;
      }
      Thread.sleep(200); // polling a process we do not control; no event to wait on
    }
    throw new IllegalStateException(
        "Kafka broker not ready after " + START_TIMEOUT + " (" + last + "): " + tail(brokerLog));
  }

  /** {@code host:port} of the PLAINTEXT listener. */
  @Override
  public String bootstrap() {
    return bootstrap;
  }

  /** An admin client of this broker, created on first use and closed with it. */
  @Override
  public synchronized Admin admin() {
    if (admin == null) {
      Map<String, Object> conf = new LinkedHashMap<>();
      conf.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      conf.put(AdminClientConfig.CLIENT_ID_CONFIG, "loam-bench-admin");
      conf.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
      conf.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
      admin = Admin.create(conf);
    }
    return admin;
  }

  /** Creates the topic through the admin client; {@code fsync}: with {@code flush.messages=1}. */
  @Override
  public void createTopic(String topic, int partitions, boolean fsync) throws Exception {
    admin()
        .createTopics(
            List.of(
                new NewTopic(topic, partitions, (short) 1)
                    .configs(fsync ? Map.of("flush.messages", "1") : Map.of())))
        .all()
        .get(60, TimeUnit.SECONDS);
  }

  /** Deletes the topic through the admin client. */
  @Override
  public void deleteTopic(String topic) throws Exception {
    admin().deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
  }

  /** CPU time of the broker JVM so far, in ns (-1 if the OS does not say). */
  @Override
  public long cpuNanos() {
    return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
  }

  long pid() {
    return process.pid();
  }

  /** The setup as JSON-able values. */
  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("version", VERSION);
    m.put("mode", "KRaft, one node as broker and controller, PLAINTEXT on 127.0.0.1, RF 1");
    m.put("jvm", "separate process, " + String.join(" ", JVM_FLAGS));
    m.put("settings", new java.util.TreeMap<>(SETTINGS));
    m.put(
        "flush",
        "Kafka default: no fsync per write (log.flush.interval.messages unset); segments are"
            + " fsynced on roll. Loam's filesystem store fsyncs each object before the ack.");
    return m;
  }

  /** Stops the broker: destroy (SIGTERM, a controlled shutdown), wait, then force; deletes. */
  @Override
  public void close() {
    synchronized (this) {
      if (admin != null) {
        admin.close(Duration.ofSeconds(5));
        admin = null;
      }
    }
    stop(process);
    removeHook(shutdownHook);
    LoadRun.deleteTree(dir);
  }

  private static void stop(Process p) {
    p.destroy();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down; the hook runs anyway
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String javaCommand() {
    Path home = Path.of(System.getProperty("java.home"), "bin", "java");
    return Files.isExecutable(home)
        ? home.toString()
        : ProcessHandle.current().info().command().orElse("java");
  }

  /** The last lines of a log, for error messages. */
  private static String tail(Path log) {
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      List<String> all = lines.toList();
      return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()))
          + " (log="
          + log
          + ")";
    } catch (IOException | java.io.UncheckedIOException e) {
      return "(no log: " + e + ")";
    }
  }
}
