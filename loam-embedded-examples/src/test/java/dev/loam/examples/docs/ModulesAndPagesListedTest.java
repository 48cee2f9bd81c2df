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
 * The two indexes a reader starts from stay complete: README.md's module table names every module
 * of the build, and docs/README.md links every page under docs/.
 */
class ModulesAndPagesListedTest {
  private static final Path ROOT = MarkdownExamples.ROOT;

  @Test
  void theReadmeNamesEveryModule() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
    List<String> modules = new ArrayList<>();
    while (m.find()) {
      modules.add(m.group(1));
    }
    assertThat(modules).as("modules of the build").hasSizeGreaterThan(20);
    String readme = Files.readString(ROOT.resolve("README.md"));
    String table = readme.substring(readme.indexOf("## Modules"));
    table = table.substring(0, table.indexOf("\n## ", 1));
    List<String> missing = new ArrayList<>();
    for (String module : modules) {
      if (!table.contains("`" + module + "`")) {
        missing.add(module);
      }
    }
    assertThat(missing).as("modules missing from README.md's module table").isEmpty();
  }

  @Test
  void theDocsIndexLinksEveryPage() throws IOException {
    Path docs = ROOT.resolve("docs");
    String index = Files.readString(docs.resolve("README.md"));
    List<String> missing = new ArrayList<>();
    try (Stream<Path> files = Files.walk(docs)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String rel = docs.relativize(f).toString();
        if (rel.endsWith(".md") && !rel.equals("README.md") && !index.contains("(" + rel + ")")) {
          missing.add(rel);
        }
      }
    }
    assertThat(missing).as("pages docs/README.md does not link").isEmpty();
  }
}
