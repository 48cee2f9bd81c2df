package dev.loam.storage.azure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Azurite 3.37.0 (blob service only, in memory), installed from npm into {@code target/azurite} on
 * first use and started out of process once per test JVM.
 *
 * <p>Cleanup, in layers: {@link #close()} (or the JVM shutdown hook) destroys the process and its
 * descendants; and the Node process itself runs a watchdog ({@code -r watchdog.js}) that exits when
 * this JVM's pid is gone, so even a JVM killed with SIGKILL leaves no Azurite behind.
 */
final class Azurite implements AutoCloseable {
  static final String VERSION = "3.37.0";
  static final String ACCOUNT = AzureBlobStoreSettings.EMULATOR_ACCOUNT;

  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final AtomicInteger CONTAINERS = new AtomicInteger();

  private static Azurite shared;

  private final Process process;
  private final int port;
  private final Path log;

  private Azurite(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** The one server of this JVM, started on first use and stopped when the JVM exits. */
  static synchronized Azurite shared() {
    if (shared == null) {
      shared = start();
      Azurite s = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(s::close, "azurite-stop"));
    }
    return shared;
  }

  /** The blob endpoint, path style: {@code http://127.0.0.1:<port>/devstoreaccount1}. */
  String endpoint() {
    return "http://127.0.0.1:" + port + "/" + ACCOUNT;
  }

  int port() {
    return port;
  }

  /** A fresh container name, unique in this JVM. */
  static String newContainerName(String hint) {
    String clean = hint.toLowerCase().replaceAll("[^a-z0-9]", "");
    if (clean.length() > 40) {
      clean = clean.substring(0, 40);
    }
    return "c" + CONTAINERS.incrementAndGet() + "-" + (clean.isEmpty() ? "x" : clean);
  }

  /** Settings for a fresh container that the store creates on first use. */
  AzureBlobStoreSettings settings(String containerHint) {
    return AzureBlobStoreSettings.of(ACCOUNT, newContainerName(containerHint))
        .withEndpoint(endpoint())
        .withCreateContainer(true);
  }

  /** A store on a fresh container whose futures complete on {@code executor}. */
  AzureBlobObjectStore newStore(String containerHint, Executor executor) {
    return AzureBlobObjectStore.open(settings(containerHint), executor);
  }

  static Path moduleDir() {
    return Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
  }

  private static Path installDir() {
    return moduleDir().resolve("target").resolve("azurite");
  }

  private static Path mainJs() {
    return installDir().resolve("node_modules/azurite/dist/src/blob/main.js").toAbsolutePath();
  }

  /** Installs Azurite into target/azurite unless a previous run did. */
  static synchronized void install() {
    if (Files.isRegularFile(mainJs())) {
      return;
    }
    Path dir = installDir();
    try {
      Files.createDirectories(dir);
      Path out = dir.resolve("npm-install.log");
      Process npm;
      try {
        npm =
            new ProcessBuilder(
                    "npm",
                    "install",
                    "--prefix",
                    dir.toAbsolutePath().toString(),
                    "--no-audit",
                    "--no-fund",
                    "azurite@" + VERSION)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
      } catch (IOException e) {
        throw new IllegalStateException(
            "the Azure tests need Node.js and npm to install Azurite "
                + VERSION
                + " (npm not found on PATH: "
                + e.getMessage()
                + "); install Node 20+ with npm",
            e);
      }
      if (!npm.waitFor(INSTALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        npm.descendants().forEach(ProcessHandle::destroyForcibly);
        npm.destroyForcibly();
        throw new IllegalStateException("npm install azurite@" + VERSION + " took too long");
      }
      if (npm.exitValue() != 0 || !Files.isRegularFile(mainJs())) {
        throw new IllegalStateException(
            "npm install azurite@"
                + VERSION
                + " failed (exit "
                + npm.exitValue()
                + "), see "
                + out
                + ":\n"
                + tail(out));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts a new server on a free port; retries with another port if the first is taken. */
  static Azurite start() {
    install();
    IllegalStateException last = null;
    for (int tries = 0; tries < 3; tries++) {
      try {
        return startOnce(freePort());
      } catch (IllegalStateException e) {
        last = e;
      }
    }
    throw last;
  }

  private static Azurite startOnce(int port) {
    try {
      Path dir = installDir();
      Path watchdog = dir.resolve("watchdog.js");
      // Exits this Node process when the JVM that started it is gone (kill -9, crash).
      Files.writeString(
          watchdog,
          "const parent = Number(process.env.LOAM_PARENT_PID);\n"
              + "setInterval(() => {\n"
              + "  try { process.kill(parent, 0); } catch (e) { process.exit(0); }\n"
              + "}, 1000).unref();\n",
          StandardCharsets.UTF_8);
      Path log = dir.resolve("azurite-" + port + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  List.of(
                      "node",
                      "-r",
                      watchdog.toAbsolutePath().toString(),
                      mainJs().toString(),
                      "--blobHost",
                      "127.0.0.1",
                      "--blobPort",
                      Integer.toString(port),
                      "--inMemoryPersistence",
                      "--silent",
                      "--skipApiVersionCheck"))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().put("LOAM_PARENT_PID", Long.toString(ProcessHandle.current().pid()));
      Process p;
      try {
        p = pb.start();
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot run node to start Azurite; install Node.js 20+ (" + e.getMessage() + ")", e);
      }
      Azurite server = new Azurite(p, port, log);
      server.awaitPort();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Polls the port with bounded, growing back-off until it accepts or the process dies. */
  private void awaitPort() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    long backoff = TimeUnit.MILLISECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Azurite exited with " + process.exitValue() + " on port " + port + ":\n" + tail(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        LockSupport.parkNanos(backoff);
        backoff = Math.min(backoff * 2, TimeUnit.MILLISECONDS.toNanos(250));
      }
    }
    close();
    throw new IllegalStateException(
        "Azurite did not open port " + port + " within " + START_TIMEOUT + ":\n" + tail(log));
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException | RuntimeException e) {
      return "(no log: " + e + ")";
    }
  }
}
