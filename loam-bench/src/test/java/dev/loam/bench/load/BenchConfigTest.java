package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;
import org.junit.jupiter.api.Test;

class BenchConfigTest {
  @Test
  void severalCommitsInFlightValuesRunTheScenarioOncePerValue() {
    List<BenchConfig> s =
        BenchConfig.parse(new String[] {"--commits-in-flight", "1,4"}).scenarios();
    assertThat(s).extracting(BenchConfig::name).containsExactly("custom-k1", "custom-k4");
    assertThat(s).extracting(BenchConfig::commitsInFlight).containsExactly(1, 4);
    assertThat(s.get(1).describe()).contains("commits-in-flight=4");
    assertThat(s.get(0).toJson()).containsEntry("wal_commits_in_flight", 1);
    BenchConfig one =
        BenchConfig.parse(new String[] {"--commits-in-flight", "2"}).scenarios().get(0);
    assertThat(one.name()).isEqualTo("custom");
    assertThat(one.commitsInFlight()).isEqualTo(2);
    assertThat(BenchConfig.parse(new String[0]).scenarios().get(0).toJson())
        .containsEntry("wal_commits_in_flight", 1);
    for (String bad : List.of("0", "65", "1,,4", "4,4", "x", "")) {
      assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--commits-in-flight", bad}))
          .isInstanceOf(dev.loam.cli.UsageException.class)
          .hasMessageStartingWith("--commits-in-flight: ");
    }
  }

  @Property(tries = 200)
  void anyListOfDistinctCommitsInFlightValuesParsesInOrder(
      @ForAll @Size(min = 1, max = 5) @UniqueElements
          List<@IntRange(min = 1, max = 64) Integer> ks) {
    String text = ks.stream().map(String::valueOf).collect(Collectors.joining(","));
    assertThat(BenchConfig.commitsInFlight(text)).isEqualTo(ks);
  }

  @Property(tries = 200)
  void aValueOutsideOneToSixtyFourIsRefusedNamingTheFlag(
      @ForAll @IntRange(min = -1000, max = 1000) int k) {
    if (k >= 1 && k <= 64) {
      return;
    }
    assertThatThrownBy(() -> BenchConfig.commitsInFlight("1," + k))
        .isInstanceOf(dev.loam.cli.UsageException.class)
        .hasMessageContaining("--commits-in-flight");
  }

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
        .hasMessage("--class: not one of standard, express, quorum: quorum2");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--class", "quorum"}))
        .hasMessageContaining("the quorum class needs --nodes 3 or more")
        .hasMessageContaining("got 1");
    assertThatThrownBy(
            () -> BenchConfig.parse(new String[] {"--class", "express,express", "--nodes", "3"}))
        .hasMessage("--class: names express twice: express,express");
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

  @Test
  void severalClassesRunTheScenarioOncePerClass() {
    BenchConfig.Options o =
        BenchConfig.parse(new String[] {"--class", "express,quorum", "--nodes", "3"});
    assertThat(o.scenarios())
        .extracting(BenchConfig::name, BenchConfig::durabilityClass)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "custom-express", dev.loam.wal.DurabilityClass.EXPRESS),
            org.assertj.core.groups.Tuple.tuple(
                "custom-quorum", dev.loam.wal.DurabilityClass.QUORUM));
  }
}
