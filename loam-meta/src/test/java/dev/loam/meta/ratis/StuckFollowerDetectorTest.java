package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.meta.ratis.StuckFollowerDetector.Follower;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StuckFollowerDetectorTest {
  private static final long STUCK = 25_000;
  private static final long ANSWERED = 10_000;

  private final StuckFollowerDetector d = new StuckFollowerDetector(STUCK, ANSWERED);

  /** Samples once a second from {@code from} to {@code to} with a leader that keeps committing. */
  private Optional<String> run(
      long from, long to, java.util.function.LongFunction<List<Follower>> f) {
    Optional<String> last = Optional.empty();
    for (long t = from; t <= to; t += 1_000) {
      last = d.sample(t, 1_000 + t / 100, f.apply(t));
      if (last.isPresent()) {
        return last;
      }
    }
    return last;
  }

  @Test
  void aFollowerThatAnswersBehindWithoutMovingIsStuckAfterTheWindow() {
    // As seen after a restart: answers every 5-7 s (heartbeat INCONSISTENCY), match index fixed.
    Optional<String> found =
        run(
            0,
            60_000,
            t ->
                List.of(
                    new Follower("n4", 1165, t % 7_000), new Follower("n1", 1_000 + t / 100, 50)));
    assertThat(found).contains("n4");
    // Not before the window has passed.
    StuckFollowerDetector fresh = new StuckFollowerDetector(STUCK, ANSWERED);
    for (long t = 0; t < STUCK; t += 1_000) {
      assertThat(fresh.sample(t, 5_000, List.of(new Follower("n4", 1165, 100)))).isEmpty();
    }
    assertThat(fresh.sample(STUCK, 5_000, List.of(new Follower("n4", 1165, 100)))).contains("n4");
  }

  @Test
  void aStuckFollowerAnsweredOnlyBetweenBackOffsIsFoundByTheLongRule() {
    // The appender answers a stuck follower only between its error back-offs: here every 12 s,
    // which the 10 s answer bound reads as "down" every time, restarting the window. Behind with
    // the same match index for 60 s (2.4 times the 25 s window) and answered within 20 s: stuck.
    StuckFollowerDetector w = new StuckFollowerDetector(STUCK, ANSWERED);
    Optional<String> found = Optional.empty();
    long at = -1;
    for (long t = 0; t <= 120_000 && found.isEmpty(); t += 1_000) {
      found = w.sample(t, 5_000 + t / 10, List.of(new Follower("n4", 2498, t % 12_000)));
      at = t;
    }
    assertThat(found).contains("n4");
    assertThat(at).isEqualTo(60_000);
  }

  @Test
  void aFollowerDownForLessThanTheAnswerBoundThatCatchesUpIsNotStuck() {
    // Killed at 0 (its last answer), restarted after 18 s, answering again and catching up 20 s
    // later: behind with the same match index for 38 s, never 60.
    StuckFollowerDetector w = new StuckFollowerDetector(STUCK, ANSWERED);
    for (long t = 0; t <= 120_000; t += 1_000) {
      long match = t < 38_000 ? 2498 : 5_000 + t / 10;
      long lastAnswer = t < 18_000 ? t : 200;
      assertThat(w.sample(t, 5_000 + t / 10, List.of(new Follower("n4", match, lastAnswer))))
          .as("at %d", t)
          .isEmpty();
    }
  }

  @Test
  void aDeadFollowerIsNeverStuck() {
    // Its last answer ages from the moment it died; it never answers again.
    Optional<String> found = run(0, 120_000, t -> List.of(new Follower("n4", 900, t)));
    assertThat(found).isEmpty();
  }

  @Test
  void aSlowFollowerThatMovesIsNotStuck() {
    Optional<String> found =
        run(0, 120_000, t -> List.of(new Follower("n4", 100 + t / 10_000, 200)));
    assertThat(found).isEmpty();
  }

  @Test
  void aCaughtUpFollowerOnAnIdleLeaderIsNotStuck() {
    StuckFollowerDetector idle = new StuckFollowerDetector(STUCK, ANSWERED);
    for (long t = 0; t <= 120_000; t += 1_000) {
      assertThat(idle.sample(t, 500, List.of(new Follower("n4", 500, 100)))).isEmpty();
    }
  }

  @Test
  void aFollowerThatComesBackStartsItsWindowAgain() {
    StuckFollowerDetector w = new StuckFollowerDetector(STUCK, ANSWERED);
    // Down for 40 s (no answers), then answering behind without moving: stuck 25 s after the last
    // sample that saw it down, not at once.
    for (long t = 0; t < 40_000; t += 1_000) {
      assertThat(w.sample(t, 2_000, List.of(new Follower("n4", 900, t + 1)))).isEmpty();
    }
    for (long t = 40_000; t < 39_000 + STUCK; t += 1_000) {
      assertThat(w.sample(t, 2_000, List.of(new Follower("n4", 900, 300))))
          .as("at %d", t)
          .isEmpty();
    }
    assertThat(w.sample(39_000 + STUCK, 2_000, List.of(new Follower("n4", 900, 300))))
        .contains("n4");
  }

  @Test
  void resetForgetsTheStandStill() {
    StuckFollowerDetector w = new StuckFollowerDetector(STUCK, ANSWERED);
    for (long t = 0; t < STUCK; t += 1_000) {
      w.sample(t, 2_000, List.of(new Follower("n4", 900, 300)));
    }
    w.reset();
    assertThat(w.sample(STUCK, 2_000, List.of(new Follower("n4", 900, 300)))).isEmpty();
  }

  @Test
  void aWindowNoLongerThanTheAnswerBoundIsRefused() {
    assertThatThrownBy(() -> new StuckFollowerDetector(10_000, 10_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("answeredWithinMillis");
  }
}
