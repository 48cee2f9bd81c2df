package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The tail cache's ring of chunks: exact bytes or nothing, oldest evicted first, bounded. */
class TailCacheTest {
  static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void servesOneBatchAndARunOfConsecutiveBatches() {
    TailCache c = new TailCache(1 << 20);
    byte[] a = bytes(100, 1);
    byte[] b = bytes(50, 2);
    c.put("o", 10, a);
    c.put("o", 110, b);
    assertThat(c.get("o", 10, 100)).containsExactly(a);
    byte[] both = new byte[150];
    System.arraycopy(a, 0, both, 0, 100);
    System.arraycopy(b, 0, both, 100, 50);
    assertThat(c.get("o", 10, 150)).containsExactly(both);
    assertThat(c.get("o", 110, 50)).containsExactly(b);
    assertThat(c.hits()).isEqualTo(3);
    // A range that runs past the cached batches, starts mid-batch, or ends mid-batch: a miss.
    assertThat(c.get("o", 10, 151)).isNull();
    assertThat(c.get("o", 11, 99)).isNull();
    assertThat(c.get("o", 10, 120)).isNull();
    assertThat(c.get("other", 10, 100)).isNull();
    assertThat(c.misses()).isEqualTo(4);
  }

  @Test
  void theOldestChunkIsDroppedWholeOnceTheBoundIsReached() {
    // A capacity below CHUNK_BYTES is one chunk of that size.
    TailCache c = new TailCache(1000);
    for (int i = 0; i < 10; i++) {
      c.put("o", i * 100L, bytes(100, i)); // fills the single 1000-byte chunk
    }
    assertThat(c.get("o", 0, 100)).containsExactly(bytes(100, 0));
    c.put("o", 1000, bytes(100, 10)); // no room: the chunk is reused, everything before goes
    assertThat(c.get("o", 0, 100)).isNull();
    assertThat(c.get("o", 900, 100)).isNull();
    assertThat(c.get("o", 1000, 100)).containsExactly(bytes(100, 10));
  }

  @Test
  void aBatchLargerThanAChunkOrACacheOfZeroBytesKeepsNothing() {
    TailCache c = new TailCache(1000);
    c.put("o", 0, bytes(1001, 1));
    assertThat(c.get("o", 0, 1001)).isNull();
    TailCache off = new TailCache(0);
    off.put("o", 0, bytes(10, 1));
    assertThat(off.get("o", 0, 10)).isNull();
  }

  @Test
  void aReturnedArrayIsACopy() {
    TailCache c = new TailCache(1 << 20);
    byte[] a = bytes(10, 1);
    c.put("o", 0, a);
    byte[] got = c.get("o", 0, 10);
    got[0] ^= 1;
    assertThat(c.get("o", 0, 10)).containsExactly(a);
  }

  /**
   * Random batch sizes (some larger than the cache) through a small cache: whatever it returns is
   * exactly the bytes put there, and the newest batch that fits is always served.
   */
  @Property(tries = 200)
  void neverServesWrongBytesAndKeepsTheNewest(
      @ForAll @IntRange(min = 1, max = 400) int n, @ForAll long seed) {
    TailCache c = new TailCache(3000, 1000); // three chunks of 1000 bytes
    Random r = new Random(seed);
    List<long[]> puts = new ArrayList<>(); // {offset, length, seed}
    long offset = 0;
    for (int i = 0; i < n; i++) {
      int len = 1 + r.nextInt(r.nextInt(10) == 0 ? 1200 : 300);
      int s = r.nextInt();
      c.put("o", offset, bytes(len, s));
      puts.add(new long[] {offset, len, s});
      if (len <= 1000) {
        assertThat(c.get("o", offset, len)).as("newest").containsExactly(bytes(len, s));
      }
      // The newest chunk's worth of batches is always kept: a chunk is dropped only when the
      // writer moves past it, never the one it just filled.
      long back = 0;
      for (int j = puts.size() - 1; j >= 0 && back + puts.get(j)[1] <= 1000; j--) {
        long[] p = puts.get(j);
        back += p[1];
        assertThat(c.get("o", p[0], (int) p[1])).as("recent").isNotNull();
      }
      offset += len;
    }
    for (long[] p : puts) {
      byte[] got = c.get("o", p[0], (int) p[1]);
      if (got != null) {
        assertThat(Arrays.equals(got, bytes((int) p[1], (int) p[2]))).isTrue();
      }
    }
  }
}
