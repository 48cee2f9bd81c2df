package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreContractTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

  @Override
  protected ObjectStore newStore() {
    return new S3ObjectStore(server.settings(server.newBucket()), completions);
  }

  /**
   * Documented emulator deviation (above): what S3Mock's racing creates keep, so that the store's
   * mapping of its 412 is still checked. At least one winner, every loser fails with exists, the
   * object holds one winner's bytes, and once the race is over create is exclusive again.
   */
  @Override
  @Test
  protected void concurrentCreatesOfOneKeyHaveExactlyOneWinner() {
    for (int round = 0; round < 10; round++) {
      String key = "race/" + round;
      List<CompletableFuture<Void>> racing = new ArrayList<>();
      for (int w = 0; w < racingWriters(); w++) {
        racing.add(store.create(key, bytes("writer-" + w)));
      }
      List<byte[]> winners = new ArrayList<>();
      for (int w = 0; w < racing.size(); w++) {
        Optional<Throwable> failure = outcome(racing.get(w));
        if (failure.isEmpty()) {
          winners.add(bytes("writer-" + w));
        } else {
          assertThat(failure.get()).isInstanceOf(ObjectExistsException.class);
        }
      }
      assertThat(winners).isNotEmpty();
      assertThat(await(store.get(key))).isIn(winners);
      // Once the race is over, create is exclusive again.
      assertFailsWith(ObjectExistsException.class, () -> store.create(key, bytes("late")));
    }
  }
}
