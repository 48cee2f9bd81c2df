package dev.loam.examples.process;

import dev.loam.examples.server.LoamNodeMain;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A cluster of {@code loam node} processes ({@link LoamNodeMain}) on loopback, for integration
 * tests: each node in its own JVM (this JVM's {@code java} and class path), its own data directory,
 * all sharing one {@code file://} object store. Every node's stdout and stderr go to {@code
 * <logDir>/node-<i>.log} (also across restarts, appended).
 *
 * <p>{@link #start} starts every process first and only then waits for their ready lines: a node
 * becomes ready once a metastore leader exists, which needs a majority of the voters running.
 * {@link #close} (also run on JVM exit) kills every process and deletes the data.
 *
 * <p>Not thread-safe: one test drives it.
 */
public final class ProcessCluster implements AutoCloseable {
  static final Pattern READY =
      Pattern.compile("loam: node (\\S+) ready http=(\\S+) .*epoch=(\\d+)");
  static final Pattern ROLE = Pattern.compile("loam: node (\\S+) metastore role=(\\S+)");
  static final Pattern JOURNAL_ROLE =
      Pattern.compile("loam: node (\\S+) journal (\\S+) role=(\\S+)");

  private final Builder config;
  private final Path root;
  private final Path store;
  private final List<Node> nodes = new ArrayList<>();
  private final Thread exitHook;
  private final List<MetastoreDisk> metastoreDisks = new ArrayList<>();

  /** One member: its fixed identity and ports, and its current process (if any). */
  private static final class Node {
    final int index;
    final String id;
    final int raftPort;
    final int httpPort;
    final int kafkaPort;
    final int journalPort;
    final Path dataDir;
    final Path log;
    Process process;
    Thread pump;
    CompletableFuture<Ready> ready;

    /** The latest role line of the current process; guarded by the cluster's monitor. */
    String role = "";

    /** The latest journal role line of the current process by journal; the cluster's monitor. */
    final java.util.Map<String, String> journalRoles = new java.util.HashMap<>();

    Node(
        int index,
        String id,
        int raftPort,
        int httpPort,
        int kafkaPort,
        int journalPort,
        Path dataDir,
        Path log) {
      this.index = index;
      this.id = id;
      this.raftPort = raftPort;
      this.httpPort = httpPort;
      this.kafkaPort = kafkaPort;
      this.journalPort = journalPort;
      this.dataDir = dataDir;
      this.log = log;
    }
  }

  /** Receives the output lines of the nodes: the node's index and the line. */
  @FunctionalInterface
  public interface LineListener {
    void line(int node, String line);
  }

  /** What a ready line announced. */
  public record Ready(String nodeId, String httpUrl, long epoch) {}

  private ProcessCluster(Builder b) throws IOException {
    this.config = b;
    Files.createDirectories(b.logDir);
    this.root = Files.createTempDirectory("loam-process-cluster");
    this.store = Files.createDirectories(root.resolve("store"));
    for (int i = 0; i < b.nodes; i++) {
      String id = "n" + (i + 1);
      Path log = b.logDir.resolve("node-" + i + ".log");
      Files.deleteIfExists(log);
      nodes.add(
          new Node(
              i,
              id,
              freePort(),
              freePort(),
              b.kafka ? freePort() : -1,
              b.journal ? freePort() : -1,
              root.resolve(id),
              log));
    }
    if (b.metastoreDiskBytes > 0) {
      for (Node n : nodes) {
        try {
          metastoreDisks.add(MetastoreDisk.mount(n.dataDir.resolve("meta"), b.metastoreDiskBytes));
        } catch (IOException | InterruptedException e) {
          metastoreDisks.forEach(MetastoreDisk::unmount);
          throw new IOException("cannot limit node " + n.id + "'s metastore disk: " + e, e);
        }
      }
    }
    this.exitHook = new Thread(this::killAll, "process-cluster-exit");
    Runtime.getRuntime().addShutdownHook(exitHook);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures a cluster; {@link #start()} starts it. */
  public static final class Builder {
    private int nodes = 3;
    private boolean kafka;
    private boolean journal;
    private Path logDir = Path.of("target", "process-cluster");
    private Duration readyTimeout = Duration.ofSeconds(60);
    private final List<String> jvmArgs =
        new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    private final List<String> nodeArgs = new ArrayList<>();
    private LineListener lineListener = (node, line) -> {};
    private Path faketimeLibrary;
    private long metastoreDiskBytes;

    private Builder() {}

    /**
     * Puts each node's metastore directory on a filesystem of {@code bytes} of its own ({@link
     * MetastoreDisk}), so {@link #fillMetastoreDisk} can fill it while the node runs. Needs root.
     */
    public Builder metastoreDiskLimit(long bytes) {
      this.metastoreDiskBytes = bytes;
      return this;
    }

    /**
     * Runs every node under libfaketime ({@link Faketime}), so {@link #stepClock} can step one
     * process's wall clock while it runs; its monotonic clock (timeouts, Ratis elections) stays
     * real, as when NTP steps a host's clock.
     */
    public Builder steppableClocks() throws IOException, InterruptedException {
      this.faketimeLibrary = Faketime.library();
      return this;
    }

    /**
     * Told about every line any node prints (from the threads that copy their output; must not
     * block), e.g. to count what the nodes announce. The default ignores them.
     */
    public Builder lineListener(LineListener l) {
      this.lineListener = Objects.requireNonNull(l);
      return this;
    }

    public Builder nodes(int n) {
      if (n < 1 || n > 9) {
        throw new IllegalArgumentException("nodes=" + n);
      }
      this.nodes = n;
      return this;
    }

    /** Every node also serves the Kafka protocol ({@code --kafka-port}, a fixed free port). */
    public Builder kafka() {
      this.kafka = true;
      return this;
    }

    /**
     * Every node also runs a journal server of the quorum class ({@code --journal-port}, a fixed
     * free port), so quorum streams can be created; {@link #awaitJournalLeader} follows the
     * journals' leaders from the nodes' role lines.
     */
    public Builder journal() {
      this.journal = true;
      return this;
    }

    /** Where the per-node logs go (default {@code target/process-cluster}). */
    public Builder logDir(Path dir) {
      this.logDir = dir;
      return this;
    }

    /** How long {@link #start} and {@link #restart} wait for ready lines (default 60 s). */
    public Builder readyTimeout(Duration d) {
      this.readyTimeout = d;
      return this;
    }

    /** Extra JVM options for every node process. */
    public Builder jvmArg(String a) {
      jvmArgs.add(a);
      return this;
    }

    /** Extra {@code loam node} options for every node (e.g. {@code --flush-ms 10}). */
    public Builder nodeArgs(String... args) {
      nodeArgs.addAll(List.of(args));
      return this;
    }

    /** Starts every node and waits until all are ready; on failure kills them and throws. */
    public ProcessCluster start() throws IOException {
      ProcessCluster c = new ProcessCluster(this);
      try {
        for (Node n : c.nodes) {
          c.launch(n);
        }
        for (Node n : c.nodes) {
          c.awaitReady(n);
        }
        return c;
      } catch (RuntimeException | IOException e) {
        c.close();
        throw e;
      }
    }
  }

  public int size() {
    return nodes.size();
  }

  /** The node's base URL, e.g. {@code http://127.0.0.1:41234} (stable across restarts). */
  public String httpUrl(int i) {
    return "http://127.0.0.1:" + nodes.get(i).httpPort;
  }

  /** Node {@code i}'s journal port on 127.0.0.1 (needs {@link Builder#journal}). */
  public int journalPort(int i) {
    int p = nodes.get(i).journalPort;
    if (p < 0) {
      throw new IllegalStateException("the cluster runs no journal servers: Builder.journal()");
    }
    return p;
  }

  /** The node's Kafka listener, {@code 127.0.0.1:PORT} (stable across restarts); needs kafka(). */
  public String kafkaAddress(int i) {
    int port = nodes.get(i).kafkaPort;
    if (port < 0) {
      throw new IllegalStateException("the cluster was built without kafka()");
    }
    return "127.0.0.1:" + port;
  }

  public String nodeId(int i) {
    return nodes.get(i).id;
  }

  /** The zone a node runs in: {@code zone-a}, {@code zone-b}, ... by index. */
  public String zone(int i) {
    return "zone-" + (char) ('a' + i);
  }

  /** The shared object store directory. */
  public Path storeDir() {
    return store;
  }

  public Path log(int i) {
    return nodes.get(i).log;
  }

  /**
   * Steps node {@code i}'s wall clock to {@code offset} from real time (zero puts it back); the
   * process sees the step within about a second (libfaketime re-reads its file once a second).
   * Needs {@link Builder#steppableClocks}.
   */
  public void stepClock(int i, Duration offset) throws IOException {
    if (config.faketimeLibrary == null) {
      throw new IllegalStateException("the cluster was built without steppableClocks()");
    }
    Faketime.writeOffset(clockFile(nodes.get(i)), offset);
  }

  private Path clockFile(Node n) {
    return root.resolve(n.id + ".faketime");
  }

  /**
   * Fills node {@code i}'s metastore disk (needs {@link Builder#metastoreDiskLimit}): every later
   * write of its Raft log fails with "no space left" until {@link #freeMetastoreDisk}. Returns the
   * bytes the filler took.
   */
  public long fillMetastoreDisk(int i) throws IOException {
    return metastoreDisks.get(i).fill();
  }

  /** Frees what {@link #fillMetastoreDisk} took. */
  public void freeMetastoreDisk(int i) throws IOException {
    metastoreDisks.get(i).free();
  }

  /** What the current process of node {@code i} announced when it became ready. */
  public Ready ready(int i) {
    return nodes.get(i).ready.join();
  }

  public boolean isAlive(int i) {
    Process p = nodes.get(i).process;
    return p != null && p.isAlive();
  }

  /** SIGKILL: the process dies at once, as on a crash or power loss. Waits until it is gone. */
  public void kill9(int i) throws InterruptedException {
    Node n = nodes.get(i);
    if (n.process != null) {
      n.process.destroyForcibly();
      n.process.waitFor(30, TimeUnit.SECONDS);
      n.pump.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  /**
   * SIGSTOP: the process freezes (a long GC pause, a stalled VM) without dying; {@link #resume}
   * lets it go on with the same epoch and whatever it had in flight.
   */
  public void pause(int i) throws IOException, InterruptedException {
    signal(i, "-STOP");
  }

  /** SIGCONT after {@link #pause}. */
  public void resume(int i) throws IOException, InterruptedException {
    signal(i, "-CONT");
  }

  private void signal(int i, String sig) throws IOException, InterruptedException {
    long pid = nodes.get(i).process.pid();
    Process k = new ProcessBuilder("kill", sig, Long.toString(pid)).inheritIO().start();
    if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
      throw new IOException("kill " + sig + " " + pid + " failed");
    }
  }

  /**
   * SIGTERM (as a service manager stops a service), then waits up to {@code timeout} for the
   * process to exit; returns its exit status, or empty if it is still running.
   */
  public OptionalInt sigterm(int i, Duration timeout) throws InterruptedException {
    Node n = nodes.get(i);
    // Through the ProcessHandle: Process.destroy would also close our end of its stdout pipe and
    // lose what it prints while stopping.
    n.process.toHandle().destroy();
    if (!n.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return OptionalInt.empty();
    }
    n.pump.join(TimeUnit.SECONDS.toMillis(10));
    return OptionalInt.of(n.process.exitValue());
  }

  /**
   * Starts node {@code i} again (same id, ports and data directory; a new process, so a new node
   * epoch) and waits for its ready line. The previous process must have exited.
   */
  public Ready restart(int i) throws IOException {
    Node n = nodes.get(i);
    if (isAlive(i)) {
      throw new IllegalStateException("node " + n.id + " is still running");
    }
    launch(n);
    awaitReady(n);
    return n.ready.join();
  }

  /**
   * The index of the node whose metastore replica leads, waiting up to {@code timeout} until
   * exactly one running node reports itself leader (a new leader announces itself within an
   * election timeout and the node's 100 ms role poll).
   */
  public synchronized int awaitMetastoreLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<Node> leaders =
          nodes.stream().filter(n -> isAlive(n.index) && n.role.equals("leader")).toList();
      if (leaders.size() == 1) {
        return leaders.get(0).index;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(
            "no single metastore leader within " + timeout + ":\n" + logTails(40));
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /**
   * The index of the node whose replica of {@code journal} leads, waiting up to {@code timeout}
   * until exactly one running node reports itself its leader (each node prints its journal roles
   * every 100 ms; needs {@link Builder#journal}).
   */
  public synchronized int awaitJournalLeader(String journal, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      OptionalInt l = journalLeader(journal);
      if (l.isPresent()) {
        return l.getAsInt();
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(
            "no single leader of journal " + journal + " within " + timeout + ":\n" + logTails(40));
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /**
   * The index of the running node whose replica of {@code journal} last announced itself its
   * leader, if exactly one running node did; empty during an election or when unknown. Does not
   * wait.
   */
  public synchronized OptionalInt journalLeader(String journal) {
    List<Node> leaders =
        nodes.stream()
            .filter(n -> isAlive(n.index) && "leader".equals(n.journalRoles.get(journal)))
            .toList();
    return leaders.size() == 1 ? OptionalInt.of(leaders.get(0).index) : OptionalInt.empty();
  }

  /**
   * The index of the running node whose replica last announced itself metastore leader, if exactly
   * one running node did; empty during an election or when unknown. Does not wait.
   */
  public synchronized OptionalInt metastoreLeader() {
    List<Node> leaders =
        nodes.stream().filter(n -> isAlive(n.index) && n.role.equals("leader")).toList();
    return leaders.size() == 1 ? OptionalInt.of(leaders.get(0).index) : OptionalInt.empty();
  }

  /** The last {@code lines} lines of every node's log, for failure messages. */
  public String logTails(int lines) {
    StringBuilder b = new StringBuilder();
    for (Node n : nodes) {
      b.append("---- ").append(n.id).append(" (").append(n.log).append(")\n");
      ArrayDeque<String> tail = new ArrayDeque<>();
      try (Stream<String> s = Files.lines(n.log, StandardCharsets.UTF_8)) {
        s.forEach(
            l -> {
              tail.addLast(l);
              if (tail.size() > lines) {
                tail.removeFirst();
              }
            });
      } catch (IOException | UncheckedIOException e) {
        b.append("(unreadable: ").append(e).append(")\n");
      }
      tail.forEach(l -> b.append(l).append('\n'));
    }
    return b.toString();
  }

  /** Kills every process and deletes the data directories and the store; keeps the logs. */
  @Override
  public void close() {
    killAll();
    metastoreDisks.forEach(MetastoreDisk::unmount);
    try {
      Runtime.getRuntime().removeShutdownHook(exitHook);
    } catch (IllegalStateException e) {
      // Already shutting down.
    }
    deleteTree(root);
  }

  private void killAll() {
    for (Node n : nodes) {
      if (n.process != null) {
        n.process.destroyForcibly();
      }
    }
    for (Node n : nodes) {
      if (n.process != null) {
        try {
          n.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void launch(Node n) throws IOException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(config.jvmArgs);
    cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    cmd.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            LoamNodeMain.class.getName(),
            "--id",
            n.id,
            "--zone",
            zone(n.index),
            "--peers",
            peers(),
            "--data-dir",
            n.dataDir.toString(),
            "--store",
            store.toUri().toString(),
            "--http-port",
            Integer.toString(n.httpPort)));
    if (n.kafkaPort >= 0) {
      cmd.addAll(List.of("--kafka-port", Integer.toString(n.kafkaPort)));
    }
    if (n.journalPort >= 0) {
      cmd.addAll(List.of("--journal-port", Integer.toString(n.journalPort)));
    }
    cmd.addAll(config.nodeArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (config.faketimeLibrary != null) {
      Path clock = clockFile(n);
      if (!Files.exists(clock)) {
        Faketime.writeOffset(clock, Duration.ZERO);
      }
      Faketime.configure(pb.environment(), config.faketimeLibrary, clock);
    }
    Process p = pb.start();
    p.getOutputStream().close();
    CompletableFuture<Ready> ready = new CompletableFuture<>();
    synchronized (this) {
      n.process = p;
      n.ready = ready;
      n.role = "";
      n.journalRoles.clear();
    }
    Thread pump = new Thread(() -> pump(n, p, ready), "pump-" + n.id);
    pump.setDaemon(true);
    pump.start();
    n.pump = pump;
  }

  /** Copies a process's output to its log file line by line and follows its announcements. */
  private void pump(Node n, Process p, CompletableFuture<Ready> ready) {
    try (BufferedReader in =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        BufferedWriter log =
            Files.newBufferedWriter(
                n.log,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
      log.write("==== " + n.id + " pid " + p.pid() + "\n");
      String line;
      while ((line = in.readLine()) != null) {
        log.write(line);
        log.write('\n');
        log.flush();
        config.lineListener.line(n.index, line);
        Matcher r = READY.matcher(line);
        if (r.find()) {
          ready.complete(new Ready(r.group(1), r.group(2), Long.parseLong(r.group(3))));
        }
        Matcher role = ROLE.matcher(line);
        if (role.find()) {
          synchronized (this) {
            if (n.process == p) {
              n.role = role.group(2);
              notifyAll();
            }
          }
        }
        Matcher journalRole = JOURNAL_ROLE.matcher(line);
        if (journalRole.find()) {
          synchronized (this) {
            if (n.process == p) {
              n.journalRoles.put(journalRole.group(2), journalRole.group(3));
              notifyAll();
            }
          }
        }
      }
    } catch (IOException e) {
      // The pipe closed (the process was killed): nothing more to copy.
    } finally {
      ready.completeExceptionally(
          new IllegalStateException("node " + n.id + " exited before it was ready"));
      synchronized (this) {
        if (n.process == p) {
          n.role = "";
          n.journalRoles.clear();
        }
        notifyAll();
      }
    }
  }

  private void awaitReady(Node n) {
    try {
      n.ready.get(config.readyTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "node "
              + n.id
              + " not ready within "
              + config.readyTimeout
              + " ("
              + (e instanceof TimeoutException ? "timed out" : e.getCause().getMessage())
              + "); node logs:\n"
              + logTails(60),
          e);
    }
  }

  private String peers() {
    StringBuilder b = new StringBuilder();
    for (Node n : nodes) {
      b.append(b.length() == 0 ? "" : ",").append(n.id).append("=127.0.0.1:").append(n.raftPort);
    }
    return b.toString();
  }

  /**
   * A port free now. Another process may take it before the node binds it; the node then fails to
   * start and {@link #start} reports it with the logs.
   */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // Best effort: a temp directory.
                }
              });
    } catch (IOException e) {
      // Best effort.
    }
  }
}
