package dev.loam.wal.fuzz;

import static dev.loam.wal.fuzz.FuzzContract.READER_KINDS;
import static dev.loam.wal.fuzz.FuzzContract.i32;
import static dev.loam.wal.fuzz.FuzzContract.i64;
import static dev.loam.wal.fuzz.FuzzContract.putCrc;
import static dev.loam.wal.fuzz.FuzzContract.u16;
import static dev.loam.wal.fuzz.FuzzContract.valueOrTypedError;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.RecordBatches;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.WalHeader;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.object.WalObjectReader;
import dev.loam.wal.object.WalObjectReader.WalFooter;
import dev.loam.wal.object.WalObjectReader.WalIndex;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;

/**
 * Coverage-guided fuzzing of the WAL object reader (docs/formats/wal-object-v1.md, v2 with sealed
 * chunks: wal-object-v2.md): the whole object ({@link WalObjectReader#parse}), the tail path the
 * segmenter takes (footer, then exactly the tail the footer asks for) and the header alone. The
 * first input byte is a mode: bit 0 recomputes every CRC-32C (header, chunks, index, footer) after
 * mutation, so that the fuzzer explores the structure behind the checksums.
 *
 * <p>Contract: CORRUPTION or INVALID (as documented), or an object that the tail path and the
 * header parse agree with, that rebuilds byte for byte, and whose Kafka chunks parse to batches or
 * CORRUPTION; the bytes read are never changed.
 */
class WalObjectFuzzTest {
  private static final int FOOTER = WalObjectReader.FOOTER_SIZE;

  @FuzzTest
  void parse(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0) {
      repair(bytes);
    }
    byte[] stored = bytes.clone();
    try {
      check(bytes);
    } finally {
      // Readers are views: they never change the bytes they read.
      assertThat(bytes).as("input after parsing").isEqualTo(stored);
    }
  }

  private static void check(byte[] bytes) {
    WalObject whole = valueOrTypedError(READER_KINDS, () -> WalObjectReader.parse(bytes));
    WalHeader header = valueOrTypedError(READER_KINDS, () -> WalObjectReader.parseHeader(bytes));
    WalIndex tailIndex = viaTail(bytes);
    if (whole == null) {
      return;
    }
    assertThat(header).isEqualTo(whole.header());
    assertThat(tailIndex).isNotNull();
    assertThat(tailIndex.header()).isEqualTo(whole.header());
    assertThat(tailIndex.chunks()).isEqualTo(whole.chunks());
    assertThat(whole.ticketCount()).isZero();

    WalObjectBuilder rebuilt =
        new WalObjectBuilder(
            whole.header().nodeId(), whole.header().ulid(), whole.header().durabilityClass());
    boolean anySealed = false;
    for (int i = 0; i < whole.chunks().size(); i++) {
      ChunkIndexEntry e = whole.chunks().get(i);
      ByteBuffer chunk = whole.chunk(i);
      WalObjectReader.verifyChunk(chunk, e);
      if (e.sealed()) {
        // Sealed (v2): opens to plaintext or fails typed; under an all-zero key it almost always
        // fails authentication, which is the point: no input gets past GCM without the key.
        anySealed = true;
        int idx = i;
        valueOrTypedError(
            EnumSet.of(LoamException.Kind.CORRUPTION),
            () ->
                WalObjectReader.openChunk(
                    chunk, e, idx, "wal/fuzz", id -> new KeyEncryptionKey(id, new byte[32])));
        continue;
      }
      byte[] payload = new byte[chunk.remaining()];
      chunk.duplicate().get(payload);
      rebuilt.add(e.streamId(), e.partition(), e.encoding(), payload);
      if (e.encoding() == ChunkEncoding.KAFKA) {
        valueOrTypedError(
            EnumSet.of(LoamException.Kind.CORRUPTION), () -> RecordBatches.parseAll(chunk));
      }
    }
    if (!anySealed && whole.header().version() == 1) {
      // Sealed chunks carry random data keys and nonces, and a builder writes version 2 only with
      // a sealed chunk: only v1 objects rebuild byte for byte.
      assertThat(rebuilt.build().bytes()).as("rebuilt object").isEqualTo(bytes);
    }
  }

  /** Footer from the last bytes, then the index from exactly the tail the footer asks for. */
  private static WalIndex viaTail(byte[] bytes) {
    byte[] last = Arrays.copyOfRange(bytes, Math.max(0, bytes.length - FOOTER), bytes.length);
    WalFooter f =
        valueOrTypedError(READER_KINDS, () -> WalObjectReader.parseFooter(last, bytes.length));
    if (f == null) {
      return null;
    }
    long need = WalObjectReader.requiredTailLength(f, bytes.length);
    assertThat(need).isBetween((long) FOOTER, (long) bytes.length);
    byte[] tail = Arrays.copyOfRange(bytes, (int) (bytes.length - need), bytes.length);
    WalIndex fromTail =
        valueOrTypedError(READER_KINDS, () -> WalObjectReader.parseIndex(tail, bytes.length));
    WalIndex fromWhole =
        valueOrTypedError(READER_KINDS, () -> WalObjectReader.parseIndex(bytes, bytes.length));
    assertThat(fromTail).as("index from the tail and from the whole object").isEqualTo(fromWhole);
    return fromTail;
  }

  /** Recomputes the header, chunk, index and footer CRCs where their ranges fit the input. */
  private static void repair(byte[] b) {
    int n = u16(b, 24);
    if (n > 0) {
      putCrc(b, 26 + n, 0, 26 + n);
    }
    int f = b.length - FOOTER;
    if (f < 0) {
      return;
    }
    long indexOffset = i64(b, f);
    long indexLength = i32(b, f + 8) & 0xffffffffL;
    if (indexOffset >= 0
        && indexOffset <= f
        && indexLength <= f - indexOffset
        && indexLength >= 24) {
      int io = (int) indexOffset;
      int ni = u16(b, io + 2);
      long entries = io + 24L + ni;
      for (long e = entries; e + 32 <= io + indexLength; e += 32) {
        int at = (int) e;
        putCrc(b, at + 28, i64(b, at + 16), i32(b, at + 24) & 0xffffffffL);
      }
      putCrc(b, f + 12, io, indexLength);
    }
    putCrc(b, f + 20, f, 20);
  }
}
