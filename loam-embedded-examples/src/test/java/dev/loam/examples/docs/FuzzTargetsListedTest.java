package dev.loam.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Jazzer fuzz target in the tree is one {@code build/fuzz.sh} runs and one
 * docs/operations/fuzzing.md describes, under its own module: a target missing from the script is
 * never fuzzed by the nightly run, one missing from the page has no written contract.
 */
class FuzzTargetsListedTest {
  private static final Path ROOT = MarkdownExamples.ROOT;

  @Test
  void everyFuzzTargetIsInTheScriptAndOnThePage() throws IOException {
    List<String> targets = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT, 12)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        String rel = ROOT.relativize(f).toString();
        if (name.endsWith("FuzzTest.java")
            && rel.contains("/src/test/java/")
            && Files.readString(f).contains("@FuzzTest")) {
          targets.add(rel.substring(0, rel.indexOf('/')) + " " + name.replace(".java", ""));
        }
      }
    }
    assertThat(targets).as("fuzz targets found").hasSizeGreaterThanOrEqualTo(15);

    String script = Files.readString(ROOT.resolve("build/fuzz.sh"));
    List<String> scripted = new ArrayList<>();
    Matcher m = Pattern.compile("\"(loam-[a-z-]+ [A-Za-z]+FuzzTest)(?: [^\"]*)?\"").matcher(script);
    while (m.find()) {
      scripted.add(m.group(1));
    }
    assertThat(scripted)
        .as("targets in build/fuzz.sh")
        .containsExactlyInAnyOrderElementsOf(targets);

    String page = Files.readString(ROOT.resolve("docs/operations/fuzzing.md"));
    List<String> documented = new ArrayList<>();
    Matcher row =
        Pattern.compile("(?m)^\\| (loam-[a-z-]+) \\| `([A-Za-z]+FuzzTest)` \\|").matcher(page);
    while (row.find()) {
      documented.add(row.group(1) + " " + row.group(2));
    }
    assertThat(documented)
        .as("targets in docs/operations/fuzzing.md's table")
        .containsExactlyInAnyOrderElementsOf(targets);
  }
}
