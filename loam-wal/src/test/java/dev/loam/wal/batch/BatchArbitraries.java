package dev.loam.wal.batch;

import dev.loam.wal.BigEndian;
import java.util.List;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators and helpers shared by the batch tests. */
public final class BatchArbitraries {
  private BatchArbitraries() {}

  static Arbitrary<byte[]> nullableBytes(int maxLen) {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(maxLen).injectNull(0.2);
  }

  static Arbitrary<Header> headers() {
    return Combinators.combine(
            Arbitraries.strings().withCharRange('!', '~').withChars('é', '€').ofMaxLength(12),
            nullableBytes(16))
        .as(Header::new);
  }

  static Arbitrary<Long> timestamps() {
    return Arbitraries.oneOf(
        Arbitraries.just(-1L),
        Arbitraries.longs().between(0, 1L << 42),
        Arbitraries.longs().between(0, Long.MAX_VALUE));
  }

  public static Arbitrary<RecordData> recordData() {
    return Combinators.combine(
            timestamps(), nullableBytes(64), nullableBytes(200), headers().list().ofMaxSize(3))
        .as(RecordData::new);
  }

  public static Arbitrary<List<RecordData>> recordLists(int max) {
    return recordData().list().ofMinSize(1).ofMaxSize(max);
  }

  public static Arbitrary<BatchSettings> settings() {
    return Combinators.combine(
            Arbitraries.longs().between(0, Long.MAX_VALUE / 2),
            Arbitraries.of(Compression.class),
            Arbitraries.of(TimestampType.class),
            Arbitraries.longs().between(-1, Long.MAX_VALUE),
            Arbitraries.shorts().between((short) -1, Short.MAX_VALUE),
            Arbitraries.integers().between(-1, Integer.MAX_VALUE))
        .as(BatchSettings::new);
  }

  /**
   * The batch {@code batch} (header only used) with {@code section} as its records section and
   * {@code c} as its codec: length and CRC recomputed, so only the section can be wrong.
   */
  public static byte[] withSection(byte[] batch, Compression c, byte[] section) {
    byte[] out = new byte[RecordBatches.HEADER_SIZE + section.length];
    System.arraycopy(batch, 0, out, 0, RecordBatches.HEADER_SIZE);
    System.arraycopy(section, 0, out, RecordBatches.HEADER_SIZE, section.length);
    int attributes = (BigEndian.getU16(out, RecordBatches.ATTRIBUTES_OFFSET) & ~0x07) | c.code();
    BigEndian.putShort(out, RecordBatches.ATTRIBUTES_OFFSET, attributes);
    BigEndian.putInt(out, RecordBatches.LENGTH_OFFSET, out.length - RecordBatches.LOG_OVERHEAD);
    fixCrc(out);
    return out;
  }

  /** The records section of a batch, as stored (compressed if the batch is). */
  public static byte[] section(byte[] batch) {
    return java.util.Arrays.copyOfRange(batch, RecordBatches.HEADER_SIZE, batch.length);
  }

  /** Recomputes the CRC of a batch at offset 0, so tests can forge structurally bad records. */
  public static void fixCrc(byte[] batch) {
    CRC32C crc = new CRC32C();
    crc.update(batch, 21, batch.length - 21);
    BigEndian.putInt(batch, 17, (int) crc.getValue());
  }
}
