package dev.loam.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.bench.load.BenchConfig;
import dev.loam.bench.load.LoadBench;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.examples.LoamCli;
import dev.loam.examples.cli.Launch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --help} of every {@code ./loam} command, run as the launcher runs it (its own JVM): exit
 * status 0, one line per flag of the command's table with its default and meaning, and every flag
 * that any doc (README.md, docs/**.md) shows for that command, in a command line, a synopsis or an
 * options table.
 */
class CliHelpTest {
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"demo", "server", "node", "bench"})
  void helpListsEveryFlagOfTheCommandAndEveryFlagTheDocsShowForIt(String command) throws Exception {
    Command table = command.equals("bench") ? BenchConfig.CMD : LoamCli.commands().get(command);
    for (String help : List.of("--help", "-h")) {
      Launch.Result r =
          command.equals("bench")
              ? Launch.run(TIMEOUT, dir, LoadBench.class.getName(), help)
              : Launch.run(TIMEOUT, dir, LoamCli.class.getName(), command, help);
      assertThat(r.exitCode()).as("%s", r).hasValue(0);
      List<String> lines = r.lines();
      assertThat(lines.get(0)).isEqualTo("usage: loam " + command + " [options]");
      for (Flag<?> f : table.flags()) {
        assertThat(lines)
            .as("the help line of %s", f)
            .anyMatch(
                l ->
                    l.startsWith("  " + f.name() + " ")
                        && l.contains(f.help())
                        && (l.contains("(default: ") || l.contains("(required)")));
      }
      Set<String> documented = documentedFlags(command);
      assertThat(documented).as("flags the docs show for ./loam %s", command).isNotEmpty();
      for (String flag : documented) {
        assertThat(lines)
            .as("%s, shown by the docs for ./loam %s, in its --help", flag, command)
            .anyMatch(l -> l.matches("  (-h, )?" + flag + "( .*)?") || l.contains("also " + flag));
      }
    }
  }

  @Test
  void theLauncherHelpListsTheFourCommands() throws Exception {
    Launch.Result r = Launch.run(TIMEOUT, dir, LoamCli.class.getName(), "--help");
    assertThat(r.exitCode()).as("%s", r).hasValue(0);
    for (String c : List.of("demo", "server", "node", "bench")) {
      assertThat(r.lines()).as("%s", r).anyMatch(l -> l.startsWith("  " + c + "  "));
    }
    Launch.Result none = Launch.run(TIMEOUT, dir, LoamCli.class.getName());
    assertThat(none.exitCode()).hasValue(2);
    assertThat(none.output()).isEqualTo(r.output());
  }

  @Test
  void aBadValueExitsTwoNamingTheFlagAndTheValue() throws Exception {
    Launch.Result r = Launch.run(TIMEOUT, dir, LoamCli.class.getName(), "demo", "--records", "abc");
    assertThat(r.exitCode()).as("%s", r).hasValue(2);
    assertThat(r.lines())
        .containsExactly(
            "loam demo: --records: not an integer: abc", "(loam demo --help lists every option)");
    Launch.Result bench = Launch.run(TIMEOUT, dir, LoadBench.class.getName(), "--rate", "fast");
    assertThat(bench.exitCode()).as("%s", bench).hasValue(2);
    assertThat(bench.lines().get(0)).isEqualTo("loam bench: --rate: not an integer: fast");
  }

  /** Every flag the docs show for {@code ./loam command}. */
  static Set<String> documentedFlags(String command) throws IOException {
    Set<String> out = new TreeSet<>();
    for (String doc : docs()) {
      MarkdownExamples md = MarkdownExamples.read(doc);
      List<MarkdownExamples.CommandLine> lines = new ArrayList<>(md.allCommandLines());
      lines.addAll(md.inlineCommandLines());
      for (MarkdownExamples.CommandLine c : lines) {
        if (c.command().equals(command)) {
          c.args().stream()
              .filter(w -> w.matches("\\[?--[a-z0-9-]+.*"))
              .forEach(w -> out.add(w.replaceAll("^\\[", "").replaceAll("[^a-z0-9-].*$", "")));
        }
      }
      if (command.equals("node") && doc.endsWith("running-a-cluster.md")) {
        out.addAll(md.tableFlags());
      }
    }
    return out;
  }

  /** README.md and every Markdown file under docs/, relative to the repository root. */
  static List<String> docs() throws IOException {
    List<String> out = new ArrayList<>(List.of("README.md"));
    try (Stream<Path> s = Files.walk(MarkdownExamples.ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md"))
          .sorted()
          .forEach(p -> out.add(MarkdownExamples.ROOT.relativize(p).toString()));
    }
    return out;
  }
}
