package dev.loam.store.memory;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the in-memory store adds to the contract: time from the injected clock. */
class InMemoryObjectStoreTest {
  @Test
  void lastModifiedComesFromTheInjectedClockAtTheWrite() {
    AtomicLong now = new AtomicLong(1_000);
    InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    try (InMemoryObjectStore store = new InMemoryObjectStore(clock)) {
      store.create("a", "x".getBytes(UTF_8)).join();
      now.set(2_000);
      store.put("b", "y".getBytes(UTF_8)).join();
      assertThat(store.head("a").join().orElseThrow().lastModifiedMillis()).isEqualTo(1_000);
      assertThat(store.head("b").join().orElseThrow().lastModifiedMillis()).isEqualTo(2_000);
      now.set(3_000);
      store.put("a", "z".getBytes(UTF_8)).join();
      assertThat(store.list("", "", 10).join().objects().get(0).lastModifiedMillis())
          .isEqualTo(3_000);
    }
  }

  @Test
  void futuresAreCompleteOnReturnSoSimulationsStayDeterministic() {
    try (InMemoryObjectStore store = new InMemoryObjectStore(InstantSource.fixed(Instant.EPOCH))) {
      assertThat(store.create("a", new byte[1])).isDone();
      assertThat(store.create("a", new byte[1])).isCompletedExceptionally();
      assertThat(store.get("missing")).isCompletedExceptionally();
      assertThat(store.list("", "", 1)).isDone();
    }
  }
}
