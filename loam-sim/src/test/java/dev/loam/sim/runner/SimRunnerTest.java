package dev.loam.sim.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed runner: its options (bad ones are refused naming the option), the summary it writes from
 * worker lines, and two real runs in worker processes (one to the end, one cut by its budget).
 */
class SimRunnerTest {
  @TempDir Path tmp;

  @Test
  void optionsHaveDefaultsAndParse() {
    SimRunner.Options d = SimRunner.parse(new String[0], 4);
    assertThat(d.first()).isEqualTo(1);
    assertThat(d.seeds()).isEqualTo(1000);
    assertThat(d.workers()).isEqualTo(4);
    assertThat(d.budget()).isEqualTo(Duration.ofMinutes(30));
    SimRunner.Options o =
        SimRunner.parse(
            new String[] {"--seeds", "10000", "--workers", "2", "--budget", "90s", "--first", "-5"},
            4);
    assertThat(o.seeds()).isEqualTo(10000);
    assertThat(o.workers()).isEqualTo(2);
    assertThat(o.budget()).isEqualTo(Duration.ofSeconds(90));
    assertThat(o.first()).isEqualTo(-5);
    assertThat(SimRunner.parse(new String[] {"--seeds", "3", "--workers", "8"}, 2).workers())
        .as("never more workers than seeds")
        .isEqualTo(3);
    assertThat(SimRunner.duration("--budget", "2h")).isEqualTo(Duration.ofHours(2));
    assertThat(SimRunner.duration("--budget", "PT45M")).isEqualTo(Duration.ofMinutes(45));
  }

  @Test
  void badOptionsAreRefusedNamingTheOption() {
    assertThatThrownBy(() -> SimRunner.parse(new String[] {"--seeds", "0"}, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--seeds must be at least 1, got 0");
    assertThatThrownBy(() -> SimRunner.parse(new String[] {"--workers", "two"}, 2))
        .hasMessage("--workers must be a whole number, got 'two'");
    assertThatThrownBy(() -> SimRunner.parse(new String[] {"--budget", "5x"}, 2))
        .hasMessage("--budget must be a duration like 90s, 30m or 2h, got '5x'");
    assertThatThrownBy(() -> SimRunner.parse(new String[] {"--budget", "0m"}, 2))
        .hasMessageStartingWith("--budget must be positive");
    assertThatThrownBy(() -> SimRunner.parse(new String[] {"--speed", "3"}, 2))
        .hasMessage("unknown option --speed");
    assertThatThrownBy(() -> SimRunner.parse(new String[] {"--seeds"}, 2))
        .hasMessage("--seeds needs a value (or is not an option)");
  }

  @Test
  void theSummarySumsCountsKeepsMaximaAndListsFailingSeedsWithTheirReplay() {
    SimSummary s = new SimSummary(1, 3, 2, "30m");
    assertThat(s.add("SEED\t1\tok\t100\t5000\tacked=3,ackedLost=0,crashes=2,maxAckGapMillis=7\t"))
        .isTrue();
    assertThat(
            s.add(
                "SEED\t2\tfail\t200\t6000\tacked=4,ackedLost=5,crashes=1,maxAckGapMillis=9\t"
                    + "t=1 acknowledged record not at its offset"))
        .isTrue();
    assertThat(s.add("a warning a library printed")).isFalse();
    s.finish(1234, false);
    assertThat(s.seedsRun()).isEqualTo(2);
    assertThat(s.failures()).singleElement().extracting(SimSummary.Failure::seed).isEqualTo(2L);
    String text = s.text();
    assertThat(text)
        .contains("2 of 3 run by 2 workers", "1 failed", "acknowledged 7", "records lost 5")
        .contains("crashes                         3")
        .contains("FAILED seed 2: t=1 acknowledged record not at its offset")
        .contains(SimSummary.replayCommand(2));
    String json = s.json();
    assertThat(json)
        .contains("\"seedsRun\": 2,", "\"seedsFailed\": 1,", "\"lost\": 5,", "\"crashes\": 3")
        .contains("\"maxAckGapMillis\": 9")
        .contains(
            "{\"seed\": 2, \"firstViolation\": \"t=1 acknowledged record not at its offset\"");
  }

  @Test
  void runsSeedsInWorkerProcessesAndWritesTheSummary() throws Exception {
    Path out = tmp.resolve("s.json");
    SimSummary s = SimRunner.run(new SimRunner.Options(1, 2, 2, Duration.ofMinutes(5), out));
    assertThat(s.workerErrors()).isEmpty();
    assertThat(s.seedsRun()).isEqualTo(2);
    assertThat(s.failures()).isEmpty();
    assertThat(Files.readString(out)).contains("\"seedsRun\": 2,", "\"budgetExhausted\": false");
    assertThat(Files.readString(tmp.resolve("s.txt"))).contains("2 of 2 run by 2 workers");
    assertThat(Files.readAllLines(tmp.resolve("s.seeds.tsv")))
        .hasSize(2)
        .allMatch(l -> l.startsWith("SEED\t") && l.contains("\tok\t"));
  }

  @Test
  void stopsTheWorkersWhenTheBudgetIsOver() throws Exception {
    Path out = tmp.resolve("cut.json");
    long t0 = System.nanoTime();
    SimSummary s = SimRunner.run(new SimRunner.Options(1, 100_000, 1, Duration.ofSeconds(3), out));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(20));
    assertThat(s.seedsRun()).isLessThan(100_000);
    assertThat(Files.readString(out)).contains("\"budgetExhausted\": true");
  }
}
