package dev.loam.sim.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/simulation-for-hosts.md shows {@link OrderServiceSimTest} as it is: the page's
 * example is the source between its {@code doc:begin} and {@code doc:end} markers, so the example a
 * host reads is the one the build compiles and runs.
 */
class SimulationForHostsDocTest {
  static final Path DOC = Path.of("../docs/reference/simulation-for-hosts.md");
  static final Path SOURCE = Path.of("src/test/java/dev/loam/sim/host/OrderServiceSimTest.java");

  @Test
  void thePageShowsTheExampleTheBuildRuns() throws Exception {
    String src = Files.readString(SOURCE);
    int begin = src.indexOf("// doc:begin\n");
    int end = src.indexOf("  // doc:end");
    assertThat(begin).isNotNegative();
    assertThat(end).isGreaterThan(begin);
    String example = src.substring(begin + "// doc:begin\n".length(), end) + "}\n";

    String doc = Files.readString(DOC);
    String marker =
        "<!-- doc-test: source=loam-sim/src/test/java/dev/loam/sim/host/OrderServiceSimTest.java"
            + " -->\n```java\n";
    int at = doc.indexOf(marker);
    assertThat(at).as("the marked example block").isNotNegative();
    int from = at + marker.length();
    String block = doc.substring(from, doc.indexOf("```\n", from));
    assertThat(block).isEqualTo(example);
  }
}
