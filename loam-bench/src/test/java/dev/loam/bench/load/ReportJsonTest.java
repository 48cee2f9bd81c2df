package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ReportJsonTest {
  @Test
  void jsonEscapesAndFormatsValues() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("s", "a\"b\\c\n");
    m.put("i", 3);
    m.put("d", 1.5);
    m.put("nan", Double.NaN);
    m.put("l", List.of(1, 2));
    m.put("n", null);
    String j = Json.write(m);
    assertThat(j)
        .contains("\"s\": \"a\\\"b\\\\c\\n\"")
        .contains("\"i\": 3")
        .contains("\"d\": 1.5")
        .contains("\"nan\": null")
        .contains("\"l\": [1, 2]")
        .contains("\"n\": null");
  }

  @Test
  void sixSignificantDigitsKeepTheZerosThatAreDigits() {
    assertThat(Json.sixDigits(235840.4)).isEqualTo("235840");
    assertThat(Json.sixDigits(189210.2)).isEqualTo("189210");
    assertThat(Json.sixDigits(120000.4)).isEqualTo("120000");
    assertThat(Json.sixDigits(41.7590)).isEqualTo("41.759");
    assertThat(Json.sixDigits(2.50)).isEqualTo("2.5");
    assertThat(Json.sixDigits(0.000123)).isEqualTo("0.000123");
    assertThat(Json.sixDigits(1.5e20)).isEqualTo("1.5e+20");
    assertThat(Json.sixDigits(1234567.8)).isEqualTo("1.23457e+06");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("r", 235840.4);
    assertThat(Json.write(m)).contains("\"r\": 235840\n");
  }

  @Test
  void reportHoldsMediansAndSpreadsOfEveryScenario() {
    BenchConfig.Options o =
        BenchConfig.parse(new String[] {"--scenario", "baseline", "--runs", "3", "--rate", "5000"});
    assertThat(o.scenarios()).hasSize(4);
    List<LoadBench.ScenarioRuns> all = new ArrayList<>();
    for (BenchConfig c : o.scenarios()) {
      List<LoadRun.Result> runs = new ArrayList<>();
      for (int r = 1; r <= 3; r++) {
        Histogram h = new Histogram(600_000_000L, 3);
        h.recordValue(1000L * r);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("records_per_s", 100.0 * r);
        f.put("ack_latency_ms", LoadRun.percentiles(h));
        f.put("appends_failed", 0L);
        runs.add(new LoadRun.Result(f, h, h));
      }
      all.add(new LoadBench.ScenarioRuns(c, runs));
    }
    MachineLimits limits = new MachineLimits(50, 60, 1000, 5, 7, 8, 24);
    String json = Json.write(LoadBench.report(o, all, limits, "t"));
    assertThat(json)
        .contains("\"name\": \"local-5ms-flatout\"")
        .contains("\"name\": \"express-5ms-5000rps\"")
        .contains("\"runs_per_scenario\": 3")
        .contains("\"file_write_fsync_8mib_mb_per_s\": 1000")
        .contains("\"mb_per_s_over_file_write_fsync\"");
    // records_per_s over runs 100, 200, 300: median 200, min 100, max 300
    assertThat(json).contains("\"records_per_s\": {\n          \"median\": 200,");
    assertThat(LoadBench.median(new double[] {3, 1, 2, 10})).isEqualTo(2.5);
    assertThat(LoadBench.svgPath(java.nio.file.Path.of("target/bench-x.json")).toString())
        .isEqualTo("target/bench-x.svg");
    assertThat(
            SvgPlot.render(
                "t", List.of(new SvgPlot.Series("a", all.get(0).runs().get(0).ack(), null))))
        .startsWith("<svg")
        .contains("<path");
  }
}
