package dev.loam.http.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.http.Curl;
import dev.loam.http.LoamHttpServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the curl examples of docs/reference/http-api.md in page order against a {@link
 * LoamHttpServer} on a fresh embedded node, and fails when an answer's status, a shown header or a
 * shown JSON member differs from what the page shows (conventions: {@link DocExamples}, and the top
 * of the page's examples). The page is thus one session a reader can repeat: each example follows
 * from the ones before it.
 *
 * <p>It runs the real {@code curl}, through {@code bash}, with each command's text exactly as the
 * page shows it (its quoting, its {@code -d} bodies spread over lines, {@code $B}, {@code $J} and
 * the variables the page sets), adding only {@code -i} so the status and headers can be read. What
 * a reader pastes is therefore what is tested; the JDK client would test a translation of it. The
 * node is {@code node-1}, advertising {@code 10.0.0.5:8080} in zone {@code eu-west-1a} with 4
 * slots, with a Kafka listener at {@code 10.0.0.5:9092} in the node registry, as the page's
 * examples show (nothing is ever sent to those addresses).
 */
class HttpApiExamplesIT {
  private static final Path DOC = Path.of("docs", "reference", "http-api.md");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void theExamplesOfTheReferenceRunInOrderAndAnswerAsShown() throws Exception {
    Curl.requireCurl();
    List<DocExamples.Example> examples = DocExamples.parse(Files.readAllLines(docPath()));
    assertThat(examples.stream().filter(e -> !e.isAssignment()).count())
        .as("curl examples in " + DOC)
        .isGreaterThan(20);
    NodeSettings settings =
        NodeSettings.defaults()
            .withFlushInterval(Duration.ofMillis(5))
            .withIdentity("10.0.0.5:8080", "eu-west-1a", 4);
    List<String> failures = new ArrayList<>();
    try (LoamNode node =
            LoamNode.builder().nodeId("node-1").dataDir(dir).settings(settings).start();
        LoamHttpServer http = LoamHttpServer.builder().node(node).port(0).ioThreads(2).start()) {
      // What the Kafka gateway publishes when it starts (loam-kafka is not a dependency here).
      node.log().advertiseEndpoint("kafka", "10.0.0.5:9092").get();
      StringBuilder env = new StringBuilder();
      env.append("B=http://127.0.0.1:").append(http.port()).append('\n');
      env.append("J='content-type: application/json'\n");
      for (DocExamples.Example e : examples) {
        if (e.isAssignment()) {
          env.append(e.variable()).append('=').append(e.value()).append('\n');
          continue;
        }
        String problem = check(e, run(env + e.command() + " -i"));
        if (problem != null) {
          failures.add(DOC + ":" + e.line() + " " + firstLine(e.command()) + "\n    " + problem);
        }
      }
    }
    assertThat(failures).as("examples of " + DOC + " that do not answer as shown").isEmpty();
  }

  /** The answer of one command: status, headers (lower-case names) and body. */
  private record Answer(int status, List<String> headers, String body) {}

  private static String check(DocExamples.Example e, Answer a) throws IOException {
    List<String> shown = new ArrayList<>(e.shown());
    Integer expected = e.expectedStatus();
    if (!shown.isEmpty() && shown.get(0).startsWith("HTTP/")) {
      expected = Integer.valueOf(shown.get(0).split(" ")[1]);
      int blank = shown.indexOf("");
      List<String> headers = shown.subList(1, blank < 0 ? shown.size() : blank);
      for (String h : headers) {
        if (!hasHeader(a.headers(), h)) {
          return "header " + h + " not in the answer " + a.headers();
        }
      }
      shown = blank < 0 ? List.of() : new ArrayList<>(shown.subList(blank + 1, shown.size()));
    }
    if (expected == null ? a.status() / 100 != 2 : a.status() != expected) {
      return "status "
          + a.status()
          + ", shown "
          + (expected == null ? "2xx" : expected)
          + ": "
          + a.body();
    }
    if (shown.isEmpty()) {
      return null;
    }
    String text = String.join("\n", shown).trim();
    if (text.startsWith("{") || text.startsWith("[")) {
      JsonNode pattern = DocExamples.parsePattern(text);
      JsonNode actual;
      try {
        actual = JSON.readTree(a.body());
      } catch (IOException ex) {
        return "the answer is not JSON: " + a.body();
      }
      String m = DocExamples.mismatch(pattern, actual, "$");
      return m == null ? null : m + "\n    answer: " + a.body();
    }
    return DocExamples.textMismatch(shown, a.body());
  }

  private static boolean hasHeader(List<String> actual, String shown) {
    int c = shown.indexOf(':');
    String name = shown.substring(0, c).trim().toLowerCase(Locale.ROOT);
    String value = shown.substring(c + 1).trim();
    for (String h : actual) {
      int hc = h.indexOf(':');
      if (hc > 0 && h.substring(0, hc).trim().equals(name)) {
        String v = h.substring(hc + 1).trim();
        if (value.equals(DocExamples.VARIES) || v.equalsIgnoreCase(value)) {
          return true;
        }
      }
    }
    return false;
  }

  private static Answer run(String script) {
    try {
      Process p = new ProcessBuilder("bash", "-c", script).start();
      byte[] out = p.getInputStream().readAllBytes();
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new AssertionError("curl failed: " + script + "\n" + err);
      }
      String all = new String(out, StandardCharsets.UTF_8);
      while (all.startsWith("HTTP/1.1 100")) {
        all = all.substring(all.indexOf("\r\n\r\n") + 4);
      }
      int split = all.indexOf("\r\n\r\n");
      String head = split < 0 ? all : all.substring(0, split);
      String body = split < 0 ? "" : all.substring(split + 4);
      List<String> lines = head.lines().toList();
      int status = Integer.parseInt(lines.get(0).split(" ")[1]);
      List<String> headers = new ArrayList<>();
      for (String l : lines.subList(1, lines.size())) {
        int c = l.indexOf(':');
        headers.add(l.substring(0, c).trim().toLowerCase(Locale.ROOT) + ":" + l.substring(c + 1));
      }
      return new Answer(status, headers, body);
    } catch (IOException e) {
      throw new AssertionError("cannot run bash/curl: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl) + " ...";
  }

  private static Path docPath() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(DOC))) {
        return d.resolve(DOC);
      }
    }
    throw new AssertionError("no " + DOC + " at or above the working directory");
  }
}
