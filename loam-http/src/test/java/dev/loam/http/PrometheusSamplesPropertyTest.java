package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/**
 * {@link PrometheusSamples} against the writer it reads in the tests, Micrometer's Prometheus
 * registry: any label value (quotes, backslashes, new lines, any Unicode) and any count or level
 * comes back as written; text that is not an exposition is refused.
 */
class PrometheusSamplesPropertyTest {
  @Property(tries = 200)
  void whatTheRegistryWritesIsReadBack(
      @ForAll("labelValues") String label,
      @ForAll @LongRange(min = 0, max = 1L << 40) long count,
      @ForAll @LongRange(min = -1_000_000, max = 1_000_000) long level) {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try {
      Counter.builder("prop.events").tag("who", label).register(r).increment(count);
      AtomicLong g = new AtomicLong(level);
      Gauge.builder("prop.level", g, AtomicLong::get).register(r);
      PrometheusSamples s = PrometheusSamples.parse(r.scrape());
      assertThat(s.value("prop_events_total", Map.of("who", label))).isEqualTo((double) count);
      assertThat(s.value("prop_level")).isEqualTo((double) level);
      assertThat(s.type("prop_events")).hasValue("counter");
    } finally {
      r.close();
    }
  }

  @Property(tries = 300)
  void textThatIsNotAnExpositionIsRefused(@ForAll("junk") String line) {
    assertThatThrownBy(() -> PrometheusSamples.parse(line))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 1 is not a sample");
  }

  @Provide
  Arbitrary<String> labelValues() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(30).filter(PrometheusSamplesPropertyTest::valid),
        Arbitraries.strings().withChars("\"\\\n{},= ab").ofMaxLength(12));
  }

  @Provide
  Arbitrary<String> junk() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            List.of(
                "name",
                "name{",
                "name{a=\"x\"",
                "name{a=x} 1",
                "name{a=\"x\" 1",
                "name{a=\"x\",a=\"y\"} 1",
                "name{a=\"\\q\"} 1",
                "name 1 2 3",
                "name one",
                "1name 1",
                "{a=\"x\"} 1")),
        Arbitraries.strings()
            .withChars("{}=\",ab 1")
            .ofMinLength(1)
            .ofMaxLength(20)
            .filter(s -> !s.isBlank() && !s.startsWith("#") && !parses(s)));
  }

  private static boolean valid(String s) {
    // Unpaired surrogates cannot be written as UTF-8 by any exposition.
    return s.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF);
  }

  private static boolean parses(String s) {
    try {
      PrometheusSamples.parse(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
