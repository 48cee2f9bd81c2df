package dev.loam.storage.s3;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * An S3 emulator (S3Proxy or Adobe S3Mock) run out of process from the jar Maven copied into {@code
 * target/emulators}. Each kind is started at most once per test JVM, on a free port, and stopped by
 * a JVM shutdown hook; a {@link Watchdog} between the JVM and the server kills the server if the
 * JVM dies without running its hooks.
 */
public final class Emulator {
  static final String ACCESS_KEY = "loam-test";
  static final String SECRET_KEY = "loam-test-secret";

  private static Emulator s3proxy;
  private static Emulator s3mock;
  private static final AtomicInteger BUCKETS = new AtomicInteger();

  final String name;
  final int port;
  private final Process process;
  private final Path log;
  private final S3AsyncClient admin;

  private Emulator(String name, int port, Process process, Path log) {
    this.name = name;
    this.port = port;
    this.process = process;
    this.log = log;
    this.admin =
        S3AsyncClient.builder()
            .httpClientBuilder(NettyNioAsyncHttpClient.builder())
            .endpointOverride(endpoint())
            .region(Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .build();
  }

  /** S3Proxy 4.1.0, in-memory provider {@code transient-nio2}, with SigV2/V4 authentication. */
  public static synchronized Emulator s3proxy() throws IOException {
    if (s3proxy == null) {
      Path dir = workDir("s3proxy");
      int port = freePort();
      Path conf = dir.resolve("s3proxy.conf");
      Files.writeString(
          conf,
          String.join(
              "\n",
              "s3proxy.endpoint=http://127.0.0.1:" + port,
              "s3proxy.authorization=aws-v2-or-v4",
              "s3proxy.identity=" + ACCESS_KEY,
              "s3proxy.credential=" + SECRET_KEY,
              "jclouds.provider=transient-nio2",
              "jclouds.filesystem.basedir=" + dir.resolve("data"),
              ""),
          StandardCharsets.UTF_8);
      Files.createDirectories(dir.resolve("data"));
      s3proxy =
          start(
              "s3proxy",
              port,
              dir,
              List.of("-Xmx768m", "-jar", jar("s3proxy.jar"), "--properties", conf.toString()),
              Duration.ofSeconds(60));
    }
    return s3proxy;
  }

  /** Adobe S3Mock 5.2.0 on a free HTTP port (its HTTPS and vectors ports moved off defaults). */
  public static synchronized Emulator s3mock() throws IOException {
    if (s3mock == null) {
      Path dir = workDir("s3mock");
      int port = freePort();
      s3mock =
          start(
              "s3mock",
              port,
              dir,
              List.of(
                  "-Xmx512m",
                  "-jar",
                  jar("s3mock.jar"),
                  "--http.port=" + port,
                  "--server.port=" + freePort(),
                  "--vectors.http.port=" + freePort(),
                  "--vectors.https.port=" + freePort(),
                  "--logging.level.root=warn",
                  "--com.adobe.testing.s3mock.store.root=" + dir.resolve("data")),
              Duration.ofSeconds(90));
    }
    return s3mock;
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

  /** Settings for a store on {@code bucket} of this server, with the test credentials. */
  public S3StoreSettings settings(String bucket) {
    return S3StoreSettings.defaults(bucket)
        .withEndpoint(endpoint(), "us-east-1", true)
        .withCredentials(ACCESS_KEY, SECRET_KEY);
  }

  /** A URI for {@code bucket} and {@code prefix} of this server, credentials in the query. */
  public String uri(String bucket, String prefix) {
    return "s3://"
        + bucket
        + "/"
        + prefix
        + "?endpoint=http://127.0.0.1:"
        + port
        + "&region=us-east-1&path-style=true&access-key="
        + ACCESS_KEY
        + "&secret-key="
        + SECRET_KEY;
  }

  public S3AsyncClient admin() {
    return admin;
  }

  private static Emulator start(
      String name, int port, Path dir, List<String> javaArgs, Duration startTimeout)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String testClasses =
        Path.of(
                URI.create(
                    Watchdog.class.getProtectionDomain().getCodeSource().getLocation().toString()))
            .toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx32m");
    cmd.add("-cp");
    cmd.add(testClasses);
    cmd.add(Watchdog.class.getName());
    cmd.add(Long.toString(ProcessHandle.current().pid()));
    cmd.add(java);
    cmd.addAll(javaArgs);
    Path log = dir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Emulator e = new Emulator(name, port, p, log);
    Runtime.getRuntime().addShutdownHook(new Thread(e::stop, "stop-" + name));
    e.awaitPort(startTimeout);
    return e;
  }

  /** Polls the port with backoff until it accepts a connection, the process dies, or time ends. */
  private void awaitPort(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = TimeUnit.MILLISECONDS.toNanos(20);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          stop();
          throw new IOException(
              name + " did not open port " + port + " within " + timeout + "; log:\n" + tail());
        }
        LockSupport.parkNanos(pause);
        pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(250));
      }
    }
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private void stop() {
    admin.close();
    Watchdog.killTree(process.toHandle());
  }

  private static Path workDir(String name) throws IOException {
    Path dir = Path.of("target", "emulator-runs", name + "-" + ProcessHandle.current().pid());
    Files.createDirectories(dir);
    return dir.toAbsolutePath();
  }

  private static String jar(String file) {
    Path p = Path.of(System.getProperty("loam.emulators.dir", "target/emulators"), file);
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException(
          p + " is missing; run the build through Maven (process-test-resources copies it)");
    }
    return p.toAbsolutePath().toString();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
