package dev.loam.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.examples.LoamCli;
import dev.loam.examples.process.ProcessCluster;
import dev.loam.http.Curl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The three-process walkthrough of docs/operations/running-a-cluster.md, run for real: the page's
 * three {@code ./loam node} lines parse and give each node what {@link ProcessCluster} gives its
 * nodes (own id, zone, data directory and HTTP port 8081..8083, the same peers and store); three
 * node processes start; the page's sample ready line has the fields of a real one, in order; and
 * its {@code curl} lines run in order against the cluster ({@code localhost:8081}..{@code 8083}
 * mapped to the nodes), each answer matching the {@code # ->} line after its command.
 */
class ClusterWalkthroughIT {
  static final String DOC = "docs/operations/running-a-cluster.md";
  static final Pattern LOCALHOST = Pattern.compile("localhost:808([1-3])");
  static final Pattern TOKEN = Pattern.compile("\"token\":\"(\\d+)\"");
  static final Pattern FIELD = Pattern.compile(" ([a-z_]+)=");

  @Test
  void theThreeNodeWalkthroughRunsAsWritten() throws Exception {
    Curl.requireCurl();
    List<MarkdownExamples.CommandLine> nodes = DocExamplesIT.runLines(DOC, "process-cluster");
    assertThat(nodes).hasSize(3);
    Set<String> peers = new LinkedHashSet<>();
    Set<String> stores = new LinkedHashSet<>();
    for (int i = 0; i < 3; i++) {
      MarkdownExamples.CommandLine c = nodes.get(i);
      assertThat(c.command()).isEqualTo("node");
      LoamCli.validate(c.words().toArray(String[]::new));
      assertThat(value(c, "--id")).isEqualTo("n" + (i + 1));
      assertThat(value(c, "--zone")).isEqualTo("zone-" + (char) ('a' + i));
      assertThat(value(c, "--http-port")).isEqualTo("808" + (i + 1));
      assertThat(value(c, "--data-dir")).endsWith("/n" + (i + 1));
      peers.add(value(c, "--peers"));
      stores.add(value(c, "--store"));
      assertThat(flags(c))
          .containsExactly("--id", "--zone", "--peers", "--data-dir", "--store", "--http-port");
    }
    assertThat(peers).hasSize(1);
    assertThat(stores).hasSize(1);

    Map<Integer, String> readyLines = new ConcurrentHashMap<>();
    try (ProcessCluster cluster =
        ProcessCluster.builder()
            .nodes(3)
            .logDir(Path.of("target", "process-cluster", getClass().getSimpleName()))
            .readyTimeout(Duration.ofSeconds(120))
            .lineListener(
                (node, line) -> {
                  if (line.contains(" ready http=")) {
                    readyLines.putIfAbsent(node, line);
                  }
                })
            .start()) {
      String sample = single("ready-line").text().strip();
      assertThat(sample).startsWith("loam: node n1 ready http=");
      assertThat(fields(sample)).isEqualTo(fields(readyLines.get(0)));

      runCurlBlock(cluster);
    }
  }

  /**
   * Runs the curl lines in order; a {@code # -> } line is the expected answer of the one before.
   */
  private static void runCurlBlock(ProcessCluster cluster) throws Exception {
    String text = single("curl").text().replace("\n# -> ", "\nEXPECT ");
    String lastAnswer = null;
    String token = null;
    int ran = 0;
    for (String line : MarkdownExamples.logicalLines(text)) {
      if (line.startsWith("EXPECT ")) {
        String expected = line.substring("EXPECT ".length());
        assertThat(lastAnswer).as("the answer before %s", expected).isNotNull();
        assertThat(TOKEN.matcher(lastAnswer).replaceAll("\"token\":\"T\""))
            .isEqualTo(TOKEN.matcher(expected).replaceAll("\"token\":\"T\""));
        continue;
      }
      assertThat(line).startsWith("curl ");
      String cmd = mapPorts(line, cluster);
      if (token != null) {
        cmd = cmd.replaceAll("min_token=\\d+", "min_token=" + token);
      }
      lastAnswer = bash(cmd);
      assertThat(lastAnswer).as("%s answered a problem", cmd).doesNotContain("urn:loam:problem");
      Matcher t = TOKEN.matcher(lastAnswer);
      if (t.find()) {
        token = t.group(1);
      }
      if (cmd.contains("/records?offset=0")) {
        assertThat(lastAnswer).as(cmd).contains("\"value\":\"hello\"");
      }
      if (cmd.endsWith("/v1/cluster/nodes")) {
        assertThat(lastAnswer).contains("\"n1\"", "\"n2\"", "\"n3\"");
      }
      ran++;
    }
    assertThat(ran).isEqualTo(4);
  }

  private static String mapPorts(String line, ProcessCluster cluster) {
    Matcher m = LOCALHOST.matcher(line);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      int node = Integer.parseInt(m.group(1)) - 1;
      m.appendReplacement(b, cluster.httpUrl(node).replace("http://", ""));
    }
    m.appendTail(b);
    return b.toString();
  }

  private static String bash(String cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(cmd).isTrue();
    assertThat(p.exitValue()).as("%s: %s", cmd, out).isZero();
    return out.strip();
  }

  private static MarkdownExamples.Block single(String mode) throws IOException {
    List<MarkdownExamples.Block> b = MarkdownExamples.read(DOC).blocks(mode);
    assertThat(b).as("%s blocks of %s", mode, DOC).hasSize(1);
    return b.get(0);
  }

  private static List<String> fields(String readyLine) {
    List<String> out = new ArrayList<>();
    Matcher m = FIELD.matcher(readyLine);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String value(MarkdownExamples.CommandLine c, String flag) {
    int i = c.args().indexOf(flag);
    assertThat(i).as("%s in %s", flag, c).isNotNegative();
    return c.args().get(i + 1);
  }

  private static List<String> flags(MarkdownExamples.CommandLine c) {
    return c.args().stream().filter(w -> w.startsWith("--")).toList();
  }
}
