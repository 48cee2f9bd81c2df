package dev.loam.storage.azure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.TailRead;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Block uploads (Put Block + Put Block List) on Azurite, with a 1 MiB threshold and 256 KiB blocks
 * so that small test objects take the block path, plus list paging over more than one request.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AzuriteBlockUploadIT {
  private static final int MIB = 1024 * 1024;
  private ExecutorService callbacks;
  private AzureBlobObjectStore store;

  @BeforeEach
  void open() {
    callbacks = Executors.newFixedThreadPool(4);
    store =
        AzureBlobObjectStore.open(
            Azurite.shared().settings("blocks").withBlockUpload(MIB, 256 * 1024, 3), callbacks);
  }

  @AfterEach
  void close() {
    store.close();
    callbacks.shutdownNow();
  }

  private static byte[] pattern(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + seed + (i >>> 9));
    }
    return b;
  }

  @Test
  void aBlockUploadRoundTripsAndReadsInRanges() throws Exception {
    byte[] big = pattern(3 * MIB + 123, 1);
    store.create("seg/1", big).get(30, TimeUnit.SECONDS);
    assertThat(store.get("seg/1").get(30, TimeUnit.SECONDS)).isEqualTo(big);
    // A range across the boundary of blocks 0 and 1.
    assertThat(store.get("seg/1", 256 * 1024 - 10, 20).get(30, TimeUnit.SECONDS))
        .isEqualTo(Arrays.copyOfRange(big, 256 * 1024 - 10, 256 * 1024 + 10));
    TailRead tail = store.getTail("seg/1", 1000).get(30, TimeUnit.SECONDS);
    assertThat(tail.objectSize()).isEqualTo(big.length);
    assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(big, big.length - 1000, big.length));
  }

  @Test
  void theCommitCarriesTheCreatePrecondition() throws Exception {
    byte[] first = pattern(2 * MIB, 1);
    store.create("seg/2", first).get(30, TimeUnit.SECONDS);
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class,
            () -> store.create("seg/2", pattern(2 * MIB, 2)).get(30, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(ObjectExistsException.class);
    assertThat(store.get("seg/2").get(30, TimeUnit.SECONDS)).isEqualTo(first);
    byte[] replaced = pattern(MIB + 1, 3);
    store.put("seg/2", replaced).get(30, TimeUnit.SECONDS);
    assertThat(store.get("seg/2").get(30, TimeUnit.SECONDS)).isEqualTo(replaced);
  }

  @Test
  void racingBlockCreatesOfOneKeyHaveOneWinnerWithItsOwnBytes() throws Exception {
    // Uncommitted blocks are kept per blob name; per-upload block ids keep racers apart.
    for (int round = 0; round < 3; round++) {
      String key = "race/" + round;
      List<byte[]> payloads = new ArrayList<>();
      List<CompletableFuture<Void>> creates = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        payloads.add(pattern(MIB + 4096, 10 * round + w));
      }
      for (int w = 0; w < 4; w++) {
        creates.add(store.create(key, payloads.get(w)));
      }
      int winner = -1;
      for (int w = 0; w < 4; w++) {
        try {
          creates.get(w).get(60, TimeUnit.SECONDS);
          assertThat(winner).as("one winner").isEqualTo(-1);
          winner = w;
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(ObjectExistsException.class);
        }
      }
      assertThat(winner).isNotNegative();
      assertThat(store.get(key).get(30, TimeUnit.SECONDS)).isEqualTo(payloads.get(winner));
    }
  }

  @Test
  void listFollowsShortPagesAndStopsAtItsRequestBound() throws Exception {
    // maxKeys=1 asks for 2 entries per request; startAfter may fall between keys.
    for (String k : List.of("l/a", "l/b", "l/c", "l/d")) {
      store.create(k, new byte[] {1}).get(30, TimeUnit.SECONDS);
    }
    List<String> seen = new ArrayList<>();
    String after = "";
    for (int pages = 0; pages < 10; pages++) {
      var page = store.list("l/", after, 1).get(30, TimeUnit.SECONDS);
      page.objects().forEach(o -> seen.add(o.key()));
      if (page.nextStartAfter().isEmpty()) {
        break;
      }
      after = page.nextStartAfter().get();
    }
    assertThat(seen).containsExactly("l/a", "l/b", "l/c", "l/d");
  }
}
