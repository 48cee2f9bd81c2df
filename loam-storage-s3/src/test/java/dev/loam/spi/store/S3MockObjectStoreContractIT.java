package dev.loam.spi.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.storage.s3.Emulator;
import dev.loam.storage.s3.S3ObjectStore;
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
 * (In the kit's package so that it can override a kit case, which are package-private.)
 *
 * <p>The conformance kit against Adobe S3Mock 5.2.0 (out of process). Each case gets a fresh bucket
 * and the store's default settings (objects below 16 MiB, so single PutObject).
 *
 * <p>Documented deviation (docs/storage-s3.md): S3Mock checks {@code If-None-Match: *} and then
 * writes, without a lock, so concurrent creates of one key can have several winners (seen: 5 of
 * 16). Sequential creates are exclusive (the other create cases pass unchanged). The racing case is
 * overridden to assert what S3Mock does keep: every loser fails with exists, and the object holds
 * one winner's bytes. The unchanged racing case passes against S3Proxy.
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

  @Test
  @Override
  void concurrentCreatesOfOneKeyHaveExactlyOneWinner() {
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
