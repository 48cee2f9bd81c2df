package dev.loam.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The definition table: typed parsing, errors naming the parameter, secrets, the markdown. */
class UriParametersTest {
  record Target(String host, String token, boolean on, int count, long size, Duration pause) {
    static Target empty() {
      return new Target("", "", false, 0, 0, Duration.ZERO);
    }
  }

  static final UriParameters<Target> TABLE =
      UriParameters.<Target>builder()
          .string(
              "host",
              "localhost",
              "where | to <go>",
              (t, v) -> new Target(v, t.token(), t.on(), t.count(), t.size(), t.pause()))
          .secret(
              "token",
              "",
              "a secret",
              (t, v) -> new Target(t.host(), v, t.on(), t.count(), t.size(), t.pause()))
          .bool(
              "on",
              "false",
              "a switch",
              (t, v) -> new Target(t.host(), t.token(), v, t.count(), t.size(), t.pause()))
          .integer(
              "count",
              "1",
              "an int",
              (t, v) -> new Target(t.host(), t.token(), t.on(), v, t.size(), t.pause()))
          .longValue(
              "size-bytes",
              "2",
              "a long",
              (t, v) -> new Target(t.host(), t.token(), t.on(), t.count(), v, t.pause()))
          .millis(
              "wait-ms",
              "3",
              "a duration",
              (t, v) -> new Target(t.host(), t.token(), t.on(), t.count(), t.size(), v))
          .build();

  private static Target apply(String name, String value) {
    return TABLE.find(name).orElseThrow().applyTo(Target.empty(), value);
  }

  private static void assertRefused(String name, String value, String message) {
    assertThatThrownBy(() -> apply(name, value))
        .isInstanceOfSatisfying(
            UriParameters.InvalidParameterException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
              assertThat(e.parameter()).isEqualTo(name);
            })
        .hasMessage(message);
  }

  @Test
  void eachTypeParsesItsValues() {
    assertThat(apply("host", "h").host()).isEqualTo("h");
    assertThat(apply("token", "s3cr3t").token()).isEqualTo("s3cr3t");
    assertThat(apply("on", "true").on()).isTrue();
    assertThat(apply("on", "false").on()).isFalse();
    assertThat(apply("count", "-7").count()).isEqualTo(-7);
    assertThat(apply("size-bytes", "9000000000").size()).isEqualTo(9_000_000_000L);
    assertThat(apply("wait-ms", "1500").pause()).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void badValuesFailInvalidNamingTheParameter() {
    assertRefused("on", "yes", "expected true or false on=yes");
    assertRefused("on", "TRUE", "expected true or false on=TRUE");
    assertRefused("count", "x", "expected a whole number count=x");
    assertRefused("count", "2147483648", "number out of range count=2147483648");
    assertRefused("size-bytes", "1.5", "expected a whole number size-bytes=1.5");
    assertRefused("wait-ms", "", "expected a whole number wait-ms=");
    assertThatThrownBy(() -> UriParameters.parseLong("n", "-1", 0, 10))
        .hasMessage("number out of range n=-1");
  }

  @Test
  void theTableKnowsItsNamesInOrder() {
    assertThat(TABLE.names())
        .containsExactly("host", "token", "on", "count", "size-bytes", "wait-ms");
    assertThat(TABLE.find("nope")).isEmpty();
    assertThat(TABLE.find("token").orElseThrow().secret()).isTrue();
    assertThat(TABLE.find("host").orElseThrow().secret()).isFalse();
    assertThatThrownBy(
            () ->
                UriParameters.<Target>builder()
                    .string("a", "", "", (t, v) -> t)
                    .string("a", "", "", (t, v) -> t))
        .hasMessageContaining("parameter=a");
  }

  @Test
  void theMarkdownListsEveryParameterWithTypeDefaultAndDescription() {
    assertThat(TABLE.toMarkdown().lines().toList())
        .isEqualTo(
            List.of(
                "| parameter | type | default | description |",
                "| --- | --- | --- | --- |",
                "| `host` | string | localhost | where \\| to \\<go> |",
                "| `token` | string (secret) | — | a secret |",
                "| `on` | boolean | false | a switch |",
                "| `count` | integer | 1 | an int |",
                "| `size-bytes` | integer | 2 | a long |",
                "| `wait-ms` | milliseconds | 3 | a duration |"));
  }

  @Test
  void spliceIntoReplacesOnlyItsOwnSection() {
    String doc =
        "# Title\n<!-- generated: t -->\nstale\n<!-- end generated: t -->\nafter\n"
            + "<!-- generated: u -->\nother\n<!-- end generated: u -->\n";
    String spliced = TABLE.spliceInto(doc, "t");
    assertThat(spliced)
        .startsWith("# Title\n<!-- generated: t -->\n| parameter |")
        .contains(TABLE.toMarkdown() + "<!-- end generated: t -->\nafter\n")
        .endsWith("<!-- generated: u -->\nother\n<!-- end generated: u -->\n")
        .doesNotContain("stale");
    assertThat(TABLE.spliceInto(spliced, "t")).isEqualTo(spliced);
    assertThatThrownBy(() -> TABLE.spliceInto(doc, "v")).hasMessageContaining("id=v");
  }
}
