package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BenchConfigTest {
  @Test
  void walObjectOptionsAreParsedDescribedAndReported() {
    BenchConfig c =
        BenchConfig.parse(
                new String[] {"--wal-object-bytes", "1048576", "--objects-in-flight", "8"})
            .scenarios()
            .get(0);
    assertThat(c.walObjectBytes()).isEqualTo(1 << 20);
    assertThat(c.objectsInFlight()).isEqualTo(8);
    assertThat(c.describe()).contains("wal-object-bytes=1048576 objects-in-flight=8");
    assertThat(c.toJson()).containsEntry("wal_object_max_bytes", 1 << 20);
    assertThat(c.toJson()).containsEntry("wal_objects_in_flight", 8);
    // Every baseline scenario keeps them.
    assertThat(
            BenchConfig.parse(new String[] {"--scenario", "baseline", "--wal-object-bytes", "2048"})
                .scenarios())
        .allSatisfy(s -> assertThat(s.walObjectBytes()).isEqualTo(2048));
  }

  @Test
  void defaultsAreTheNodeDefaultsAndOutOfRangeValuesAreRefused() {
    BenchConfig c = BenchConfig.parse(new String[0]).scenarios().get(0);
    assertThat(c.describe()).doesNotContain("wal-object-bytes");
    assertThat(c.toJson()).containsEntry("wal_object_max_bytes", 8 << 20);
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--wal-object-bytes", "100"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--wal-object-bytes: less than 1024: 100");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--objects-in-flight", "65"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--objects-in-flight: not in 1..64: 65");
  }

  @Test
  void everyFlagIsParsedBeforeTheBenchRunsAndABadValueNamesIt() {
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--producers", "two"}))
        .isInstanceOf(dev.loam.cli.UsageException.class)
        .hasMessage("--producers: not an integer: two");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--duration", "soon"}))
        .hasMessage("--duration: not a duration such as 500ms, 20s or 1m: soon");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--class", "quorum2"}))
        .hasMessage("--class: not one of standard, express: quorum2");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--store", "fiel:///tmp/x"}))
        .hasMessageStartingWith("--store: no object store for scheme fiel");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--keys", "uniform:0"}))
        .hasMessage("--keys: less than 1: 0");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--scenario", "huge"}))
        .hasMessage("--scenario: not one of quick, baseline: huge");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--runs", "0"}))
        .hasMessage("--runs: not in 1..1000: 0");
    assertThat(BenchConfig.parse(new String[] {"--help", "--producers", "two"}).help()).isTrue();
  }

  @Test
  void quickShortensTheTimesUnlessTheyAreGiven() {
    BenchConfig q = BenchConfig.parse(new String[] {"--scenario", "quick"}).scenarios().get(0);
    assertThat(q.duration()).hasSeconds(8);
    assertThat(q.warmup()).hasSeconds(2);
    BenchConfig given =
        BenchConfig.parse(new String[] {"--scenario", "quick", "--duration", "3s"})
            .scenarios()
            .get(0);
    assertThat(given.duration()).hasSeconds(3);
    assertThat(given.keys()).isZero();
    assertThat(BenchConfig.parse(new String[] {"--keys", "uniform:10"}).scenarios().get(0).keys())
        .isEqualTo(10);
  }
}
