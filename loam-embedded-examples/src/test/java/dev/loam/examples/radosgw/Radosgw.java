package dev.loam.examples.radosgw;

import dev.loam.storage.s3.S3Checksums;
import dev.loam.storage.s3.S3StoreSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * A single-node Ceph cluster (one monitor, one memstore OSD, no authentication) with a radosgw S3
 * endpoint, started once per test JVM from Debian's packages. If the packages are missing it
 * installs them with apt-get (as root); when that is impossible it fails with a message saying what
 * to install, never skipping. The daemons run under a shell supervisor that stops them when the
 * test JVM exits, however it exits. Bring-up as in docs/reference/storage-s3.md (Checksums) and the
 * team's notes: about 12 s from an empty directory once the packages are installed.
 */
public final class Radosgw {
  static final String ACCESS_KEY = "loam-rgw";
  static final String SECRET_KEY = "loam-rgw-secret";
  private static final List<String> BINARIES =
      List.of("ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "monmaptool", "ceph", "uuidgen");
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static Radosgw shared;

  private final int port;
  private final Path dir;
  private final Process supervisor;
  private final S3AsyncClient admin;
  private final Duration startup;

  private Radosgw(int port, Path dir, Process supervisor, Duration startup) {
    this.port = port;
    this.dir = dir;
    this.supervisor = supervisor;
    this.startup = startup;
    this.admin =
        S3AsyncClient.builder()
            .httpClientBuilder(NettyNioAsyncHttpClient.builder())
            .endpointOverride(endpoint())
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .build();
  }

  /** The cluster of this JVM, installed and started on first use. */
  public static synchronized Radosgw shared() throws IOException, InterruptedException {
    if (shared == null) {
      ensureInstalled();
      shared = start();
    }
    return shared;
  }

  /** Where the cluster's configuration, data and daemon logs are. */
  public Path dir() {
    return dir;
  }

  /** How long the bring-up took, from an empty directory to the S3 user being created. */
  public Duration startup() {
    return startup;
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** A new, empty bucket with a name unique in this JVM. */
  public String newBucket() {
    String bucket = "loam-" + ProcessHandle.current().pid() + "-" + BUCKETS.incrementAndGet();
    admin.createBucket(b -> b.bucket(bucket)).join();
    return bucket;
  }

  /**
   * Settings for a store on {@code bucket}: path style, test credentials, only required checksums.
   */
  public S3StoreSettings settings(String bucket) {
    return S3StoreSettings.defaults(bucket)
        .withEndpoint(endpoint(), "us-east-1", true)
        .withCredentials(ACCESS_KEY, SECRET_KEY)
        .withChecksums(S3Checksums.WHEN_REQUIRED);
  }

  /** The {@code s3://} URI of {@code bucket}/{@code prefix}, checksum options included. */
  public String uri(String bucket, String prefix) {
    return "s3://"
        + bucket
        + "/"
        + prefix
        + "?endpoint="
        + endpoint()
        + "&region=us-east-1&path-style=true&access-key="
        + ACCESS_KEY
        + "&secret-key="
        + SECRET_KEY
        + "&request-checksum=when-required&response-checksum=when-required&part-checksum=none";
  }

  public S3AsyncClient admin() {
    return admin;
  }

  // ---------------------------------------------------------------------------------------------

  /** Installs the Debian packages if a binary is missing; fails saying why it cannot. */
  static void ensureInstalled() throws IOException, InterruptedException {
    List<String> missing = missingBinaries();
    if (missing.isEmpty()) {
      return;
    }
    String packages = "radosgw ceph-mon ceph-osd uuid-runtime";
    if (!isRoot()) {
      throw new IllegalStateException(
          "Ceph radosgw is not installed (missing "
              + missing
              + ") and this test is not running as root, so it cannot install it: run `apt-get"
              + " install --no-install-recommends "
              + packages
              + "` as root");
    }
    Path log = Files.createTempFile("loam-radosgw-apt", ".log");
    String script =
        "apt-get update -qq && apt-get install -y -qq --no-install-recommends"
            + " -o DPkg::Lock::Timeout=120 "
            + packages;
    Process apt =
        new ProcessBuilder("bash", "-c", script)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!apt.waitFor(INSTALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      apt.destroyForcibly();
      throw new IllegalStateException(
          "installing Ceph radosgw with apt-get took over "
              + INSTALL_TIMEOUT
              + "; log:\n"
              + tail(log));
    }
    if (apt.exitValue() != 0 || !missingBinaries().isEmpty()) {
      throw new IllegalStateException(
          "installing Ceph radosgw with apt-get failed (exit "
              + apt.exitValue()
              + ", still missing "
              + missingBinaries()
              + "); log:\n"
              + tail(log));
    }
  }

  private static List<String> missingBinaries() {
    List<String> missing = new ArrayList<>();
    for (String b : BINARIES) {
      boolean found = false;
      for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
        if (!d.isEmpty() && Files.isExecutable(Path.of(d, b))) {
          found = true;
          break;
        }
      }
      if (!found) {
        missing.add(b);
      }
    }
    return missing;
  }

  private static boolean isRoot() throws IOException, InterruptedException {
    Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
    String out = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    id.waitFor();
    return out.equals("0");
  }

  private static Radosgw start() throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    Path dir =
        Path.of("target", "emulator-runs", "radosgw-" + ProcessHandle.current().pid())
            .toAbsolutePath();
    Files.createDirectories(dir);
    int mon = freePort();
    int rgw = freePort();
    Path script = dir.resolve("ceph-up.sh");
    try (var in = Radosgw.class.getResourceAsStream("ceph-up.sh")) {
      if (in == null) {
        throw new IllegalStateException("ceph-up.sh is missing from the test resources");
      }
      Files.write(script, in.readAllBytes());
    }
    Path log = dir.resolve("supervisor.log");
    Process supervisor =
        new ProcessBuilder(
                "bash",
                script.toString(),
                dir.resolve("cluster").toString(),
                Integer.toString(mon),
                Integer.toString(rgw),
                Long.toString(ProcessHandle.current().pid()),
                ACCESS_KEY,
                SECRET_KEY)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(supervisor), "stop-radosgw"));
    awaitReady(supervisor, dir.resolve("cluster").resolve("ready"), log);
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    System.out.printf("radosgw up in %.1f s on port %d (%s)%n", took.toMillis() / 1e3, rgw, dir);
    return new Radosgw(rgw, dir, supervisor, took);
  }

  /** Waits for the supervisor's ready file (the S3 user exists), or its death, or the timeout. */
  private static void awaitReady(Process supervisor, Path ready, Path log) throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.exists(ready)) {
      if (!supervisor.isAlive() || System.nanoTime() > deadline) {
        stop(supervisor);
        throw new IllegalStateException(
            "Ceph radosgw did not come up within "
                + START_TIMEOUT
                + (supervisor.isAlive() ? "" : " (the bring-up script exited)")
                + "; log:\n"
                + tail(log));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  private static void stop(Process supervisor) {
    supervisor.destroy(); // SIGTERM: the script's trap stops the daemons
    try {
      if (!supervisor.waitFor(20, TimeUnit.SECONDS)) {
        supervisor.descendants().forEach(ProcessHandle::destroyForcibly);
        supervisor.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
