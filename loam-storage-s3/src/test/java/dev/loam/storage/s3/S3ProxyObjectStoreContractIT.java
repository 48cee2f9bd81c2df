package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.tck.ObjectStoreContractTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit against S3Proxy 4.1.0 (out of process, in-memory provider). Each case gets a
 * fresh bucket. The multipart threshold is lowered to 5 MiB here, so the kit's 9 MiB object goes
 * through CreateMultipartUpload / UploadPart / CompleteMultipartUpload (S3Mock runs the single-PUT
 * path).
 *
 * <p>Documented deviation (docs/reference/storage-s3.md): S3Proxy stores objects as files, so it
 * cannot hold a key {@code a} and a key {@code a/b} at once. Writing {@code a/b} while {@code a}
 * exists fails with HTTP 500 (unavailable; outcome unknown when S3Proxy also drops the connection),
 * and a create of {@code a} while {@code a/b} exists fails with 412 (exists). The six kit cases
 * that put such pairs in one store are overridden below: each asserts the deviation for its pairs
 * and then runs the case's checks on its keys without the shadowed parents. The full cases pass
 * unchanged against S3Mock ({@link S3MockObjectStoreContractIT}).
 */
class S3ProxyObjectStoreContractIT extends ObjectStoreContractTest {
  private static final int MIB = 1024 * 1024;
  private static Emulator server;
  private static ExecutorService completions;

  @BeforeAll
  static void startServer() throws Exception {
    server = Emulator.s3proxy();
    completions = Executors.newFixedThreadPool(8);
  }

  @AfterAll
  static void stopExecutor() {
    completions.shutdownNow();
  }

  private S3StoreSettings current;

  @Override
  protected ObjectStore newStore() {
    current = server.settings(server.newBucket()).withMultipart(5 * MIB, 5 * MIB, 2);
    return new S3ObjectStore(current, completions);
  }

  /** A second client (its own connection pool) on the same bucket. */
  @Override
  protected ObjectStore openAnotherHandle() {
    return new S3ObjectStore(current, completions);
  }

  /**
   * The deviation itself, on {@code parent} and {@code child} (= parent + "/..."): each can exist
   * alone, but not both. Leaves the store without either key.
   */
  private void assertCannotHoldBoth(String parent, String child) {
    await(store.create(parent, bytes("parent")));
    // S3Proxy answers 500 and may close the connection before reading the body; the SDK's retry
    // then meets the closed connection, which is outcome unknown. Either way nothing is written.
    for (var write : operationsOn(child).entrySet()) {
      if (write.getKey().equals("create") || write.getKey().equals("put")) {
        assertThat(outcome(write.getValue().get()))
            .as(write.getKey())
            .containsInstanceOf(RuntimeException.class)
            .get()
            .isInstanceOfAny(StoreUnavailableException.class, StoreOutcomeUnknownException.class);
      }
    }
    assertFailsWith(ObjectNotFoundException.class, () -> store.get(child));
    assertThat(await(store.delete(List.of(parent)))).isEmpty();
    await(store.create(child, bytes("child")));
    assertFailsWith(ObjectExistsException.class, () -> store.create(parent, bytes("parent")));
    assertFailsWith(ObjectNotFoundException.class, () -> store.get(parent));
    assertThat(await(store.delete(List.of(child)))).isEmpty();
    assertThat(listAll("", 1000)).isEmpty();
  }

  private void createAll(List<String> keys) {
    for (String k : keys) {
      await(store.create(k, bytes(k)));
    }
  }

  @Test
  @Override
  protected void aKeyAndKeysBelowItCoexist() {
    assertCannotHoldBoth("a", "a/b");
    assertCannotHoldBoth("a/b", "a/b/c");
    // What still holds: a key and a key that only shares its first characters.
    createAll(List.of("a/b", "a-b"));
    assertThat(await(store.delete(List.of("a-b")))).isEmpty();
    assertThat(await(store.get("a/b"))).isEqualTo(bytes("a/b"));
    assertThat(keys(listAll("", 1000))).containsExactly("a/b");
  }

  @Test
  @Override
  protected void listIsInUtf8ByteOrderOfTheWholeKey() {
    assertCannotHoldBoth("a", "a/b");
    // The kit's keys without "a" and "a/b" (parents of a/c/d and a/b/c): the interleaving of
    // a-b, a., a.c, a/b/c, a/c/d, a0 is still what a directory walk gets wrong.
    List<String> keys =
        List.of("a.c", "a-b", "a/c/d", "a0", "a_b", "A", "Z", "0", "_", "b", "a/b/c", "a.");
    createAll(keys);
    assertThat(keys(listAll("", 1000))).containsExactlyElementsOf(byteOrder(keys));
  }

  @Test
  @Override
  protected void listPagesWithMaxKeysAndStartAfterCoverEveryKeyOnce() {
    assertCannotHoldBoth("p/0", "p/0/x");
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      keys.add("p/" + i + "/x");
      keys.add("p/" + i + "-y");
      keys.add("p/" + i + "/z/w");
    }
    createAll(keys);
    List<String> expected = byteOrder(keys);
    for (int maxKeys : new int[] {1, 3, 4, 20, 21, 22, 1000}) {
      List<String> seen = new ArrayList<>();
      String startAfter = "";
      for (int pages = 0; ; pages++) {
        assertThat(pages).isLessThanOrEqualTo(keys.size() + 1);
        ListPage page = await(store.list("p/", startAfter, maxKeys));
        assertThat(page.objects()).hasSizeLessThanOrEqualTo(maxKeys);
        seen.addAll(keys(page.objects()));
        if (page.nextStartAfter().isEmpty()) {
          break;
        }
        startAfter = page.nextStartAfter().get();
      }
      assertThat(seen).as("maxKeys=%d", maxKeys).containsExactlyElementsOf(expected);
    }
    assertThat(await(store.list("p/", "", 3)).nextStartAfter()).isPresent();
  }

  @Test
  @Override
  protected void listStartAfterNeedNotBeAKey() {
    assertCannotHoldBoth("s/b", "s/b/c");
    createAll(List.of("s/a", "s/b/c", "s/c"));
    assertThat(keys(await(store.list("s/", "s/a0", 1000)).objects()))
        .containsExactly("s/b/c", "s/c");
    assertThat(keys(await(store.list("s/", "s/b/", 1000)).objects()))
        .containsExactly("s/b/c", "s/c");
    assertThat(keys(await(store.list("s/", "s/b/c", 1000)).objects())).containsExactly("s/c");
    assertThat(keys(await(store.list("s/", "s", 1000)).objects()))
        .containsExactly("s/a", "s/b/c", "s/c");
    assertThat(await(store.list("s/", "s/z", 1000)).objects()).isEmpty();
    assertThat(await(store.list("s/", "t", 1000)).nextStartAfter()).isEmpty();
  }

  @Test
  @Override
  protected void listPrefixNeedNotEndAtASegmentBoundary() {
    assertCannotHoldBoth("wal/st", "wal/st/deep/er");
    List<String> keys =
        List.of(
            "wal/stream-1/00",
            "wal/stream-1/01",
            "wal/stx",
            "wal/s",
            "wal/t",
            "walx",
            "wal/st/deep/er",
            "wa");
    createAll(keys);
    assertThat(keys(listAll("wal/st", 2)))
        .containsExactly("wal/st/deep/er", "wal/stream-1/00", "wal/stream-1/01", "wal/stx");
    assertThat(keys(listAll("wal/", 1000)))
        .containsExactlyElementsOf(
            byteOrder(keys.stream().filter(k -> k.startsWith("wal/")).toList()));
    assertThat(keys(listAll("wal", 1000)))
        .containsExactlyElementsOf(
            byteOrder(keys.stream().filter(k -> k.startsWith("wal")).toList()));
    assertThat(keys(listAll("wal/stream-1/0", 1000)))
        .containsExactly("wal/stream-1/00", "wal/stream-1/01");
    assertThat(keys(listAll("wal/stream-1/01", 1000))).containsExactly("wal/stream-1/01");
  }

  @Test
  @Override
  protected void listOfLongKeysIsInByteOrder() {
    String s = "x".repeat(300);
    assertCannotHoldBoth(s, s + "/a");
    List<String> keys = List.of(s + "/a", s + "-b", s + "y", s.substring(0, 128) + "/z");
    createAll(keys);
    assertThat(keys(listAll("", 2))).containsExactlyElementsOf(byteOrder(keys));
    assertThat(keys(listAll(s, 1000)))
        .containsExactlyElementsOf(byteOrder(List.of(s + "/a", s + "-b", s + "y")));
    assertThat(keys(listAll(s + "/", 1000))).containsExactly(s + "/a");
  }
}
