package dev.loam.wal.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * WAL format v2 (docs/formats/wal-object-v2.md): objects mixing plain chunks and chunks sealed
 * under two keys round-trip; every changed byte of a sealed chunk, even with its CRC recomputed, is
 * rejected with an error naming the chunk; a chunk moved, copied or relabelled fails.
 */
class SealedChunkPropertyTest {
  static final KeyEncryptionKey K1 = key("ns-a/01J0GXQ2E4KX9V0M3N5P6R8S9T", 1);
  static final KeyEncryptionKey K2 = key("ns-b/01J0GXQ2E4KX9V0M3N5P6R8S9V", 2);
  static final Map<String, KeyEncryptionKey> KEYS = Map.of(K1.id(), K1, K2.id(), K2);
  static final KeyResolver RESOLVER =
      id -> {
        KeyEncryptionKey k = KEYS.get(id);
        if (k == null) {
          throw new LoamException(LoamException.Kind.NOT_FOUND, "no such key keyId=" + id);
        }
        return k;
      };

  static KeyEncryptionKey key(String id, int seed) {
    byte[] m = new byte[32];
    new SplittableRandom(seed).nextBytes(m);
    return new KeyEncryptionKey(id, m);
  }

  record Add(long streamId, int partition, byte[] payload) {}

  record Input(String objectKey, Ulid ulid, List<Add> adds, long seed) {}

  /** Stream 0 and 1 are plain, 2 and 3 sealed under K1, 4 and 5 under K2. */
  static KeyEncryptionKey keyOf(long streamId) {
    return streamId < 2 ? null : streamId < 4 ? K1 : K2;
  }

  static Arbitrary<Input> inputs(int maxAdds, int maxPayload) {
    Arbitrary<Add> add =
        Combinators.combine(
                Arbitraries.longs().between(0, 5),
                Arbitraries.integers().between(0, 2),
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(maxPayload))
            .as(Add::new);
    return Combinators.combine(
            Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('/', 'é')
                .ofMinLength(1)
                .ofMaxLength(40),
            Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(Ulid::new),
            add.list().ofMinSize(1).ofMaxSize(maxAdds),
            Arbitraries.longs())
        .as(Input::new);
  }

  @Provide
  Arbitrary<Input> objects() {
    return inputs(20, 200);
  }

  @Provide
  Arbitrary<Input> small() {
    return inputs(4, 10);
  }

  static WalObject build(Input in) {
    WalObjectBuilder b =
        new WalObjectBuilder(
            "node-1",
            in.ulid(),
            DurabilityClass.STANDARD,
            in.objectKey(),
            new SplittableRandom(in.seed()));
    for (Add a : in.adds()) {
      b.add(a.streamId(), a.partition(), ChunkEncoding.KAFKA, a.payload(), keyOf(a.streamId()));
    }
    return b.build();
  }

  static ByteBuffer open(WalObject o, int i, String objectKey) {
    ChunkIndexEntry e = o.chunks().get(i);
    return WalObjectReader.openChunk(o.chunk(i), e, i, objectKey, RESOLVER);
  }

  @Property(tries = 200)
  void roundTrip(@ForAll("objects") Input in) {
    WalObject o = build(in);
    assertThat(o.size()).isEqualTo(o.bytes().length);
    WalObject p = WalObjectReader.parse(o.bytes());
    boolean anySealed = in.adds().stream().anyMatch(a -> keyOf(a.streamId()) != null);
    assertThat(p.header().version()).isEqualTo(anySealed ? 2 : 1);
    assertThat(p.chunks()).isEqualTo(o.chunks());
    List<byte[]> plaintexts = new ArrayList<>();
    for (int i = 0; i < p.chunks().size(); i++) {
      ChunkIndexEntry e = p.chunks().get(i);
      assertThat(e.sealed()).isEqualTo(keyOf(e.streamId()) != null);
      ByteBuffer plain = open(p, i, in.objectKey());
      byte[] b = new byte[plain.remaining()];
      plain.get(b);
      plaintexts.add(b);
      if (e.sealed()) {
        // Stored size: plaintext plus header (72 bytes besides the key id) and tag.
        assertThat(e.length()).isEqualTo(b.length + 72 + keyOf(e.streamId()).id().length());
      }
    }
    // Every payload is where its ticket says, in the object or in its chunk's plaintext.
    for (int t = 0; t < in.adds().size(); t++) {
      Add a = in.adds().get(t);
      int chunk = indexOf(p, a);
      byte[] where;
      int at;
      if (o.isSealed(t)) {
        where = plaintexts.get(chunk);
        at = (int) o.plaintextOffset(t);
      } else {
        where = o.bytes();
        at = (int) o.payloadOffset(t);
      }
      assertThat(Arrays.copyOfRange(where, at, at + a.payload().length)).isEqualTo(a.payload());
    }
  }

  static int indexOf(WalObject o, Add a) {
    for (int i = 0; i < o.chunks().size(); i++) {
      ChunkIndexEntry e = o.chunks().get(i);
      if (e.streamId() == a.streamId() && e.partition() == a.partition()) {
        return i;
      }
    }
    throw new AssertionError("no chunk for " + a);
  }

  static int crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return (int) c.getValue();
  }

  static ChunkIndexEntry withCrc(ChunkIndexEntry e, byte[] bytes) {
    return new ChunkIndexEntry(
        e.streamId(),
        e.partition(),
        e.encoding(),
        e.offset(),
        bytes.length,
        crc(bytes),
        e.sealed());
  }

  static byte[] bytesOf(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  /**
   * A changed byte anywhere in a sealed chunk, with the CRC recomputed (what an attacker with
   * bucket write access can do), fails: the sealed-chunk checks name the chunk, or the key id no
   * longer resolves.
   */
  @Property(tries = 40)
  void everySingleByteFlipOfASealedChunkIsDetectedAndNamed(
      @ForAll("small") Input in, @ForAll byte mask) {
    byte flip = mask == 0 ? (byte) 0x01 : mask;
    WalObject o = build(in);
    for (int i = 0; i < o.chunks().size(); i++) {
      ChunkIndexEntry e = o.chunks().get(i);
      if (!e.sealed()) {
        continue;
      }
      byte[] stored = bytesOf(o.chunk(i));
      for (int at = 0; at < stored.length; at++) {
        byte[] bad = stored.clone();
        bad[at] ^= flip;
        int idx = i;
        int pos = at;
        Throwable t =
            catchThrowable(
                () ->
                    WalObjectReader.openChunk(
                        ByteBuffer.wrap(bad), withCrc(e, bad), idx, in.objectKey(), RESOLVER));
        assertThat(t).as("flip at byte %d of sealed chunk %d", pos, idx).isNotNull();
        assertThat(t.getMessage())
            .contains(
                " streamId=" + e.streamId(),
                " partition=" + e.partition(),
                " chunkIndex=" + idx,
                " objectKey=" + in.objectKey());
        if (t instanceof CorruptionException) {
          assertThat(t.getMessage()).startsWith("wal sealed chunk");
        } else {
          // Only a changed key id (or its length) can end here: the key it names does not exist.
          assertThat(t).isInstanceOf(LoamException.class);
          assertThat(((LoamException) t).kind()).isEqualTo(LoamException.Kind.NOT_FOUND);
          assertThat(t.getMessage()).startsWith("no such key keyId=");
          assertThat(pos).isBetween(2, 4 + keyOf(e.streamId()).id().length() - 1);
        }
        // Without recomputing the CRC, the CRC check finds it first.
        assertThat(
                catchThrowable(
                    () ->
                        WalObjectReader.openChunk(
                            ByteBuffer.wrap(bad), e, idx, in.objectKey(), RESOLVER)))
            .isInstanceOf(CorruptionException.class)
            .hasMessageStartingWith("wal chunk crc mismatch");
      }
    }
  }

  /** A sealed chunk read at another position, in another object, or as another stream fails. */
  @Property(tries = 100)
  void aMovedCopiedOrRelabelledChunkFails(@ForAll("objects") Input in) {
    WalObject o = build(in);
    List<Integer> sealed = new ArrayList<>();
    for (int i = 0; i < o.chunks().size(); i++) {
      if (o.chunks().get(i).sealed()) {
        sealed.add(i);
      }
    }
    for (int i : sealed) {
      ChunkIndexEntry e = o.chunks().get(i);
      byte[] stored = bytesOf(o.chunk(i));
      // Swapped: chunk i's bytes read where chunk j is indexed.
      for (int j : sealed) {
        if (j == i) {
          continue;
        }
        ChunkIndexEntry other = o.chunks().get(j);
        ChunkIndexEntry swapped =
            new ChunkIndexEntry(
                other.streamId(),
                other.partition(),
                other.encoding(),
                other.offset(),
                stored.length,
                crc(stored),
                true);
        assertThat(
                catchThrowable(
                    () ->
                        WalObjectReader.openChunk(
                            ByteBuffer.wrap(stored), swapped, j, in.objectKey(), RESOLVER)))
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining("wal sealed chunk");
      }
      // Copied into another object.
      assertThat(
              catchThrowable(
                  () ->
                      WalObjectReader.openChunk(
                          ByteBuffer.wrap(stored), e, i, in.objectKey() + "x", RESOLVER)))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith("wal sealed chunk authentication failed");
      // Same stream at another partition.
      ChunkIndexEntry relabelled =
          new ChunkIndexEntry(
              e.streamId(),
              e.partition() + 1,
              e.encoding(),
              e.offset(),
              e.length(),
              e.crc32c(),
              true);
      assertThat(
              catchThrowable(
                  () ->
                      WalObjectReader.openChunk(
                          ByteBuffer.wrap(stored), relabelled, i, in.objectKey(), RESOLVER)))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith("wal sealed chunk authentication failed");
    }
  }

  /** Every flipped byte of a whole v2 object is found by a full parse, as for v1. */
  @Property(tries = 30)
  void everySingleByteCorruptionOfAV2ObjectIsDetected(
      @ForAll("small") Input in, @ForAll byte mask) {
    byte flip = mask == 0 ? (byte) 0x80 : mask;
    byte[] bytes = build(in).bytes();
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= flip;
      int at = i;
      assertThat(catchThrowable(() -> WalObjectReader.parse(bad)))
          .as("flip at byte %d of %d", at, bytes.length)
          .isInstanceOf(CorruptionException.class);
    }
  }

  /** A destroyed key fails only its own chunks; the object's other chunks open. */
  @Property(tries = 50)
  void aDestroyedKeyFailsOnlyItsChunks(@ForAll("objects") Input in) {
    WalObject o = build(in);
    KeyResolver shredded =
        id -> {
          if (id.equals(K1.id())) {
            throw new KeyDestroyedException("ns-a", id);
          }
          return RESOLVER.resolve(id);
        };
    for (int i = 0; i < o.chunks().size(); i++) {
      ChunkIndexEntry e = o.chunks().get(i);
      int idx = i;
      Throwable t =
          catchThrowable(
              () -> WalObjectReader.openChunk(o.chunk(idx), e, idx, in.objectKey(), shredded));
      if (keyOf(e.streamId()) == K1) {
        assertThat(t)
            .isInstanceOf(KeyDestroyedException.class)
            .hasMessageContaining("namespace=ns-a");
        assertThat(((KeyDestroyedException) t).kind()).isEqualTo(LoamException.Kind.NOT_FOUND);
      } else {
        assertThat(t).isNull();
      }
    }
  }
}
