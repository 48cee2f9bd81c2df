package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/configuration-node.md holds a table generated from {@link NodeSettings}: every
 * component, its default, and its {@code @param} documentation (the record is the one definition);
 * with {@code -Dloam.docs.regenerate=true} this test rewrites that section instead of checking it.
 */
class NodeSettingsReferenceTest {
  private static final Path PAGE = Path.of("..", "docs", "reference", "configuration-node.md");
  private static final Path SOURCE = Path.of("src/main/java/dev/loam/api/NodeSettings.java");
  private static final String BEGIN = "<!-- generated: node-settings -->\n";
  private static final String END = "<!-- end generated: node-settings -->";

  @Test
  void theReferencePageListsEverySettingAsTheRecordDefinesIt() throws Exception {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    int from = page.indexOf(BEGIN);
    int to = page.indexOf(END);
    assertThat(from).as("markers in %s", PAGE).isNotNegative();
    assertThat(to).isGreaterThan(from);
    String generated = page.substring(0, from + BEGIN.length()) + table() + page.substring(to);
    if (Boolean.getBoolean("loam.docs.regenerate")) {
      Files.writeString(PAGE, generated, StandardCharsets.UTF_8);
      return;
    }
    assertThat(page)
        .as(
            "docs/reference/configuration-node.md is out of date with NodeSettings; regenerate it"
                + " with: mvn -B -pl loam-core test -Dtest=NodeSettingsReferenceTest"
                + " -Dloam.docs.regenerate=true")
        .isEqualTo(generated);
  }

  private static String table() throws Exception {
    Map<String, String> docs = paramDocs(Files.readString(SOURCE, StandardCharsets.UTF_8));
    NodeSettings d = NodeSettings.defaults();
    StringBuilder b = new StringBuilder();
    b.append("| setting | default | meaning |\n| --- | --- | --- |\n");
    for (RecordComponent c : NodeSettings.class.getRecordComponents()) {
      String doc = docs.get(c.getName());
      assertThat(doc).as("@param %s in NodeSettings' Javadoc", c.getName()).isNotBlank();
      Object value = c.getAccessor().invoke(d);
      b.append("| `")
          .append(c.getName())
          .append("` | ")
          .append(format(c.getName(), value))
          .append(" | ")
          .append(doc.replace("|", "\\|"))
          .append(" |\n");
    }
    return b.toString();
  }

  /** The {@code @param} texts of the record's class Javadoc, folded onto one line each. */
  static Map<String, String> paramDocs(String source) {
    String javadoc = source.substring(0, source.indexOf("public record NodeSettings("));
    javadoc = javadoc.substring(javadoc.lastIndexOf("/**"));
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile("@param (\\w+) (.*?)(?=\\n \\*\\s*@param |\\n \\*/)", Pattern.DOTALL)
            .matcher(javadoc);
    while (m.find()) {
      String text = m.group(2).replaceAll("\\n \\*\\s*", " ").replaceAll("\\s+", " ").trim();
      text =
          text.replaceAll("\\{@link #(\\w+)}", "`$1`").replaceAll("\\{@link ([\\w.#]+)}", "`$1`");
      out.put(m.group(1), text);
    }
    return out;
  }

  private static String format(String name, Object v) {
    if (v == null) {
      return "none";
    }
    if (v instanceof String s) {
      return s.isEmpty() ? "empty" : "`" + s + "`";
    }
    if (v instanceof Duration d) {
      long ms = d.toMillis();
      if (ms % 3_600_000 == 0) {
        return ms / 3_600_000 + " h";
      }
      if (ms % 60_000 == 0) {
        return ms / 60_000 + " min";
      }
      if (ms % 1000 == 0) {
        return ms / 1000 + " s";
      }
      return ms + " ms";
    }
    if (v instanceof Number n && name.endsWith("Bytes")) {
      long x = n.longValue();
      if (x == Integer.MAX_VALUE) {
        return "2147483647 (no limit)";
      }
      if (x > 0 && x % (1L << 20) == 0) {
        return (x >> 20) + " MiB";
      }
      if (x > 0 && x % 1024 == 0) {
        return (x >> 10) + " KiB";
      }
    }
    return String.valueOf(v);
  }
}
