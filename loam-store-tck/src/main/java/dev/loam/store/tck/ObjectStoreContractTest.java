package dev.loam.store.tck;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidKeyException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The conformance kit of {@link ObjectStore}: every implementation (in-memory, filesystem, S3, GCS,
 * Azure, and any a user writes) extends this class and passes every case unchanged. A subclass may
 * override a case only to assert a different message or a documented deviation, never to weaken it.
 * Every case is a {@code protected} method, so an override in any package replaces it (an override
 * must repeat {@code @Test}).
 *
 * <p>Each case states the SPI clause it checks. Every failure is asserted to arrive through the
 * future (a method that throws instead fails the case). Each case gets a fresh, empty store from
 * {@link #newStore()} and closes it afterwards. The cases in {@link SharedBucketCases} also open a
 * second handle on the same bucket with {@link #openAnotherHandle()}, because every node of a
 * cluster opens its own store: what one handle writes, deletes or wins must be seen and fenced
 * through the other.
 *
 * <p>The kit needs only this artifact ({@code dev.loam:loam-store-tck}, test scope): it brings
 * JUnit 5 and AssertJ with it. See docs/reference/object-store.md for a complete example.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ObjectStoreContractTest extends SharedBucketCases {

  // ---------------------------------------------------------------------------------------------
  // create

  @Test
  protected void createThenGetReturnsTheBytes() {
    byte[] bytes = bytes("hello, loam");
    await(store.create("wal/0001", bytes));
    assertThat(await(store.get("wal/0001"))).isEqualTo(bytes);
  }

  @Test
  protected void createOnATakenKeyFailsWithExistsAndKeepsTheOriginal() {
    await(store.create("k", bytes("first")));
    ObjectExistsException e =
        assertFailsWith(ObjectExistsException.class, () -> store.create("k", bytes("second")));
    assertThat(e.kind()).isEqualTo(LoamException.Kind.CONFLICT);
    assertThat(e.getMessage()).contains("key=k");
    assertThat(await(store.get("k"))).isEqualTo(bytes("first"));
  }

  @Test
  protected void retryingACreateWithTheSameBytesFailsWithExistsAndTheBytesCompareEqual() {
    // The SPI's recipe after an outcome-unknown create: retry, then get and compare.
    await(store.create("k", bytes("same")));
    assertFailsWith(ObjectExistsException.class, () -> store.create("k", bytes("same")));
    assertThat(await(store.get("k"))).isEqualTo(bytes("same"));
  }

  @Test
  protected void createOverAPutObjectFailsWithExists() {
    await(store.put("k", bytes("put")));
    assertFailsWith(ObjectExistsException.class, () -> store.create("k", bytes("create")));
    assertThat(await(store.get("k"))).isEqualTo(bytes("put"));
  }

  @Test
  protected void concurrentCreatesOfOneKeyHaveExactlyOneWinner() throws Exception {
    for (int round = 0; round < 50; round++) {
      String key = "race/" + round;
      List<Optional<Throwable>> outcomes = raceCreates(key, racingWriters(), w -> store);
      for (Optional<Throwable> o : outcomes) {
        o.ifPresent(failure -> assertThat(failure).isInstanceOf(ObjectExistsException.class));
      }
      List<Integer> winners = winners(outcomes);
      assertThat(winners).as("winners of %s", key).hasSize(1);
      assertThat(await(store.get(key))).isEqualTo(racerBytes(key, winners.get(0)));
    }
  }

  @Test
  protected void theEmptyObjectIsAllowed() {
    await(store.create("empty", new byte[0]));
    assertThat(await(store.get("empty"))).isEmpty();
    assertThat(await(store.head("empty"))).hasValueSatisfying(i -> assertThat(i.size()).isZero());
    assertThat(keys(listAll("", 1000))).containsExactly("empty");
    assertFailsWith(ObjectExistsException.class, () -> store.create("empty", new byte[0]));
  }

  @Test
  protected void largeObjectsRoundTrip() {
    byte[] big = pattern(9 * 1024 * 1024 + 7);
    await(store.create("big/object", big));
    assertThat(await(store.get("big/object"))).isEqualTo(big);
    assertThat(await(store.get("big/object", big.length - 100, 1000)))
        .isEqualTo(Arrays.copyOfRange(big, big.length - 100, big.length));
    TailRead tail = await(store.getTail("big/object", 4096));
    assertThat(tail.objectSize()).isEqualTo(big.length);
    assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(big, big.length - 4096, big.length));
    assertThat(await(store.head("big/object")).orElseThrow().size()).isEqualTo(big.length);
  }

  // ---------------------------------------------------------------------------------------------
  // put

  @Test
  protected void putCreatesAndOverwrites() {
    await(store.put("p", bytes("one")));
    assertThat(await(store.get("p"))).isEqualTo(bytes("one"));
    await(store.put("p", bytes("two, longer")));
    assertThat(await(store.get("p"))).isEqualTo(bytes("two, longer"));
    await(store.put("p", bytes("3")));
    assertThat(await(store.get("p"))).isEqualTo(bytes("3"));
    assertThat(await(store.head("p")).orElseThrow().size()).isEqualTo(1);
    assertThat(keys(listAll("", 1000))).containsExactly("p");
  }

  @Test
  protected void putOverACreatedObjectReplacesIt() {
    await(store.create("c", bytes("created")));
    await(store.put("c", bytes("replaced")));
    assertThat(await(store.get("c"))).isEqualTo(bytes("replaced"));
  }

  // ---------------------------------------------------------------------------------------------
  // get

  @Test
  protected void getOfAMissingKeyFailsWithNotFound() {
    ObjectNotFoundException e =
        assertFailsWith(ObjectNotFoundException.class, () -> store.get("missing/key"));
    assertThat(e.kind()).isEqualTo(LoamException.Kind.NOT_FOUND);
    assertThat(e.getMessage()).contains("key=missing/key");
    assertFailsWith(ObjectNotFoundException.class, () -> store.get("missing/key", 0, 10));
    assertFailsWith(ObjectNotFoundException.class, () -> store.getTail("missing/key", 10));
  }

  @Test
  protected void getOfADirectoryLikePrefixIsNotFound() {
    // "a" exists only as a prefix of "a/b"; it is not an object.
    await(store.create("a/b", bytes("x")));
    assertFailsWith(ObjectNotFoundException.class, () -> store.get("a"));
    assertThat(await(store.head("a"))).isEmpty();
  }

  @Test
  protected void rangedGetReturnsTheMiddle() {
    byte[] data = pattern(100);
    await(store.create("r", data));
    assertThat(await(store.get("r", 10, 20))).isEqualTo(Arrays.copyOfRange(data, 10, 30));
    assertThat(await(store.get("r", 0, 1))).isEqualTo(Arrays.copyOfRange(data, 0, 1));
    assertThat(await(store.get("r", 0, 100))).isEqualTo(data);
    assertThat(await(store.get("r", 99, 1))).isEqualTo(Arrays.copyOfRange(data, 99, 100));
  }

  @Test
  protected void rangedGetRunningPastTheEndIsCutAtTheEnd() {
    byte[] data = pattern(100);
    await(store.create("r", data));
    assertThat(await(store.get("r", 90, 50))).isEqualTo(Arrays.copyOfRange(data, 90, 100));
    assertThat(await(store.get("r", 0, Integer.MAX_VALUE))).isEqualTo(data);
    assertThat(await(store.get("r", 99, Integer.MAX_VALUE)))
        .isEqualTo(Arrays.copyOfRange(data, 99, 100));
  }

  @Test
  protected void rangedGetFromTheEndOrBeyondFailsWithInvalidRange() {
    await(store.create("r", pattern(100)));
    InvalidRangeException e =
        assertFailsWith(InvalidRangeException.class, () -> store.get("r", 100, 1));
    assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
    assertFailsWith(InvalidRangeException.class, () -> store.get("r", 101, 1));
    assertFailsWith(InvalidRangeException.class, () -> store.get("r", Long.MAX_VALUE, 1));
  }

  @Test
  protected void rangedGetOfTheEmptyObjectFailsWithInvalidRange() {
    await(store.create("e", new byte[0]));
    assertFailsWith(InvalidRangeException.class, () -> store.get("e", 0, 1));
  }

  @Test
  protected void rangedGetWithANegativeOffsetOrANonPositiveLengthFailsWithInvalidRange() {
    await(store.create("r", pattern(100)));
    assertFailsWith(InvalidRangeException.class, () -> store.get("r", -1, 10));
    assertFailsWith(InvalidRangeException.class, () -> store.get("r", 0, 0));
    assertFailsWith(InvalidRangeException.class, () -> store.get("r", 10, -5));
    assertFailsWith(InvalidRangeException.class, () -> store.get("r", 0, Integer.MIN_VALUE));
  }

  // ---------------------------------------------------------------------------------------------
  // getTail

  @Test
  protected void getTailReturnsTheLastBytesAndTheSize() {
    byte[] data = pattern(100);
    await(store.create("t", data));
    TailRead tail = await(store.getTail("t", 8));
    assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(data, 92, 100));
    assertThat(tail.objectSize()).isEqualTo(100);
    TailRead exact = await(store.getTail("t", 100));
    assertThat(exact.bytes()).isEqualTo(data);
    assertThat(exact.objectSize()).isEqualTo(100);
  }

  @Test
  protected void getTailLongerThanTheObjectReturnsTheWholeObject() {
    byte[] data = pattern(10);
    await(store.create("t", data));
    TailRead tail = await(store.getTail("t", 1000));
    assertThat(tail.bytes()).isEqualTo(data);
    assertThat(tail.objectSize()).isEqualTo(10);
    TailRead huge = await(store.getTail("t", Integer.MAX_VALUE));
    assertThat(huge.bytes()).isEqualTo(data);
  }

  @Test
  protected void getTailOfTheEmptyObjectReturnsNothingAndSizeZero() {
    await(store.create("e", new byte[0]));
    TailRead tail = await(store.getTail("e", 16));
    assertThat(tail.bytes()).isEmpty();
    assertThat(tail.objectSize()).isZero();
  }

  @Test
  protected void getTailWithANonPositiveLengthFailsWithInvalidRange() {
    await(store.create("t", pattern(10)));
    assertFailsWith(InvalidRangeException.class, () -> store.getTail("t", 0));
    assertFailsWith(InvalidRangeException.class, () -> store.getTail("t", -1));
  }

  // ---------------------------------------------------------------------------------------------
  // head

  @Test
  protected void headOfAnObjectReportsKeySizeAndTheSameTimeAsList() {
    await(store.create("h/one", pattern(123)));
    ObjectInfo info = await(store.head("h/one")).orElseThrow();
    assertThat(info.key()).isEqualTo("h/one");
    assertThat(info.size()).isEqualTo(123);
    ObjectInfo listed = listAll("h/", 1000).get(0);
    assertThat(listed).isEqualTo(info);
  }

  @Test
  protected void headOfAMissingKeyIsEmpty() {
    assertThat(await(store.head("nothing/here"))).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // list

  @Test
  protected void listIsInUtf8ByteOrderOfTheWholeKey() {
    // A directory walk would give a, a/b, a/c/d, a-b, a.c; the byte order interleaves them.
    List<String> keys =
        List.of(
            "a", "a/b", "a.c", "a-b", "a/c/d", "a0", "a_b", "A", "Z", "0", "_", "b", "a/b/c", "a.");
    for (String k : keys) {
      await(store.create(k, bytes(k)));
    }
    List<ObjectInfo> listed = listAll("", 1000);
    assertThat(keys(listed)).containsExactlyElementsOf(byteOrder(keys));
    for (ObjectInfo i : listed) {
      assertThat(i.size()).isEqualTo(bytes(i.key()).length);
    }
  }

  @Test
  protected void aKeyAndKeysBelowItCoexist() {
    await(store.create("a/b", bytes("below")));
    await(store.create("a", bytes("above")));
    await(store.create("a/b/c", bytes("deeper")));
    assertThat(await(store.get("a"))).isEqualTo(bytes("above"));
    assertThat(await(store.get("a/b"))).isEqualTo(bytes("below"));
    assertThat(await(store.get("a/b/c"))).isEqualTo(bytes("deeper"));
    assertThat(await(store.delete(List.of("a")))).isEmpty();
    assertThat(await(store.get("a/b"))).isEqualTo(bytes("below"));
    assertThat(await(store.delete(List.of("a/b")))).isEmpty();
    assertThat(await(store.get("a/b/c"))).isEqualTo(bytes("deeper"));
    assertThat(keys(listAll("", 1000))).containsExactly("a/b/c");
  }

  @Test
  protected void listPagesWithMaxKeysAndStartAfterCoverEveryKeyOnce() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      keys.add("p/" + i);
      keys.add("p/" + i + "/x");
      keys.add("p/" + i + "-y");
      keys.add("p/" + i + "/z/w");
    }
    for (String k : keys) {
      await(store.create(k, bytes(k)));
    }
    List<String> expected = byteOrder(keys);
    for (int maxKeys : new int[] {1, 3, 4, 27, 28, 29, 1000}) {
      List<String> seen = new ArrayList<>();
      String startAfter = "";
      for (int pages = 0; ; pages++) {
        assertThat(pages).as("pages for maxKeys=%d", maxKeys).isLessThanOrEqualTo(keys.size() + 1);
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
    ListPage first = await(store.list("p/", "", 3));
    assertThat(first.nextStartAfter()).as("more follow").isPresent();
  }

  @Test
  protected void listStartAfterNeedNotBeAKey() {
    for (String k : List.of("s/a", "s/b", "s/b/c", "s/c")) {
      await(store.create(k, bytes(k)));
    }
    assertThat(keys(await(store.list("s/", "s/a0", 1000)).objects()))
        .containsExactly("s/b", "s/b/c", "s/c");
    assertThat(keys(await(store.list("s/", "s/b/", 1000)).objects()))
        .containsExactly("s/b/c", "s/c");
    assertThat(keys(await(store.list("s/", "s/b/c", 1000)).objects())).containsExactly("s/c");
    assertThat(keys(await(store.list("s/", "s", 1000)).objects()))
        .containsExactly("s/a", "s/b", "s/b/c", "s/c");
    assertThat(await(store.list("s/", "s/z", 1000)).objects()).isEmpty();
    assertThat(await(store.list("s/", "t", 1000)).nextStartAfter()).isEmpty();
  }

  @Test
  protected void listPrefixNeedNotEndAtASegmentBoundary() {
    List<String> keys =
        List.of(
            "wal/st",
            "wal/stream-1/00",
            "wal/stream-1/01",
            "wal/stx",
            "wal/s",
            "wal/t",
            "walx",
            "wal/st/deep/er",
            "wa");
    for (String k : keys) {
      await(store.create(k, bytes(k)));
    }
    assertThat(keys(listAll("wal/st", 2)))
        .containsExactly(
            "wal/st", "wal/st/deep/er", "wal/stream-1/00", "wal/stream-1/01", "wal/stx");
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
  protected void listWithAPrefixNoKeyHasIsEmpty() {
    assertThat(await(store.list("", "", 10))).isEqualTo(new ListPage(List.of(), Optional.empty()));
    await(store.create("x/y", bytes("x")));
    for (String prefix : List.of("y", "x/z", "x/y/", "x//", "../", "/x", "x y", "\u00e9", "x/./")) {
      ListPage page = await(store.list(prefix, "", 10));
      assertThat(page.objects()).as("prefix %s", prefix).isEmpty();
      assertThat(page.nextStartAfter()).as("prefix %s", prefix).isEmpty();
    }
  }

  @Test
  protected void listWithMaxKeysOutsideOneToAThousandFailsWithInvalidRange() {
    assertFailsWith(InvalidRangeException.class, () -> store.list("", "", 0));
    assertFailsWith(InvalidRangeException.class, () -> store.list("", "", -1));
    assertFailsWith(InvalidRangeException.class, () -> store.list("", "", 1001));
    await(store.list("", "", 1000));
  }

  @Test
  protected void listOfLongKeysIsInByteOrder() {
    // Long segments are where a store that maps keys to paths has to work hardest.
    String s = "x".repeat(300);
    List<String> keys =
        List.of(s, s + "/a", s + "-b", s + "y", s.substring(0, 128), s.substring(0, 128) + "/z");
    for (String k : keys) {
      await(store.create(k, bytes(k)));
    }
    assertThat(keys(listAll("", 2))).containsExactlyElementsOf(byteOrder(keys));
    assertThat(keys(listAll(s, 1000)))
        .containsExactlyElementsOf(byteOrder(List.of(s, s + "/a", s + "-b", s + "y")));
    assertThat(keys(listAll(s + "/", 1000))).containsExactly(s + "/a");
  }

  @Test
  protected void listReflectsCompletedWritesAndDeletes() {
    await(store.create("l/1", bytes("1")));
    await(store.put("l/2", bytes("2")));
    assertThat(keys(listAll("l/", 1000))).containsExactly("l/1", "l/2");
    await(store.delete(List.of("l/1")));
    assertThat(keys(listAll("l/", 1000))).containsExactly("l/2");
    await(store.create("l/1", bytes("again")));
    assertThat(keys(listAll("l/", 1000))).containsExactly("l/1", "l/2");
  }

  // ---------------------------------------------------------------------------------------------
  // delete

  @Test
  protected void deleteOfABatchWithMissingKeysSucceeds() {
    await(store.create("d/1", bytes("1")));
    await(store.create("d/2", bytes("2")));
    await(store.create("d/3", bytes("3")));
    List<DeleteFailure> failures =
        await(store.delete(List.of("d/1", "d/missing", "d/3", "never/was", "d/1")));
    assertThat(failures).isEmpty();
    assertThat(keys(listAll("", 1000))).containsExactly("d/2");
  }

  @Test
  protected void afterDeleteTheKeyIsGoneAndCanBeCreatedAgain() {
    await(store.create("g/k", bytes("old")));
    assertThat(await(store.delete(List.of("g/k")))).isEmpty();
    assertFailsWith(ObjectNotFoundException.class, () -> store.get("g/k"));
    assertThat(await(store.head("g/k"))).isEmpty();
    assertThat(listAll("", 1000)).isEmpty();
    await(store.create("g/k", bytes("new")));
    assertThat(await(store.get("g/k"))).isEqualTo(bytes("new"));
  }

  @Test
  protected void deleteOfAnEmptyBatchSucceeds() {
    assertThat(await(store.delete(List.of()))).isEmpty();
  }

  @Test
  protected void deleteOfAThousandKeysSucceedsAndMoreFailsWithInvalidRange() {
    List<String> thousand = IntStream.range(0, 1000).mapToObj(i -> "m/" + i).toList();
    await(store.create("m/7", bytes("7")));
    assertThat(await(store.delete(thousand))).isEmpty();
    assertThat(await(store.head("m/7"))).isEmpty();
    List<String> tooMany = IntStream.range(0, 1001).mapToObj(i -> "m/" + i).toList();
    assertFailsWith(InvalidRangeException.class, () -> store.delete(tooMany));
  }

  @Test
  protected void anInvalidKeyInADeleteBatchIsAPerKeyFailure() {
    await(store.create("v/ok", bytes("ok")));
    List<DeleteFailure> failures = await(store.delete(List.of("v/ok", "bad//key")));
    assertThat(failures).hasSize(1);
    assertThat(failures.get(0).key()).isEqualTo("bad//key");
    assertThat(failures.get(0).error()).isInstanceOf(InvalidKeyException.class);
    assertThat(await(store.head("v/ok"))).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // keys

  /** Keys every store must reject, each with what it breaks. */
  protected static List<String> invalidKeys() {
    return List.of(
        "", // empty
        "..", // dot-dot segment
        ".", // dot segment
        "a/../b",
        "a/./b",
        "a//b", // empty segment
        "//",
        "/a", // leading slash
        "a/", // trailing slash
        "/",
        "x".repeat(1025), // over 1024 bytes
        "a/".repeat(512) + "b", // 1025 bytes in segments
        "a b", // bad characters from here on
        "a~",
        "a+b",
        "a\\b",
        "a:b",
        "a*",
        "caf\u00e9",
        "a\u0000b",
        "a\nb",
        "\ud83d\ude00");
  }

  @Test
  protected void invalidKeysFailEveryOperationThroughTheFuture() {
    for (String key : invalidKeys()) {
      String shown = key.length() > 40 ? key.substring(0, 40) + "..." : key;
      for (var call : operationsOn(key).entrySet()) {
        InvalidKeyException e = assertFailsWith(InvalidKeyException.class, call.getValue());
        assertThat(e.kind())
            .as("%s(%s)", call.getKey(), shown)
            .isEqualTo(LoamException.Kind.INVALID);
      }
    }
    assertThat(listAll("", 1000)).isEmpty();
  }

  @Test
  protected void validEdgeKeysAreAccepted() {
    List<String> keys =
        List.of(
            "x".repeat(1024), // exactly 1024 bytes, one segment
            "a/".repeat(511) + "bc", // exactly 1024 bytes, 512 segments
            "ABCXYZabcxyz0189._-",
            "..a",
            ".a",
            "a.",
            "...",
            "-",
            "_/_",
            "a.b/c-d/e_f");
    for (String k : keys) {
      assertThat(k.getBytes(UTF_8).length).isLessThanOrEqualTo(1024);
      await(store.create(k, bytes(k)));
      assertThat(await(store.get(k))).as(k).isEqualTo(bytes(k));
      assertThat(await(store.head(k))).isPresent();
    }
    assertThat(keys(listAll("", 7))).containsExactlyElementsOf(byteOrder(keys));
    assertThat(await(store.delete(keys))).isEmpty();
    assertThat(listAll("", 1000)).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // buffer ownership

  @Test
  protected void mutatingAPassedArrayAfterTheWriteDoesNotChangeTheObject() {
    byte[] mine = bytes("original");
    await(store.create("o/c", mine));
    Arrays.fill(mine, (byte) 'X');
    assertThat(await(store.get("o/c"))).isEqualTo(bytes("original"));
    byte[] other = bytes("put-bytes");
    await(store.put("o/p", other));
    Arrays.fill(other, (byte) 'Y');
    assertThat(await(store.get("o/p"))).isEqualTo(bytes("put-bytes"));
  }

  @Test
  protected void mutatingAReturnedArrayDoesNotChangeLaterReads() {
    await(store.create("o/r", bytes("0123456789")));
    Arrays.fill(await(store.get("o/r")), (byte) 'X');
    Arrays.fill(await(store.get("o/r", 2, 3)), (byte) 'X');
    Arrays.fill(await(store.getTail("o/r", 4)).bytes(), (byte) 'X');
    assertThat(await(store.get("o/r"))).isEqualTo(bytes("0123456789"));
    assertThat(await(store.get("o/r", 2, 3))).isEqualTo(bytes("234"));
    assertThat(await(store.getTail("o/r", 4)).bytes()).isEqualTo(bytes("6789"));
  }

  // ---------------------------------------------------------------------------------------------
  // close

  @Test
  protected void callsAfterCloseFailWithUnavailable() {
    await(store.create("c/1", bytes("1")));
    store.close();
    store.close(); // idempotent
    assertFailsWith(StoreUnavailableException.class, () -> store.create("c/2", bytes("2")));
    assertFailsWith(StoreUnavailableException.class, () -> store.put("c/2", bytes("2")));
    assertFailsWith(StoreUnavailableException.class, () -> store.get("c/1"));
    assertFailsWith(StoreUnavailableException.class, () -> store.get("c/1", 0, 1));
    assertFailsWith(StoreUnavailableException.class, () -> store.getTail("c/1", 1));
    assertFailsWith(StoreUnavailableException.class, () -> store.head("c/1"));
    assertFailsWith(StoreUnavailableException.class, () -> store.list("", "", 10));
    assertFailsWith(StoreUnavailableException.class, () -> store.delete(List.of("c/1")));
  }
}
