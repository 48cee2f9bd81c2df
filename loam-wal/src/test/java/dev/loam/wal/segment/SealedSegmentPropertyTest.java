package dev.loam.wal.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.KeyResolver;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Sealed segments (segment-v2.md): they round-trip through a full parse and through ranged opens of
 * the tail-parsed index, and every change an attacker with bucket access could make is detected:
 * any single flipped byte (with or without the CRCs recomputed), two batches swapped, a segment's
 * bytes under another key, a destroyed key.
 */
class SealedSegmentPropertyTest {
  static final String OBJECT_KEY = "seg/c1/7/0/00000000000000000000-01J00000000000000000000000.seg";
  static final KeyEncryptionKey KEK = new KeyEncryptionKey("ns-a/01J0KEY", fill(32, 7));
  static final KeyResolver KEYS =
      id -> {
        if (id.equals(KEK.id())) {
          return KEK;
        }
        throw new LoamException(LoamException.Kind.NOT_FOUND, "no such key keyId=" + id);
      };

  static byte[] fill(int n, int v) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) v);
    return b;
  }

  static Segment sealed(SegmentPropertyTest.Input in, String objectKey, long seed) {
    SegmentBuilder b = new SegmentBuilder(in.streamId(), in.partition(), in.baseOffset());
    long offset = in.baseOffset();
    for (SegmentPropertyTest.Entry e : in.entries()) {
      b.addEntry(offset, SegmentPropertyTest.entryBytes(e));
      for (List<RecordData> r : e.batches()) {
        offset += r.size();
      }
    }
    return b.buildSealed(objectKey, KEK, new SplittableRandom(seed));
  }

  @Provide
  Arbitrary<SegmentPropertyTest.Input> segments() {
    return SegmentPropertyTest.inputs(6, 4);
  }

  @Provide
  Arbitrary<SegmentPropertyTest.Input> smallSegments() {
    return SegmentPropertyTest.inputs(2, 2);
  }

  /** Opens every batch of {@code bytes} the way fetch does: tail parse, then one ranged open. */
  static byte[] openAllRanged(byte[] bytes, String objectKey) {
    SegmentReader.SegmentTail t = SegmentReader.parseTail(bytes, bytes.length);
    List<SegmentBatch> bs = t.batches();
    long from = bs.get(0).position();
    SegmentBatch last = bs.get(bs.size() - 1);
    byte[] stored = Arrays.copyOfRange(bytes, (int) from, (int) (last.position() + last.length()));
    return SealedSegment.open(
        objectKey,
        t.seal(),
        SealedSegment.resolve(t.seal(), objectKey, KEYS),
        bs,
        0,
        bs.size(),
        stored);
  }

  @Property(tries = 100)
  void roundTrip(@ForAll("segments") SegmentPropertyTest.Input in, @ForAll long seed) {
    Segment plain = SegmentPropertyTest.build(in);
    Segment s = sealed(in, OBJECT_KEY, seed);
    Segment p = SegmentReader.parse(s.bytes(), OBJECT_KEY, KEYS);
    assertThat(p.batches()).isEqualTo(s.batches());
    assertThat(p.streamId()).isEqualTo(in.streamId());
    assertThat(p.partition()).isEqualTo(in.partition());
    // Same offsets and timestamps as the plain segment; each stored batch is 16 bytes longer.
    for (int i = 0; i < s.batches().size(); i++) {
      SegmentBatch a = plain.batches().get(i);
      SegmentBatch b = s.batches().get(i);
      assertThat(b.baseOffset()).isEqualTo(a.baseOffset());
      assertThat(b.recordCount()).isEqualTo(a.recordCount());
      assertThat(b.maxTimestamp()).isEqualTo(a.maxTimestamp());
      assertThat(b.length()).isEqualTo(a.length() + SealedSegment.TAG_LENGTH);
    }
    // The opened batches are the plain segment's data region byte for byte.
    byte[] plainData =
        Arrays.copyOfRange(plain.bytes(), SegmentReader.HEADER_SIZE, (int) plain.dataEnd());
    assertThat(openAllRanged(s.bytes(), OBJECT_KEY)).isEqualTo(plainData);
    // Any single batch opens alone, from its own stored bytes.
    for (int i = 0; i < s.batches().size(); i++) {
      SegmentBatch b = s.batches().get(i);
      byte[] one =
          Arrays.copyOfRange(s.bytes(), (int) b.position(), (int) (b.position() + b.length()));
      SegmentReader.SegmentTail t = SegmentReader.parseTail(s.bytes(), s.size());
      byte[] opened = SealedSegment.open(OBJECT_KEY, t.seal(), KEK, t.batches(), i, 1, one);
      RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(opened));
      assertThat(rb.baseOffset()).isEqualTo(b.baseOffset());
    }
    // No stored byte range equals a batch's plaintext: the records are not in clear.
    for (int i = 0; i < plain.batches().size(); i++) {
      SegmentBatch a = plain.batches().get(i);
      byte[] batch =
          Arrays.copyOfRange(plain.bytes(), (int) a.position(), (int) (a.position() + a.length()));
      assertThat(indexOf(s.bytes(), Arrays.copyOfRange(batch, 61, batch.length))).isLessThan(0);
    }
  }

  @Property(tries = 15)
  void everySingleByteFlipIsDetected(
      @ForAll("smallSegments") SegmentPropertyTest.Input in, @ForAll long seed, @ForAll byte mask) {
    byte flip = mask == 0 ? (byte) 0x80 : mask;
    byte[] bytes = sealed(in, OBJECT_KEY, seed).bytes();
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= flip;
      int at = i;
      // As stored: a full parse finds it (a CRC at least).
      assertThat(catchThrowable(() -> SegmentReader.parse(bad, OBJECT_KEY, KEYS)))
          .as("flip at byte %d of %d", at, bytes.length)
          .isInstanceOf(CorruptionException.class);
      // With every CRC recomputed (a deliberate change): the seal still finds it.
      if (isCrcField(at, bytes.length)) {
        continue; // recomputing the CRC that was flipped undoes the flip
      }
      byte[] forged = recomputeCrcs(bad);
      Throwable full = catchThrowable(() -> SegmentReader.parse(forged, OBJECT_KEY, KEYS));
      assertThat(full).as("forged flip at byte %d of %d", at, bytes.length).isNotNull();
      assertThat(full).isInstanceOfAny(CorruptionException.class, LoamException.class);
      if (at >= SegmentReader.HEADER_SIZE) {
        // The header is not read by a ranged read; everything after it is checked by one.
        Throwable ranged = catchThrowable(() -> openAllRanged(forged, OBJECT_KEY));
        assertThat(ranged).as("ranged, forged flip at byte %d", at).isNotNull();
      }
    }
  }

  @Property(tries = 50)
  void swappedBatchesFail(
      @ForAll("segments") SegmentPropertyTest.Input in,
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 100) int x,
      @ForAll @IntRange(min = 0, max = 100) int y) {
    Segment s = sealed(in, OBJECT_KEY, seed);
    int n = s.batches().size();
    if (n < 2) {
      return;
    }
    int i = x % n;
    int j = y % n;
    if (i == j) {
      j = (i + 1) % n;
    }
    byte[] swapped = recomputeCrcs(swap(s, Math.min(i, j), Math.max(i, j)));
    assertThatThrownBy(() -> openAllRanged(swapped, OBJECT_KEY))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("authentication failed");
    assertThatThrownBy(() -> SegmentReader.parse(swapped, OBJECT_KEY, KEYS))
        .isInstanceOf(CorruptionException.class);
  }

  @Property(tries = 30)
  void anotherObjectKeyFails(@ForAll("segments") SegmentPropertyTest.Input in, @ForAll long seed) {
    byte[] bytes = sealed(in, OBJECT_KEY, seed).bytes();
    String other = OBJECT_KEY.replace("/0/", "/1/");
    assertThatThrownBy(() -> openAllRanged(bytes, other))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("segment sealed batch authentication failed batch=0")
        .hasMessageContaining("objectKey=" + other);
  }

  @Property(tries = 20)
  void destroyedKeyIsTyped(@ForAll("smallSegments") SegmentPropertyTest.Input in) {
    byte[] bytes = sealed(in, OBJECT_KEY, 1).bytes();
    KeyResolver destroyed =
        id -> {
          throw new KeyDestroyedException("ns-a", id);
        };
    Throwable t = catchThrowable(() -> SegmentReader.parse(bytes, OBJECT_KEY, destroyed));
    assertThat(t).isInstanceOf(KeyDestroyedException.class);
    assertThat(((KeyDestroyedException) t).namespace()).isEqualTo("ns-a");
    // Without a resolver a sealed segment is refused, never misread.
    assertThatThrownBy(() -> SegmentReader.parse(bytes))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("sealed segment");
  }

  static boolean isCrcField(int at, int size) {
    int f = size - SegmentFormat.FOOTER_SIZE;
    return (at >= SegmentFormat.H_CRC && at < SegmentFormat.HEADER_SIZE)
        || (at >= f + SegmentFormat.F_INDEX_CRC && at < f + SegmentFormat.F_VERSION)
        || (at >= f + SegmentFormat.F_FOOTER_CRC && at < f + SegmentFormat.F_MAGIC);
  }

  /** Batches i < j exchanged: their stored bytes trade places; the index keeps its offsets. */
  static byte[] swap(Segment s, int i, int j) {
    byte[] b = s.bytes();
    List<SegmentBatch> bs = s.batches();
    List<byte[]> parts = new ArrayList<>();
    for (SegmentBatch x : bs) {
      parts.add(Arrays.copyOfRange(b, (int) x.position(), (int) (x.position() + x.length())));
    }
    byte[] t = parts.get(i);
    parts.set(i, parts.get(j));
    parts.set(j, t);
    byte[] out = b.clone();
    int pos = SegmentReader.HEADER_SIZE;
    int idx = (int) s.dataEnd() + SegmentFormat.INDEX_FIXED;
    for (int k = 0; k < parts.size(); k++) {
      System.arraycopy(parts.get(k), 0, out, pos, parts.get(k).length);
      int e = idx + k * SegmentFormat.ENTRY_SIZE;
      BigEndian.putLong(out, e + SegmentFormat.E_POSITION, pos);
      BigEndian.putInt(out, e + SegmentFormat.E_LENGTH, parts.get(k).length);
      pos += parts.get(k).length;
    }
    return out;
  }

  /** Rewrites header, index, data and footer CRCs from the bytes as they are. */
  static byte[] recomputeCrcs(byte[] in) {
    byte[] b = in.clone();
    BigEndian.putInt(b, SegmentFormat.H_CRC, crc(b, 0, SegmentFormat.H_CRC));
    int f = b.length - SegmentFormat.FOOTER_SIZE;
    long indexOffset = BigEndian.getLong(b, f + SegmentFormat.F_INDEX_OFFSET);
    int indexLength = BigEndian.getInt(b, f + SegmentFormat.F_INDEX_LENGTH);
    if (indexOffset >= SegmentFormat.HEADER_SIZE
        && indexLength > 0
        && indexOffset + indexLength <= f) {
      BigEndian.putInt(b, f + SegmentFormat.F_INDEX_CRC, crc(b, (int) indexOffset, indexLength));
      BigEndian.putInt(
          b,
          f + SegmentFormat.F_DATA_CRC,
          crc(b, SegmentFormat.HEADER_SIZE, (int) indexOffset - SegmentFormat.HEADER_SIZE));
    }
    BigEndian.putInt(b, f + SegmentFormat.F_FOOTER_CRC, crc(b, f, SegmentFormat.F_FOOTER_CRC));
    return b;
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  static int indexOf(byte[] hay, byte[] needle) {
    if (needle.length < 8) {
      return -1;
    }
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int k = 0; k < needle.length; k++) {
        if (hay[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  static {
    // The test key id is ASCII: its bytes equal its chars.
    assert KEK.id().getBytes(StandardCharsets.UTF_8).length == KEK.id().length();
  }
}
