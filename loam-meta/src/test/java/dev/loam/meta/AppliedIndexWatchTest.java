package dev.loam.meta;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class AppliedIndexWatchTest {
  private final AppliedIndexWatch watch = new AppliedIndexWatch(5);

  @Test
  void anAppliedIndexCompletesAtOnceAndALaterOneWaitsForAdvance() {
    assertThat(watch.await(5, () -> null)).isCompletedWithValue(null);
    CompletableFuture<Void> at7 = watch.await(7, () -> null);
    CompletableFuture<Void> at9 = watch.await(9, () -> null);
    assertThat(at7).isNotDone();

    // The watch hands the satisfied futures back and never completes them itself.
    assertThat(watch.advance(8)).containsExactly(at7);
    assertThat(at7).isNotDone();
    assertThat(watch.appliedIndex()).isEqualTo(8);
    assertThat(watch.advance(8)).isEmpty();
    assertThat(watch.advance(3)).isEmpty();
    assertThat(watch.appliedIndex()).isEqualTo(8);
    assertThat(watch.drain()).containsExactly(at9);
    assertThat(watch.drain()).isEmpty();
  }

  @Test
  void aRefusalFailsOnlyFuturesThatWouldWait() {
    LoamException closed = new LoamException(Kind.UNAVAILABLE, "closed index=6");
    assertThat(watch.await(5, () -> closed)).isCompletedWithValue(null);
    CompletableFuture<Void> refused = watch.await(6, () -> closed);
    assertThat(refused).isCompletedExceptionally();
    assertThat(watch.drain()).isEmpty();
  }

  @Test
  void everyListenerIsToldInOrderAndAFailureGoesToTheHandler() {
    List<String> seen = new ArrayList<>();
    RuntimeException boom = new IllegalStateException("boom");
    watch.addListener((i, c, o) -> seen.add("a" + i));
    watch.addListener(
        (i, c, o) -> {
          throw boom;
        });
    watch.addListener((i, c, o) -> seen.add("c" + i));
    List<RuntimeException> failures = new ArrayList<>();
    watch.notifyApplied(
        6,
        new CreateNamespace(new Origin("n1", 1, 0), "x"),
        new Outcome.NamespaceCreated("x"),
        (l, e) -> failures.add(e));
    assertThat(seen).containsExactly("a6", "c6");
    assertThat(failures).containsExactly(boom);
  }
}
