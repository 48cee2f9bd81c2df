package dev.loam.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ValuesTest {
  @Test
  void durationsTakeAUnitAndStayInRange() {
    assertThat(Values.duration().parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Values.duration().parse("20s")).isEqualTo(Duration.ofSeconds(20));
    assertThat(Values.duration().parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Values.duration().parse("3")).isEqualTo(Duration.ofSeconds(3));
    assertThatThrownBy(() -> Values.duration().parse("0s")).hasMessage("not in 1ms..1 day: 0s");
    assertThatThrownBy(() -> Values.duration().parse("-1s")).hasMessage("not in 1ms..1 day: -1s");
    assertThatThrownBy(() -> Values.duration().parse("2d")).hasMessageContaining("not a duration");
  }

  @Test
  void numbersAndChoices() {
    assertThat(Values.longValue(1, Long.MAX_VALUE).parse(" 42 ")).isEqualTo(42L);
    assertThatThrownBy(() -> Values.longValue(1, Long.MAX_VALUE).parse("0"))
        .hasMessage("less than 1: 0");
    assertThatThrownBy(() -> Values.port(false).parse("0")).hasMessage("not in 1..65535: 0");
    assertThat(Values.millis(1, 10).parse("7")).isEqualTo(Duration.ofMillis(7));
    assertThat(Values.seconds(1, 10).parse("7")).isEqualTo(Duration.ofSeconds(7));
    assertThat(Values.oneOf("a", "b").parse("b")).isEqualTo("b");
    assertThatThrownBy(() -> Values.nonBlank().parse(" ")).hasMessage("must not be empty");
    assertThatThrownBy(() -> Values.path().parse("")).hasMessage("must not be empty");
    assertThatThrownBy(() -> Values.path().parse("a\0b")).hasMessageContaining("not a path");
  }

  @Test
  void storeUrisAreCheckedForSyntaxAndAKnownScheme() {
    ValueParser<String> local = StoreUris.parser(false);
    ValueParser<String> shared = StoreUris.parser(true);
    assertThat(local.parse("mem://")).isEqualTo("mem://");
    assertThat(local.parse("file:///tmp/x")).isEqualTo("file:///tmp/x");
    assertThat(shared.parse("file:///tmp/x")).isEqualTo("file:///tmp/x");
    assertThatThrownBy(() -> shared.parse("mem://"))
        .hasMessageContaining("mem:// is private to one process");
    assertThatThrownBy(() -> local.parse("fiel:///tmp/x"))
        .hasMessageStartingWith("no object store for scheme fiel (known: file, mem")
        .hasMessageEndingWith(": fiel:///tmp/x");
    assertThatThrownBy(() -> local.parse("/tmp/x")).hasMessageContaining("no scheme");
    assertThatThrownBy(() -> local.parse("file:relative")).hasMessageContaining("needs a path");
    assertThatThrownBy(() -> local.parse("s3://bad bucket")).hasMessageContaining("not a URI");
    assertThat(StoreUris.knownSchemes()).contains("file", "mem");
  }
}
