package dev.loam.spi.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.store.express.ExpressObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The kit against the express store over three in-memory zones. */
class ExpressObjectStoreContractTest extends ObjectStoreContractTest {
  @Override
  protected ObjectStore newStore() {
    return new ExpressObjectStore(
        List.of(
            new InMemoryObjectStore(InstantSource.system()),
            new InMemoryObjectStore(InstantSource.system()),
            new InMemoryObjectStore(InstantSource.system())),
        1);
  }

  /**
   * Documented deviation (docs/reference/object-store.md, express): zones decide races
   * independently, so racing creates of one key by different writers may all lose. Loam writes
   * express objects under writer-unique keys (wal/express/<node>/<ulid>.wal), so this never happens
   * to Loam's own keys. What still holds: never two winners, every loser is told exists or unknown,
   * and a winner's bytes are what a read returns.
   */
  @Override
  @Test
  protected void concurrentCreatesOfOneKeyHaveExactlyOneWinner() throws Exception {
    int writers = racingWriters();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      for (int round = 0; round < 50; round++) {
        String key = "race/" + round;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<Throwable>>> outcomes = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          byte[] mine = bytes("writer-" + w + "-round-" + round);
          outcomes.add(
              pool.submit(
                  () -> {
                    assertThat(go.await(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                    return outcome(store.create(key, mine));
                  }));
        }
        go.countDown();
        List<Integer> winners = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          Optional<Throwable> failure =
              outcomes.get(w).get(timeout().toMillis(), TimeUnit.MILLISECONDS);
          if (failure.isEmpty()) {
            winners.add(w);
          } else {
            assertThat(failure.get())
                .isInstanceOfAny(ObjectExistsException.class, StoreOutcomeUnknownException.class);
          }
        }
        assertThat(winners).as("winners of %s", key).hasSizeLessThanOrEqualTo(1);
        if (winners.size() == 1) {
          assertThat(await(store.get(key)))
              .isEqualTo(bytes("writer-" + winners.get(0) + "-round-" + round));
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
