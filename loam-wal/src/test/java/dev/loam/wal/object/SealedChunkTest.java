package dev.loam.wal.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Builder and reader rules of WAL format v2 that the property tests do not reach. */
class SealedChunkTest {
  static final Ulid ULID = new Ulid(1, 2);
  static final KeyEncryptionKey K = SealedChunkPropertyTest.K1;

  static WalObjectBuilder sealing() {
    return new WalObjectBuilder(
        "n", ULID, DurabilityClass.STANDARD, "wal/standard/c/n/x.wal", new SplittableRandom(1));
  }

  @Test
  void aBuilderWithoutObjectKeyRefusesToSeal() {
    WalObjectBuilder b = new WalObjectBuilder("n", ULID, DurabilityClass.STANDARD);
    assertThatThrownBy(() -> b.add(1, 0, ChunkEncoding.KAFKA, new byte[] {1}, K))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("no object key")
        .hasMessageContaining("streamId=1 partition=0");
  }

  @Test
  void oneChunkHasOneKey() {
    WalObjectBuilder b = sealing();
    b.add(1, 0, ChunkEncoding.KAFKA, new byte[] {1}, K);
    assertThatThrownBy(() -> b.add(1, 0, ChunkEncoding.KAFKA, new byte[] {2}))
        .hasMessageContaining("wal chunk key conflict existing=" + K.id() + " added=plain");
    assertThatThrownBy(
            () -> b.add(1, 0, ChunkEncoding.KAFKA, new byte[] {2}, SealedChunkPropertyTest.K2))
        .hasMessageContaining("added=" + SealedChunkPropertyTest.K2.id());
  }

  @Test
  void estimatedSizeIsExactWithSealedChunks() {
    WalObjectBuilder b = sealing();
    b.add(1, 0, ChunkEncoding.KAFKA, new byte[10], K);
    b.add(2, 0, ChunkEncoding.KAFKA, new byte[7]);
    b.add(1, 0, ChunkEncoding.KAFKA, new byte[3], K);
    int estimate = b.estimatedSize();
    WalObject o = b.build();
    assertThat(o.size()).isEqualTo(estimate);
    assertThat(o.header().version()).isEqualTo(2);
    assertThatThrownBy(() -> o.payloadOffset(0)).hasMessageContaining("sealed chunk");
    assertThat(o.plaintextOffset(0)).isZero();
    assertThat(o.plaintextOffset(2)).isEqualTo(10);
    assertThatThrownBy(() -> o.plaintextOffset(1)).hasMessageContaining("plain chunk");
  }

  @Test
  void objectsWithoutSealedChunksStayVersion1() {
    WalObjectBuilder b = sealing();
    b.add(2, 0, ChunkEncoding.KAFKA, new byte[7]);
    WalObject sealingBuilder = b.build();
    WalObjectBuilder plain = new WalObjectBuilder("n", ULID, DurabilityClass.STANDARD);
    plain.add(2, 0, ChunkEncoding.KAFKA, new byte[7]);
    assertThat(sealingBuilder.header().version()).isEqualTo(1);
    assertThat(sealingBuilder.bytes()).isEqualTo(plain.build().bytes());
  }

  /**
   * The SEALED flag means nothing in v1: a v1 object carrying it is corrupt, CRCs notwithstanding.
   */
  @Test
  void aVersion1ObjectWithTheSealedFlagIsCorrupt() {
    WalObjectBuilder plain = new WalObjectBuilder("n", ULID, DurabilityClass.STANDARD);
    plain.add(2, 0, ChunkEncoding.KAFKA, new byte[7]);
    byte[] b = plain.build().bytes().clone();
    int f = b.length - WalFormat.FOOTER_SIZE;
    int index = (int) BigEndian.getLong(b, f + WalFormat.F_INDEX_OFFSET);
    int indexLength = BigEndian.getInt(b, f + WalFormat.F_INDEX_LENGTH);
    int entry = index + WalFormat.I_NODE_ID + 1 + 4;
    b[entry + WalFormat.E_FLAGS] = WalFormat.ENTRY_FLAG_SEALED;
    BigEndian.putInt(b, f + WalFormat.F_INDEX_CRC, crc(b, index, indexLength));
    BigEndian.putInt(b, f + WalFormat.F_FOOTER_CRC, crc(b, f, WalFormat.F_FOOTER_CRC));
    assertThatThrownBy(() -> WalObjectReader.parse(b))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("wal index entry flags/reserved not zero flags=1");
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  @Test
  void keyEncryptionKeysAreValidatedAndNeverPrinted() {
    assertThatThrownBy(() -> new KeyEncryptionKey("k", new byte[16]))
        .hasMessageContaining("material length wrong expected=32 actual=16 keyId=k");
    assertThatThrownBy(() -> new KeyEncryptionKey("", new byte[32]))
        .hasMessageContaining("id length out of range bytes=0");
    byte[] m = new byte[32];
    m[0] = 0x7f;
    KeyEncryptionKey k = new KeyEncryptionKey("k", m);
    assertThat(k.toString()).isEqualTo("KeyEncryptionKey[id=k]");
    m[0] = 0;
    assertThat(k.material()[0]).as("material is copied").isEqualTo((byte) 0x7f);
    k.destroy();
    assertThat(k.material()).containsOnly(0);
  }
}
