package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.StreamDescription;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Connect in distributed mode (connect-runtime and the FileStream connectors, in their own
 * JVM from {@code target/kafka-connect-lib}) on the gateway: its config, offset and status topics
 * are compacted streams, its workers form a classic group, a source connector writes a file's lines
 * to a topic and a sink writes them back out; after a worker restart nothing is lost or doubled.
 */
class KafkaConnectIT {
  @TempDir Path dir;
  KafkaTestSupport k;
  Process worker;
  int restPort;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() throws Exception {
    k =
        new KafkaTestSupport(
            dir.resolve("node"),
            KafkaTestSupport.FAST,
            b ->
                b.groups(
                    GroupSettings.classic(
                        Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ofMillis(200))));
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      restPort = s.getLocalPort();
    }
  }

  @AfterEach
  void stop() throws Exception {
    stopWorker();
    k.close();
  }

  private void startWorker() throws IOException, InterruptedException {
    Path props = dir.resolve("worker.properties");
    Files.writeString(
        props,
        String.join(
            "\n",
            "bootstrap.servers=" + k.bootstrap,
            "group.id=loam-connect",
            "key.converter=org.apache.kafka.connect.storage.StringConverter",
            "value.converter=org.apache.kafka.connect.storage.StringConverter",
            "config.storage.topic=connect-configs",
            "offset.storage.topic=connect-offsets",
            "status.storage.topic=connect-status",
            "config.storage.replication.factor=1",
            "offset.storage.replication.factor=1",
            "status.storage.replication.factor=1",
            "offset.storage.partitions=5",
            "status.storage.partitions=1",
            "offset.flush.interval.ms=300",
            "session.timeout.ms=6000",
            "heartbeat.interval.ms=500",
            "scheduled.rebalance.max.delay.ms=1000",
            "listeners=http://127.0.0.1:" + restPort,
            "rest.advertised.host.name=127.0.0.1",
            ""));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
    cmd.add("-cp");
    cmd.add(Path.of("target", "kafka-connect-lib").toAbsolutePath() + "/*");
    cmd.add("org.apache.kafka.connect.cli.ConnectDistributed");
    cmd.add(props.toString());
    worker =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("worker.log").toFile()))
            .start();
    // A Connect worker scans its class path for plugins before it serves REST: about 10 s on an
    // idle 2-core machine, minutes when the machine is saturated; generous, it fails fast on exit.
    eventually("the worker's REST API answers", () -> get("/connectors") == 200, 240);
  }

  private void stopWorker() throws InterruptedException {
    if (worker != null && worker.isAlive()) {
      // SIGTERM: the worker stops its tasks, flushes and commits offsets, and leaves the group.
      worker.destroy();
      if (!worker.waitFor(60, TimeUnit.SECONDS)) {
        worker.destroyForcibly().waitFor();
      }
    }
  }

  private int get(String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                  .timeout(Duration.ofSeconds(10))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private void putConnector(String name, String configJson) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + restPort + "/connectors/" + name + "/config"))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(configJson))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isIn(200, 201);
  }

  private void eventually(String what, BooleanSupplier done, int seconds)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline || (worker != null && !worker.isAlive())) {
        Path log = dir.resolve("worker.log");
        String tail = Files.exists(log) ? Files.readString(log) : "";
        throw new AssertionError(
            "timed out waiting for: "
                + what
                + "\nworker log (end):\n"
                + tail.substring(Math.max(0, tail.length() - 6000)));
      }
      Thread.sleep(100);
    }
  }

  private static List<String> lines(Path f) {
    try {
      return Files.exists(f) ? Files.readAllLines(f) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static void append(Path f, int from, int to) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = from; i < to; i++) {
      // ASCII only: FileStreamSourceTask counts its position in characters and seeks in bytes.
      b.append("line ").append(i).append('\n');
    }
    Files.writeString(
        f,
        b.toString(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  @Test
  void fileSourceToTopicToFileSinkSurvivesAWorkerRestart() throws Exception {
    Path in = dir.resolve("in.txt");
    Path out = dir.resolve("out.txt");
    append(in, 0, 100);
    startWorker();
    putConnector(
        "file-source",
        "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSourceConnector\","
            + "\"tasks.max\":\"1\",\"file\":\""
            + in
            + "\",\"topic\":\"lines\"}");
    putConnector(
        "file-sink",
        "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\","
            + "\"tasks.max\":\"1\",\"file\":\""
            + out
            + "\",\"topics\":\"lines\"}");
    eventually("the sink wrote the 100 lines", () -> lines(out).size() >= 100, 90);
    assertThat(lines(out)).isEqualTo(lines(in));

    // Connect's internal topics are compacted streams.
    for (String t : List.of("connect-configs", "connect-offsets", "connect-status")) {
      StreamDescription d = k.node.log().describeStream("default", t).join();
      assertThat(d.spec().compacted()).as("%s compacted", t).isTrue();
    }

    // Restart the worker; lines written meanwhile arrive once, the earlier ones are not repeated.
    stopWorker();
    append(in, 100, 150);
    startWorker();
    eventually("the sink wrote the 150 lines", () -> lines(out).size() >= 150, 120);
    Thread.sleep(2_000);
    // The topic holds every line once: the source resumed at its committed position.
    assertThat(k.node.log().describeStream("default", "lines").join().partitions())
        .singleElement()
        .satisfies(p -> assertThat(p.highWatermark()).isEqualTo(150));
    assertThat(lines(out)).isEqualTo(lines(in));
  }
}
