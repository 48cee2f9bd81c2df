package dev.loam.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.LoamNode;
import dev.loam.bench.load.BenchConfig;
import dev.loam.cli.Command;
import dev.loam.cli.UsageException;
import dev.loam.examples.LoamCli;
import dev.loam.examples.cli.Launch;
import dev.loam.examples.fault.FaultRates;
import dev.loam.http.LoamHttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples of README.md, docs/operations/running-a-cluster.md and docs/reference/client.md, as
 * their {@code <!-- doc-test: ... -->} markers say (README.md, "Examples that are tested"): every
 * fenced block is marked; every {@code ./loam} command line parses with the command's own option
 * table; the Java snippets compile and run (the client's against a node serving HTTP); the fault
 * file example is a valid fault file; the {@code ./loam demo} walkthroughs run. The three-process
 * walkthrough is {@link ClusterWalkthroughIT}.
 */
class DocExamplesIT {
  static final List<String> TESTED_DOCS =
      List.of("README.md", "docs/operations/running-a-cluster.md", "docs/reference/client.md");
  static final Set<String> MODES =
      Set.of("parse", "curl", "ready-line", "java", "fault-file", "none");
  static final Set<String> RUNS = Set.of("demo", "cluster-demo", "process-cluster");
  static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path dir;

  @Test
  void everyBlockOfTheTestedDocsSaysHowItIsTested() throws Exception {
    List<String> runs = new ArrayList<>();
    for (String doc : TESTED_DOCS) {
      for (MarkdownExamples.Block b : MarkdownExamples.read(doc).blocks()) {
        assertThat(b.mode())
            .as("the doc-test marker before the block at %s", b.where())
            .isNotNull();
        assertThat(MODES).as("the mode of %s", b.where()).contains(b.mode());
        if (b.mode().equals("none")) {
          assertThat(b.modeArgs()).as("why %s is not tested", b.where()).matches("\\(.+\\)");
        }
        for (String arg : b.modeArgs().split(" ")) {
          if (arg.startsWith("run=")) {
            assertThat(RUNS).as("the run of %s", b.where()).contains(arg.substring(4));
            runs.add(arg.substring(4));
          }
        }
      }
    }
    // Each walkthrough has exactly the blocks its test runs.
    assertThat(runs)
        .containsExactlyInAnyOrder("demo", "cluster-demo", "process-cluster", "process-cluster");
  }

  @Test
  void everyLoamCommandLineOfTheDocsParsesWithTheRealOptionTables() throws Exception {
    int checked = 0;
    for (String doc : TESTED_DOCS) {
      MarkdownExamples md = MarkdownExamples.read(doc);
      for (MarkdownExamples.CommandLine c : md.commandLines("parse")) {
        validate(c);
        checked++;
      }
      for (MarkdownExamples.CommandLine c : md.inlineCommandLines()) {
        for (String w : c.args()) {
          String flag = w.replaceAll("^\\[", "").replaceAll("[^a-z0-9-].*$", "");
          if (flag.startsWith("--") && !flag.equals("--help")) {
            assertThat(table(c).flag(flag)).as("%s in %s", flag, c).isPresent();
          }
        }
      }
    }
    // README: two demos, a node, a Kafka-serving server, an OTLP-serving server and three
    // ./loam keys lines; running-a-cluster.md: three nodes and a ./loam partitions move.
    assertThat(checked).isEqualTo(12);
    // The parser is the real one: a drifted flag or value would fail.
    assertThatThrownBy(() -> LoamCli.validate("demo", "--recrods", "5"))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--recrods: unknown option");
  }

  @Test
  void theJavaSnippetsCompileAndRun() throws Exception {
    MarkdownExamples.Block readme = single("README.md", "java");
    Path work = Files.createTempDirectory(dir, "snippet");
    Launch.Result r = compileAndRun(readme, Map.of(), work);
    assertThat(r.exitCode()).as("%s", r).hasValue(0);
    assertThat(r.lines()).as("%s", r).anyMatch(l -> l.matches("0 \\{\"total\": 12.5\\}"));
    // Again on the same loam-data: the namespace and stream exist, the run goes on after them
    // (its append lands after the first run's two records of that partition).
    Launch.Result again =
        Launch.run(TIMEOUT, work, List.of(work.resolve("classes")), JavaSnippets.CLASS);
    assertThat(again.exitCode()).as("%s", again).hasValue(0);
    assertThat(again.lines()).as("%s", again).anyMatch(l -> l.matches("2 \\{\"total\": 12.5\\}"));

    MarkdownExamples.Block settings = single("docs/operations/running-a-cluster.md", "java");
    Launch.Result s = compileAndRun(settings, Map.of());
    assertThat(s.exitCode()).as("%s", s).hasValue(0);
    assertThat(s.output()).contains("NodeSettings[");
  }

  @Test
  void theClientSnippetRunsAgainstANodeServingHttp() throws Exception {
    MarkdownExamples.Block client = single("docs/reference/client.md", "java");
    assertThat(client.modeArgs()).isEqualTo("server");
    assertThat(client.text()).contains("http://127.0.0.1:8080");
    try (LoamNode node = LoamNode.builder().nodeId("doc").dataDir(dir.resolve("node")).start();
        LoamHttpServer server =
            LoamHttpServer.builder().node(node).host("127.0.0.1").port(0).start()) {
      String url = "http://127.0.0.1:" + server.port();
      Launch.Result r = compileAndRun(client, Map.of("http://127.0.0.1:8080", url));
      assertThat(r.exitCode()).as("%s", r).hasValue(0);
      // What client.md says it prints.
      assertThat(r.lines()).as("%s", r).contains("appended at offset 0", "0 user-1=hello");
    }
  }

  @Test
  void theFaultFileExampleIsAValidFaultFile() throws Exception {
    MarkdownExamples.Block f = single("docs/operations/running-a-cluster.md", "fault-file");
    assertThat(FaultRates.parse(f.text())).isEqualTo(new FaultRates(0.2, 0.1, 0.2));
  }

  @Test
  void theDemoWalkthroughsRun() throws Exception {
    for (String run : List.of("demo", "cluster-demo")) {
      List<MarkdownExamples.CommandLine> lines = runLines("README.md", run);
      assertThat(lines).as(run).hasSize(1);
      List<String> words = withTempDataDir(lines.get(0).words(), dir.resolve(run));
      Launch.Result r =
          Launch.run(TIMEOUT, dir, LoamCli.class.getName(), words.toArray(String[]::new));
      assertThat(r.exitCode()).as("%s: %s", lines.get(0), r).hasValue(0);
      assertThat(r.lines()).as("%s", r).anyMatch(l -> l.startsWith("OK: every"));
    }
  }

  /** The {@code ./loam} lines of the blocks of {@code doc} marked {@code run=NAME}. */
  static List<MarkdownExamples.CommandLine> runLines(String doc, String name) throws Exception {
    MarkdownExamples md = MarkdownExamples.read(doc);
    return md.commandLines("parse").stream()
        .filter(
            c ->
                md.blocks().stream()
                    .anyMatch(
                        b ->
                            c.where().equals(b.where())
                                && List.of(b.modeArgs().split(" ")).contains("run=" + name)))
        .toList();
  }

  /** {@code words} with {@code --data-dir} in {@code dataDir}, and 2000 records unless given. */
  static List<String> withTempDataDir(List<String> words, Path dataDir) {
    List<String> out = new ArrayList<>(words);
    int i = out.indexOf("--data-dir");
    if (i >= 0) {
      out.set(i + 1, dataDir.toString());
    } else {
      out.addAll(List.of("--data-dir", dataDir.toString()));
    }
    if (!out.contains("--records")) {
      out.addAll(List.of("--records", "2000"));
    }
    return out;
  }

  private static void validate(MarkdownExamples.CommandLine c) {
    try {
      if (c.command().equals("bench")) {
        BenchConfig.parse(c.args().toArray(String[]::new));
      } else {
        LoamCli.validate(c.words().toArray(String[]::new));
      }
    } catch (IllegalArgumentException e) {
      throw new AssertionError(c + " does not parse: " + e.getMessage(), e);
    }
  }

  private static Command table(MarkdownExamples.CommandLine c) {
    Command t = c.command().equals("bench") ? BenchConfig.CMD : LoamCli.commands().get(c.command());
    assertThat(t).as("the command of %s", c).isNotNull();
    return t;
  }

  private static MarkdownExamples.Block single(String doc, String mode) throws Exception {
    List<MarkdownExamples.Block> b = MarkdownExamples.read(doc).blocks(mode);
    assertThat(b).as("%s blocks of %s", mode, doc).hasSize(1);
    return b.get(0);
  }

  private Launch.Result compileAndRun(MarkdownExamples.Block b, Map<String, String> replace)
      throws Exception {
    return compileAndRun(b, replace, Files.createTempDirectory(dir, "snippet"));
  }

  private Launch.Result compileAndRun(
      MarkdownExamples.Block b, Map<String, String> replace, Path work) throws Exception {
    Path classes = Files.createDirectories(work.resolve("classes"));
    JavaSnippets.compile(JavaSnippets.source(b, replace), classes);
    return Launch.run(TIMEOUT, work, List.of(classes), JavaSnippets.CLASS);
  }
}
