package dev.loam.storage.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Objects above the threshold go through chunked resumable uploads with the same guarantees. */
class GcsResumableUploadIT {
  static final int CHUNK = GcsStoreSettings.CHUNK_GRANULARITY;
  String bucket;
  ObjectStore store;

  @BeforeEach
  void open() {
    bucket = TestServers.freshBucket();
    store =
        GcsObjectStore.open(
            TestServers.settings(bucket, "").withResumable(1024 * 1024, CHUNK),
            TestServers.context());
  }

  @AfterEach
  void close() {
    store.close();
  }

  static byte[] pattern(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + seed);
    }
    return b;
  }

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(60, TimeUnit.SECONDS);
  }

  @Test
  void aLargeCreateIsChunkedAndExclusive() throws Exception {
    byte[] big = pattern(3 * 1024 * 1024 + 5, 1);
    await(store.create("seg/1", big));
    assertThat(await(store.get("seg/1"))).isEqualTo(big);
    // Across a chunk boundary.
    assertThat(await(store.get("seg/1", CHUNK - 10, 20)))
        .isEqualTo(Arrays.copyOfRange(big, CHUNK - 10, CHUNK + 10));
    assertThat(TestServers.server().requestLog())
        .filteredOn(
            l -> l.startsWith("PUT /upload/storage/v1/b/" + bucket + "/o?uploadType=resumable"))
        .hasSizeGreaterThanOrEqualTo(12);
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class,
            () -> await(store.create("seg/1", pattern(2 * 1024 * 1024, 2))));
    assertThat(e.getCause()).isInstanceOf(ObjectExistsException.class);
    assertThat(await(store.get("seg/1"))).isEqualTo(big);
    byte[] other = pattern(1024 * 1024, 3); // exactly the threshold, exactly 4 chunks
    await(store.put("seg/1", other));
    assertThat(await(store.get("seg/1"))).isEqualTo(other);
  }

  @Test
  void concurrentLargeCreatesHaveExactlyOneWinner() throws Exception {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      all.add(store.create("race", pattern(1536 * 1024, w)));
    }
    int winner = -1;
    for (int w = 0; w < all.size(); w++) {
      try {
        await(all.get(w));
        assertThat(winner).as("a second winner").isEqualTo(-1);
        winner = w;
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(ObjectExistsException.class);
      }
    }
    assertThat(winner).isNotEqualTo(-1);
    assertThat(await(store.get("race"))).isEqualTo(pattern(1536 * 1024, winner));
  }
}
