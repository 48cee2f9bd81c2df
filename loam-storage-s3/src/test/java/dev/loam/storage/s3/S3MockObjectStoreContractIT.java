package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.tck.ObjectStoreContractTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit against Adobe S3Mock 5.2.0 (out of process). Each case gets a fresh bucket
 * and the store's default settings (objects below 16 MiB, so single PutObject).
 *
 * <p>Documented emulator defect (docs/reference/storage-s3.md): S3Mock checks {@code If-None-Match:
 * *} and then writes, without a lock, so concurrent creates of one key can have several winners
 * (seen: 5 of 16 with creates issued back to back; 13 and 16 of 16 with the kit's latched start).
 * Sequential creates are exclusive (the other create cases pass unchanged). So here the kit's
 * racing case asserts what S3Mock does keep (as the express store's kit run does for its own
 * documented deviation); the case runs unchanged against S3Proxy ({@link
 * S3ProxyObjectStoreContractIT}), and real S3's conditional writes are exclusive.
 */
class S3MockObjectStoreContractIT extends ObjectStoreContractTest {
  private static Emulator server;
  private static ExecutorService completions;

  @BeforeAll
  static void startServer() throws Exception {
    server = Emulator.s3mock();
    completions = Executors.newFixedThreadPool(8);
  }

  @AfterAll
  static void stopExecutor() {
    completions.shutdownNow();
  }

  private S3StoreSettings current;

  @Override
  protected ObjectStore newStore() {
    current = server.settings(server.newBucket());
    return new S3ObjectStore(current, completions);
  }

  /** A second client (its own connection pool) on the same bucket. */
  @Override
  protected ObjectStore openAnotherHandle() {
    return new S3ObjectStore(current, completions);
  }

  /**
   * Documented emulator deviation (above): what S3Mock's racing creates keep, so that the store's
   * mapping of its 412 is still checked. At least one winner, every loser fails with exists, the
   * object holds one winner's bytes, and once the race is over create is exclusive again.
   */
  @Override
  @Test
  protected void concurrentCreatesOfOneKeyHaveExactlyOneWinner() throws Exception {
    for (int round = 0; round < 10; round++) {
      assertWhatARaceKeeps("race/" + round, w -> store);
    }
  }

  /** The same deviation, with the racers split over two clients of the bucket. */
  @Override
  @Test
  protected void concurrentCreatesThroughTwoHandlesHaveExactlyOneWinner() throws Exception {
    ObjectStore other = anotherHandle();
    for (int round = 0; round < 10; round++) {
      assertWhatARaceKeeps("shared/race/" + round, w -> w % 2 == 0 ? store : other);
    }
  }

  private void assertWhatARaceKeeps(String key, IntFunction<ObjectStore> handleOf)
      throws Exception {
    List<Optional<Throwable>> outcomes = raceCreates(key, racingWriters(), handleOf);
    List<byte[]> winners = new ArrayList<>();
    for (int w = 0; w < outcomes.size(); w++) {
      if (outcomes.get(w).isEmpty()) {
        winners.add(racerBytes(key, w));
      } else {
        assertThat(outcomes.get(w).get()).isInstanceOf(ObjectExistsException.class);
      }
    }
    assertThat(winners).isNotEmpty();
    assertThat(await(store.get(key))).isIn(winners);
    // Once the race is over, create is exclusive again, through either handle.
    assertFailsWith(ObjectExistsException.class, () -> store.create(key, bytes("late")));
    assertFailsWith(
        ObjectExistsException.class, () -> handleOf.apply(1).create(key, bytes("late")));
  }
}
