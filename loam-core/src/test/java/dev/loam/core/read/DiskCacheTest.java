package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.core.maintain.InvalidatingObjectStore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.testing.FaultyObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskCacheTest {
  @TempDir Path dir;
  final ExecutorService io = Executors.newFixedThreadPool(2);
  final ReadCounters stats = new ReadCounters();

  @AfterEach
  void tearDown() {
    io.shutdownNow();
  }

  DiskCache open(long capacity) {
    DiskCache c = new DiskCache(dir, capacity, 1000, io, stats);
    c.start().join();
    return c;
  }

  static byte[] bytes(int seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  long filesOnDisk() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(DiskCache.SUFFIX)).count();
    }
  }

  long bytesOnDisk() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  throw new RuntimeException(e);
                }
              })
          .sum();
    }
  }

  @Test
  void hitAfterRestart() {
    DiskCache a = open(1 << 20);
    byte[] b = bytes(1, 1000);
    a.put("wal/obj1", 4096, b).join();
    assertThat(a.get("wal/obj1", 4096, 1000).join()).isEqualTo(b);
    a.close();

    DiskCache again = open(1 << 20);
    assertThat(again.entries()).isEqualTo(1);
    assertThat(again.bytes()).isEqualTo(DiskCache.headerBytes("wal/obj1".length()) + 1000);
    assertThat(again.get("wal/obj1", 4096, 1000).join()).isEqualTo(b);
    assertThat(stats.diskHits()).isEqualTo(2);
  }

  @Test
  void aCorruptedFileIsDetectedDeletedAndMissed() throws IOException {
    DiskCache c = open(1 << 20);
    c.put("o", 0, bytes(2, 500)).join();
    Path f = c.file(new DiskCache.Range("o", 0, 500));
    byte[] raw = Files.readAllBytes(f);
    raw[raw.length - 7] ^= 0x10;
    Files.write(f, raw);
    assertThat(c.get("o", 0, 500).join()).isNull();
    assertThat(stats.diskCorrupt()).isEqualTo(1);
    assertThat(Files.exists(f)).isFalse();
    assertThat(c.entries()).isZero();
    assertThat(c.bytes()).isZero();
  }

  @Test
  void aTruncatedFileIsDroppedByTheStartScan() throws IOException {
    DiskCache c = open(1 << 20);
    c.put("o", 0, bytes(3, 500)).join();
    Path f = c.file(new DiskCache.Range("o", 0, 500));
    Files.write(f, java.util.Arrays.copyOf(Files.readAllBytes(f), 100));
    Files.write(dir.resolve("x.ldc.7.tmp"), new byte[10]);
    c.close();
    DiskCache again = open(1 << 20);
    assertThat(again.entries()).isZero();
    assertThat(filesOnDisk()).isZero();
    assertThat(Files.exists(dir.resolve("x.ldc.7.tmp"))).isFalse();
  }

  @Test
  void neverServesBytesOfAnotherKeyOrRange() throws IOException {
    DiskCache c = open(1 << 20);
    byte[] a = bytes(4, 300);
    c.put("objA", 0, a).join();
    // Another range of the same object, or another object, is a miss.
    assertThat(c.get("objA", 0, 299).join()).isNull();
    assertThat(c.get("objA", 1, 300).join()).isNull();
    assertThat(c.get("objB", 0, 300).join()).isNull();
    // Even if a file of another key sits under the name (a hash collision, a stray copy) and the
    // index names it, the header check refuses it.
    c.put("objB", 0, bytes(5, 300)).join();
    Path fa = c.file(new DiskCache.Range("objA", 0, 300));
    Path fb = c.file(new DiskCache.Range("objB", 0, 300));
    Files.copy(fa, fb, StandardCopyOption.REPLACE_EXISTING);
    assertThat(c.get("objB", 0, 300).join()).isNull();
    assertThat(stats.diskCorrupt()).isEqualTo(1);
    assertThat(c.get("objA", 0, 300).join()).isEqualTo(a);
    // And a start scan drops a file whose name does not match its header.
    Files.copy(fa, fb, StandardCopyOption.REPLACE_EXISTING);
    c.close();
    DiskCache again = open(1 << 20);
    assertThat(again.entries()).isEqualTo(1);
    assertThat(again.get("objB", 0, 300).join()).isNull();
    assertThat(again.get("objA", 0, 300).join()).isEqualTo(a);
  }

  @Test
  void evictionKeepsTheByteBoundLeastRecentlyUsedFirst() throws IOException {
    int entryFile = DiskCache.headerBytes("o".length()) + 1000;
    long capacity = 3L * entryFile + 10;
    DiskCache c = open(capacity);
    for (int i = 0; i < 3; i++) {
      c.put("o", i * 1000L, bytes(i, 1000)).join();
    }
    // Touch the oldest so the second becomes least recently used.
    assertThat(c.get("o", 0, 1000).join()).isNotNull();
    for (int i = 3; i < 10; i++) {
      c.put("o", i * 1000L, bytes(i, 1000)).join();
      assertThat(c.bytes()).isLessThanOrEqualTo(capacity);
    }
    assertThat(c.entries()).isEqualTo(3);
    assertThat(bytesOnDisk()).isLessThanOrEqualTo(capacity);
    assertThat(filesOnDisk()).isEqualTo(3);
    assertThat(c.get("o", 9000, 1000).join()).isEqualTo(bytes(9, 1000));
    assertThat(c.get("o", 1000, 1000).join()).isNull();
    assertThat(stats.diskEvictions()).isEqualTo(7);
    // A range larger than the whole cache is not stored.
    c.put("o", 50_000, bytes(0, (int) capacity)).join();
    assertThat(c.bytes()).isLessThanOrEqualTo(capacity);
    // Restart with a smaller bound evicts down to it.
    c.close();
    DiskCache smaller = new DiskCache(dir, entryFile + 10, 1000, io, stats);
    smaller.start().join();
    assertThat(smaller.entries()).isEqualTo(1);
    assertThat(bytesOnDisk()).isLessThanOrEqualTo(entryFile + 10);
  }

  @Test
  void invalidateDropsAnObjectsRanges() throws IOException {
    DiskCache c = open(1 << 20);
    c.put("gone", 0, bytes(1, 100)).join();
    c.put("gone", 100, bytes(2, 100)).join();
    c.put("kept", 0, bytes(3, 100)).join();
    c.invalidate(List.of("gone"));
    assertThat(c.entries()).isEqualTo(1);
    assertThat(c.get("gone", 0, 100).join()).isNull();
    assertThat(c.get("kept", 0, 100).join()).isEqualTo(bytes(3, 100));
  }

  @Test
  void gcDeletesThroughTheWrapperDropTheObjectsRanges() {
    InMemoryObjectStore mem = new InMemoryObjectStore(InstantSource.system());
    mem.put("wal/gone", bytes(1, 10)).join();
    DiskCache c = open(1 << 20);
    c.put("wal/gone", 0, bytes(1, 10)).join();
    c.put("wal/kept", 0, bytes(2, 10)).join();
    new InvalidatingObjectStore(mem, c).delete(List.of("wal/gone")).join();
    assertThat(c.entries()).isEqualTo(1);
    assertThat(c.get("wal/gone", 0, 10).join()).isNull();
    assertThat(mem.head("wal/gone").join()).isEmpty();
    mem.close();
  }

  @Test
  void readPathRefetchesWhenTheCacheFileIsCorrupt() throws IOException {
    InMemoryObjectStore mem = new InMemoryObjectStore(InstantSource.system());
    FaultyObjectStore store = new FaultyObjectStore(mem);
    byte[] object = bytes(7, 4000);
    mem.put("wal/x", object).join();
    DiskCache cache = open(1 << 20);
    ReadPath rp = new ReadPath(store, new TailCache(0), cache, stats);
    IndexEntry e = entry("wal/x", 1000, 500);
    byte[] want = java.util.Arrays.copyOfRange(object, 1000, 1500);
    assertThat(rp.load(e).join()).isEqualTo(want);
    waitForWrites(rp, 1);
    assertThat(rp.load(e).join()).isEqualTo(want);
    assertThat(store.gets()).isEqualTo(1);
    assertThat(stats.diskHits()).isEqualTo(1);
    waitForWrites(rp, 1); // the shared load has left the coalescer
    Path f = cache.file(new DiskCache.Range("wal/x", 1000, 500));
    byte[] raw = Files.readAllBytes(f);
    raw[raw.length - 1] ^= 1;
    Files.write(f, raw);
    assertThat(rp.load(e).join()).isEqualTo(want);
    assertThat(store.gets()).isEqualTo(2);
    assertThat(stats.diskCorrupt()).isEqualTo(1);
    waitForWrites(rp, 2);
    assertThat(rp.load(e).join()).isEqualTo(want);
    assertThat(store.gets()).isEqualTo(2);
    mem.close();
  }

  void waitForWrites(ReadPath rp, int n) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (stats.diskWrites() != n || rp.inFlightLoads() != 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("disk cache never reached entries=" + n);
      }
      Thread.onSpinWait();
    }
  }

  static IndexEntry entry(String key, long offset, int length) {
    return new IndexEntry(0, 1, key, offset, length, 0);
  }
}
