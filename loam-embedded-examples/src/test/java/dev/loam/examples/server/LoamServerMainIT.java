package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.http.Curl;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam server} as a separate process, driven with curl: it serves, stops cleanly on SIGTERM,
 * and a restart on the same data directory serves what was acknowledged.
 */
class LoamServerMainIT {
  static final Pattern SERVING = Pattern.compile("serving (https?://[0-9.]+:[0-9]+)");
  static final Pattern OTLP_HTTP = Pattern.compile(" otlp-http=([0-9.]+:[0-9]+)");
  static final Pattern OTLP_GRPC = Pattern.compile(" otlp-grpc=([0-9.]+:[0-9]+)");

  @TempDir Path dir;

  /** A launched server: its process, the rest of its output, its URL and the line naming it. */
  record Server(Process process, BufferedReader out, String url, String servingLine) {}

  static Server launch(Path dataDir, String... extraArgs) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.loam.examples.server.LoamServerMain",
                "--data-dir",
                dataDir.toString(),
                "--port",
                "0",
                "--node-id",
                "main-1"));
    cmd.addAll(List.of(extraArgs));
    if (List.of(extraArgs).stream().noneMatch(a -> a.startsWith("--otlp-"))) {
      // The OTLP default ports are fixed ones: tests that do not exercise OTLP leave them free.
      cmd.addAll(List.of("--otlp-http-port", "off", "--otlp-grpc-port", "off"));
    }
    if (List.of(extraArgs).stream().noneMatch(a -> a.startsWith("--grpc-"))) {
      // So is the gRPC default port.
      cmd.addAll(List.of("--grpc-port", "off"));
    }
    if (List.of(extraArgs).stream().noneMatch(a -> a.startsWith("--flight-"))) {
      // And the Arrow Flight one.
      cmd.addAll(List.of("--flight-port", "off"));
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    String line;
    while ((line = out.readLine()) != null) {
      seen.add(line);
      Matcher m = SERVING.matcher(line);
      if (m.find()) {
        return new Server(p, out, m.group(1), line);
      }
    }
    throw new AssertionError("the server exited before serving: " + seen);
  }

  static List<String> stop(Server s) throws Exception {
    // SIGTERM as a service manager sends it (Process.destroy would also close our pipe).
    Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(s.process().pid())).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
    List<String> rest = new ArrayList<>();
    String line;
    while ((line = s.out().readLine()) != null) {
      rest.add(line);
    }
    assertThat(s.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    return rest;
  }

  @Test
  void servesStopsOnSigtermAndKeepsAcknowledgedRecords() throws Exception {
    Curl.requireCurl();
    Path data = dir.resolve("data");
    Server s = launch(data);
    String ct = "content-type: application/json";
    assertThat(
            Curl.run(
                    "-X",
                    "POST",
                    s.url() + "/v1/namespaces/default/streams",
                    "-H",
                    ct,
                    "-d",
                    "{\"name\":\"events\",\"partitions\":1}")
                .status())
        .isEqualTo(201);
    Curl.Result p =
        Curl.run(
            "-X",
            "POST",
            s.url() + "/v1/namespaces/default/streams/events/records",
            "-H",
            ct,
            "-d",
            "{\"records\":[{\"key\":\"a\",\"value\":\"kept\"}]}");
    assertThat(p.status()).isEqualTo(200);
    assertThat(stop(s)).contains("loam: stopped");

    Server again = launch(data);
    try {
      Curl.Result f =
          Curl.run(
              again.url() + "/v1/namespaces/default/streams/events/partitions/0/records?offset=0");
      assertThat(f.status()).isEqualTo(200);
      assertThat(f.body()).contains("\"value\":\"kept\"");
    } finally {
      stop(again);
    }
  }

  @Test
  void ingestQuotaFlagLimitsEachNamespace() throws Exception {
    Curl.requireCurl();
    // 1 byte/s with a burst of 1: the first produce is admitted (into debt), the next is 429 for
    // many seconds of wall-clock time, so the test does not race the clock.
    Server s = launch(dir.resolve("data"), "--ingest-quota-bytes-per-sec", "1");
    try {
      String ct = "content-type: application/json";
      assertThat(
              Curl.run(
                      "-X",
                      "POST",
                      s.url() + "/v1/namespaces/default/streams",
                      "-H",
                      ct,
                      "-d",
                      "{\"name\":\"events\",\"partitions\":1}")
                  .status())
          .isEqualTo(201);
      String records = s.url() + "/v1/namespaces/default/streams/events/records";
      String body = "{\"records\":[{\"value\":\"twenty bytes of data\"}]}";
      assertThat(Curl.run("-X", "POST", records, "-H", ct, "-d", body).status()).isEqualTo(200);
      Curl.Result over = Curl.run("-X", "POST", records, "-H", ct, "-d", body);
      assertThat(over.status()).as(over.body()).isEqualTo(429);
      assertThat(over.body()).contains("\"code\":\"quota_exceeded\"", "\"namespace\":\"default\"");
      assertThat(Long.parseLong(over.header("Retry-After"))).isBetween(1L, 40L);
    } finally {
      stop(s);
    }
  }

  @Test
  void otlpPortsServeLogsWithTheHttpApisAuthentication() throws Exception {
    Curl.requireCurl();
    Server s =
        launch(
            dir.resolve("data"),
            "--kafka-port",
            "off",
            "--otlp-http-port",
            "0",
            "--otlp-grpc-port",
            "0",
            "--otlp-key-attribute",
            "otel_logs=service.name");
    try {
      Matcher http = OTLP_HTTP.matcher(s.servingLine());
      assertThat(http.find()).as(s.servingLine()).isTrue();
      assertThat(OTLP_GRPC.matcher(s.servingLine()).find()).as(s.servingLine()).isTrue();
      String logs = "http://" + http.group(1) + "/v1/logs";
      Curl.Result r =
          Curl.run(
              "-X",
              "POST",
              logs,
              "-H",
              "content-type: application/json",
              "-d",
              "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":{\"stringValue\":\"hi\"}}]}]}]}");
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      // Stored in otel_logs, created on first use with four partitions: one holds the record.
      Curl.Result described = Curl.run(s.url() + "/v1/namespaces/default/streams/otel_logs");
      assertThat(described.status()).as(described.body()).isEqualTo(200);
      Matcher hw = Pattern.compile("\"high_watermark\":(\\d+)").matcher(described.body());
      long total = 0;
      int partitions = 0;
      while (hw.find()) {
        total += Long.parseLong(hw.group(1));
        partitions++;
      }
      assertThat(partitions).as(described.body()).isEqualTo(4);
      assertThat(total).as(described.body()).isEqualTo(1);
    } finally {
      stop(s);
    }
  }
}
