package dev.loam.wal.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordBatches;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class WalObjectTest {
  static final Ulid ULID = Ulid.parse("01HZY7Q2E4KX9V0M3N5P6R8S9T");

  static byte[] batch(String value) {
    return RecordBatchEncoder.encode(
        BatchSettings.plain(Compression.NONE), List.of(RecordData.of(1L, null, value.getBytes())));
  }

  static WalObject sample() {
    WalObjectBuilder b = new WalObjectBuilder("node-1", ULID, DurabilityClass.EXPRESS);
    assertThat(b.add(7, 1, ChunkEncoding.KAFKA, batch("a"))).isZero();
    assertThat(b.add(3, 0, ChunkEncoding.KAFKA, batch("b"))).isEqualTo(1);
    assertThat(b.add(7, 1, ChunkEncoding.KAFKA, batch("c"))).isEqualTo(2);
    assertThat(b.add(7, 0, ChunkEncoding.ARROW, new byte[] {1, 2, 3})).isEqualTo(3);
    return b.build();
  }

  static LoamException.Kind kind(Throwable t) {
    return ((LoamException) t).kind();
  }

  @Test
  void layoutSortsChunksAndTracksTickets() {
    WalObjectBuilder b = new WalObjectBuilder("node-1", ULID, DurabilityClass.EXPRESS);
    b.add(7, 1, ChunkEncoding.KAFKA, batch("a"));
    b.add(3, 0, ChunkEncoding.KAFKA, batch("b"));
    b.add(7, 1, ChunkEncoding.KAFKA, batch("c"));
    b.add(7, 0, ChunkEncoding.ARROW, new byte[] {1, 2, 3});
    int estimated = b.estimatedSize();
    WalObject o = b.build();
    assertThat(o.bytes()).hasSize(estimated);
    assertThat(o.chunks())
        .extracting(ChunkIndexEntry::streamId, ChunkIndexEntry::partition)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(3L, 0),
            org.assertj.core.groups.Tuple.tuple(7L, 0),
            org.assertj.core.groups.Tuple.tuple(7L, 1));
    assertThat(o.chunks().get(0).offset()).isEqualTo(30 + 6);
    assertThat(o.header()).isEqualTo(new WalHeader(1, DurabilityClass.EXPRESS, ULID, "node-1"));
    // Ticket 2 ("c") follows ticket 0 ("a") in the (7,1) chunk.
    byte[] a = batch("a");
    assertThat(o.payloadOffset(2)).isEqualTo(o.payloadOffset(0) + a.length);
    assertThat(o.payloadOffset(0)).isEqualTo(o.chunks().get(2).offset());
    byte[] c =
        Arrays.copyOfRange(
            o.bytes(), (int) o.payloadOffset(2), (int) o.payloadOffset(2) + a.length);
    assertThat(c).isEqualTo(batch("c"));
    // The batches of a chunk parse back, and their base offsets can be patched in place.
    RecordBatches.setBaseOffset(o.bytes(), (int) o.payloadOffset(2), 500);
    List<RecordBatch> batches = RecordBatches.parseAll(o.chunk(2));
    assertThat(batches).hasSize(2);
    assertThat(batches.get(1).baseOffset()).isEqualTo(500);
    assertThatThrownBy(() -> o.payloadOffset(4)).hasMessageContaining("ticket=4");
  }

  @Test
  void fullParseRoundTrip() {
    WalObject o = sample();
    WalObject p = WalObjectReader.parse(o.bytes());
    assertThat(p.header()).isEqualTo(o.header());
    assertThat(p.chunks()).isEqualTo(o.chunks());
    assertThat(p.ticketCount()).isZero();
  }

  @Test
  void tailReadFlow() {
    byte[] whole = sample().bytes();
    long size = whole.length;
    byte[] footerOnly = Arrays.copyOfRange(whole, whole.length - 28, whole.length);
    WalObjectReader.WalFooter f = WalObjectReader.parseFooter(footerOnly, size);
    long need = WalObjectReader.requiredTailLength(f, size);
    assertThat(need).isEqualTo(size - f.indexOffset());
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> WalObjectReader.parseIndex(footerOnly, size));
    assertThat(kind(t)).isEqualTo(LoamException.Kind.INVALID);
    assertThat(t).hasMessageContaining("need=" + need);
    byte[] tail = Arrays.copyOfRange(whole, (int) (size - need), whole.length);
    WalObjectReader.WalIndex idx = WalObjectReader.parseIndex(tail, size);
    assertThat(idx.header()).isEqualTo(sample().header());
    assertThat(idx.chunks()).isEqualTo(sample().chunks());
    for (ChunkIndexEntry e : idx.chunks()) {
      WalObjectReader.verifyChunk(Arrays.copyOfRange(whole, (int) e.offset(), (int) e.end()), e);
    }
  }

  @Test
  void builderRejectsBadInput() {
    WalObjectBuilder b = new WalObjectBuilder("n", ULID, DurabilityClass.STANDARD);
    assertThatThrownBy(b::build).hasMessageContaining("no chunks");
    b.add(1, 0, ChunkEncoding.KAFKA, new byte[] {1});
    assertThatThrownBy(() -> b.add(1, 0, ChunkEncoding.ARROW, new byte[] {1}))
        .hasMessageContaining("encoding conflict existing=KAFKA added=ARROW streamId=1 partition=0")
        .satisfies(t -> assertThat(kind(t)).isEqualTo(LoamException.Kind.INVALID));
    assertThatThrownBy(() -> b.add(1, -1, ChunkEncoding.KAFKA, new byte[] {1}))
        .hasMessageContaining("partition negative");
    assertThatThrownBy(() -> b.add(1, 1, ChunkEncoding.KAFKA, new byte[0]))
        .hasMessageContaining("payload empty");
    assertThatThrownBy(() -> new WalObjectBuilder("", ULID, DurabilityClass.STANDARD))
        .hasMessageContaining("node id length out of range bytes=0");
    assertThatThrownBy(() -> new WalObjectBuilder("x".repeat(256), ULID, DurabilityClass.STANDARD))
        .hasMessageContaining("bytes=256");
    assertThatThrownBy(() -> new WalObjectBuilder("bad\uD800", ULID, DurabilityClass.STANDARD))
        .hasMessageContaining("not valid unicode");
  }

  static String corruptionMessage(byte[] bytes) {
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(() -> WalObjectReader.parse(bytes));
    assertThat(t).isInstanceOf(CorruptionException.class);
    return t.getMessage();
  }

  @Test
  void corruptionMessagesNameTheField() {
    WalObject o = sample();
    byte[] b = o.bytes().clone();
    b[0] = 'X';
    assertThat(corruptionMessage(b)).contains("wal header magic mismatch expected=0x4c57414c");
    b = o.bytes().clone();
    b[10] ^= 1;
    assertThat(corruptionMessage(b)).contains("wal header crc mismatch");
    b = o.bytes().clone();
    b[(int) o.chunks().get(1).offset()] ^= 1;
    assertThat(corruptionMessage(b))
        .contains("wal chunk crc mismatch")
        .contains("streamId=7 partition=0");
    b = o.bytes().clone();
    b[b.length - 30] ^= 1; // last index byte
    assertThat(corruptionMessage(b)).contains("wal index crc mismatch");
    b = o.bytes().clone();
    b[b.length - 1] ^= 1;
    assertThat(corruptionMessage(b)).contains("wal footer magic mismatch");
    b = o.bytes().clone();
    b[b.length - 20] ^= 1; // index_length
    assertThat(corruptionMessage(b)).contains("wal footer crc mismatch");
    assertThat(corruptionMessage(new byte[10])).contains("wal object too small size=10");
  }

  @Test
  void verifyChunkNamesMismatch() {
    WalObject o = sample();
    ChunkIndexEntry e = o.chunks().get(0);
    assertThatThrownBy(() -> WalObjectReader.verifyChunk(new byte[e.length() + 1], e))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("wal chunk length mismatch expected=" + e.length());
    assertThatThrownBy(() -> WalObjectReader.verifyChunk(new byte[e.length()], e))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("wal chunk crc mismatch");
    assertThat(o.chunk(0)).isEqualTo(ByteBuffer.wrap(o.bytes(), (int) e.offset(), e.length()));
  }

  @Test
  void newerVersionIsUnsupportedNotCorrupt() {
    byte[] b = sample().bytes().clone();
    int f = b.length - 28;
    b[f + 17] = 3; // footer version = 3, then re-seal the footer CRC as a v3 writer would
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b, f, 20);
    int v = (int) crc.getValue();
    b[f + 20] = (byte) (v >>> 24);
    b[f + 21] = (byte) (v >>> 16);
    b[f + 22] = (byte) (v >>> 8);
    b[f + 23] = (byte) v;
    byte[] bytes = b;
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(() -> WalObjectReader.parse(bytes));
    assertThat(kind(t)).isEqualTo(LoamException.Kind.INVALID);
    assertThat(t).hasMessageContaining("unsupported wal object version=3 supported=1..2");
  }
}
