package dev.loam.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SimSchedulerTest {
  final SimClock clock = new SimClock(0);
  final SimScheduler s = new SimScheduler(clock);
  final List<String> ran = new ArrayList<>();

  @Test
  void runsByDeadlineThenSequenceAndMovesTheClock() {
    s.schedule(() -> ran.add("b@10"), 10, TimeUnit.MILLISECONDS);
    s.schedule(() -> ran.add("a@5"), 5, TimeUnit.MILLISECONDS);
    s.execute(() -> ran.add("now1"));
    s.schedule(() -> ran.add("c@10"), 10, TimeUnit.MILLISECONDS);
    s.execute(() -> ran.add("now2"));
    s.runUntilIdle();
    assertThat(ran).containsExactly("now1", "now2", "a@5", "b@10", "c@10");
    assertThat(clock.millis()).isEqualTo(10);
  }

  @Test
  void cancelRemovesAndPeriodicRepeats() {
    ScheduledFuture<?> f = s.schedule(() -> ran.add("cancelled"), 1, TimeUnit.SECONDS);
    assertThat(f.cancel(false)).isTrue();
    s.scheduleAtFixedRate(() -> ran.add("tick"), 100, 100, TimeUnit.MILLISECONDS);
    s.runUntilIdle(); // only the timer is left: idle at once
    assertThat(ran).isEmpty();
    s.runFor(Duration.ofMillis(350));
    assertThat(ran).containsExactly("tick", "tick", "tick");
    assertThat(clock.millis()).isEqualTo(350);
  }

  @Test
  void shutdownDropsTimersRunsDueTasksAndRejectsNewOnes() {
    s.execute(() -> ran.add("due"));
    s.schedule(() -> ran.add("later"), 1, TimeUnit.SECONDS);
    s.scheduleWithFixedDelay(() -> ran.add("tick"), 1, 1, TimeUnit.MILLISECONDS);
    s.shutdown();
    assertThatThrownBy(() -> s.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
    s.runFor(Duration.ofSeconds(5));
    assertThat(ran).containsExactly("due");
    assertThat(s.isTerminated()).isTrue();
  }

  @Test
  void failuresOfExecutedTasksAreKept() {
    s.execute(
        () -> {
          throw new IllegalStateException("boom");
        });
    s.runUntilIdle();
    assertThat(s.uncaught()).singleElement().isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aPausedProcessRunsNothingUntilResumedThenCatchesUpInOrder() {
    SimScheduler.Process p = s.process("n0#1");
    p.scheduleWithFixedDelay(
        () -> ran.add("tick@" + clock.millis()), 100, 100, TimeUnit.MILLISECONDS);
    p.schedule(() -> ran.add("once@" + clock.millis()), 250, TimeUnit.MILLISECONDS);
    ScheduledFuture<?> cancelled =
        p.schedule(() -> ran.add("cancelled"), 260, TimeUnit.MILLISECONDS);
    s.schedule(() -> ran.add("other@" + clock.millis()), 300, TimeUnit.MILLISECONDS);
    s.runFor(Duration.ofMillis(150));
    p.pause();
    s.runFor(Duration.ofMillis(350)); // to t=500: the process's tick, once and cancelled are held
    assertThat(cancelled.cancel(false)).isTrue();
    assertThat(ran).containsExactly("tick@100", "other@300");
    p.resume();
    s.runFor(Duration.ofMillis(0));
    assertThat(ran).containsExactly("tick@100", "other@300", "tick@500", "once@500");
    s.runFor(Duration.ofMillis(100));
    assertThat(ran).endsWith("tick@600");
    assertThat(p.paused()).isFalse();
  }
}
