package dev.loam.wal.golden;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.Header;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.ulid.Ulid;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/** The fixed inputs behind the golden files. Never change them: the files are decoded forever. */
final class GoldenFixtures {
  private GoldenFixtures() {}

  static final String BATCH_NONE = "record-batch-v2-none.bin";
  static final String BATCH_ZSTD = "record-batch-v2-zstd.bin";
  static final String BATCH_GZIP = "record-batch-v2-gzip.bin";
  static final String BATCH_SNAPPY = "record-batch-v2-snappy.bin";
  static final String BATCH_LZ4 = "record-batch-v2-lz4.bin";
  static final String WAL_V1 = "wal-object-v1.bin";
  static final String SEGMENT_V1 = "segment-v1.bin";
  static final String WAL_V2 = "wal-object-v2.bin";
  static final String SEGMENT_V2 = "segment-v2.bin";

  static final Ulid ULID = Ulid.parse("01J0GXQ2E4KX9V0M3N5P6R8S9T");
  static final String NODE_ID = "node-a";

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static List<RecordData> records() {
    return List.of(
        new RecordData(1_718_000_000_000L, utf8("key-1"), utf8("value-1"), List.of()),
        new RecordData(
            1_718_000_000_250L,
            null,
            utf8("value-2"),
            List.of(new Header("trace", utf8("abc")), new Header("empty", null))),
        new RecordData(1_718_000_000_100L, utf8("key-3"), null, List.of()));
  }

  static BatchSettings settings(Compression c) {
    return new BatchSettings(100L, c, TimestampType.CREATE_TIME, 4242L, (short) 3, 17);
  }

  static byte[] batchNone() {
    return RecordBatchEncoder.encode(settings(Compression.NONE), records());
  }

  static WalObject walObject() {
    WalObjectBuilder b = new WalObjectBuilder(NODE_ID, ULID, DurabilityClass.EXPRESS);
    b.add(
        9,
        2,
        ChunkEncoding.KAFKA,
        RecordBatchEncoder.encode(
            BatchSettings.plain(Compression.NONE), List.of(RecordData.of(5L, null, utf8("z")))));
    b.add(1, 0, ChunkEncoding.KAFKA, batchNone());
    b.add(1, 0, ChunkEncoding.KAFKA, batchNone());
    b.add(4, 1, ChunkEncoding.ARROW, new byte[] {(byte) 0xff, 0x00, 0x41});
    return b.build();
  }

  static final String OBJECT_KEY_V2 =
      "wal/standard/cluster-1/node-a/01J0GXQ2E4KX9V0M3N5P6R8S9T.wal";

  /** Key-encryption keys of the v2 golden: material bytes 1..32 and 101..132. */
  static KeyEncryptionKey kek(int which) {
    byte[] m = new byte[32];
    for (int i = 0; i < m.length; i++) {
      m[i] = (byte) (which * 100 + i + 1 - 100);
    }
    return new KeyEncryptionKey(
        which == 1 ? "ns-1/01J0GXQ2E4KX9V0M3N5P6R8S9A" : "ns-2/01J0GXQ2E4KX9V0M3N5P6R8S9B", m);
  }

  /**
   * WAL object v2: plain stream 1 partition 0 (two {@link #batchNone()}), stream 5 partition 0
   * sealed under {@code kek(1)} ({@link #batchNone()}), stream 6 partition 3 sealed under {@code
   * kek(2)} (one-record batch), plain ARROW stream 8 partition 1. Data keys and nonces come from
   * {@code SplittableRandom(96)}.
   */
  static WalObject walObjectV2() {
    WalObjectBuilder b =
        new WalObjectBuilder(
            NODE_ID, ULID, DurabilityClass.STANDARD, OBJECT_KEY_V2, new SplittableRandom(96));
    b.add(1, 0, ChunkEncoding.KAFKA, batchNone());
    b.add(5, 0, ChunkEncoding.KAFKA, batchNone(), kek(1));
    b.add(
        6,
        3,
        ChunkEncoding.KAFKA,
        RecordBatchEncoder.encode(
            BatchSettings.plain(Compression.NONE), List.of(RecordData.of(5L, null, utf8("z")))),
        kek(2));
    b.add(1, 0, ChunkEncoding.KAFKA, batchNone());
    b.add(8, 1, ChunkEncoding.ARROW, new byte[] {(byte) 0xff, 0x00, 0x41});
    return b.build();
  }

  /**
   * Segment v1 of stream 7 partition 3 from offset 1000: one index entry of two copies of {@link
   * #batchNone()} (3 records each), then one entry of a one-record batch.
   */
  static dev.loam.wal.segment.Segment segment() {
    dev.loam.wal.segment.SegmentBuilder b = new dev.loam.wal.segment.SegmentBuilder(7, 3, 1000);
    byte[] one = batchNone();
    byte[] two = new byte[one.length * 2];
    System.arraycopy(one, 0, two, 0, one.length);
    System.arraycopy(one, 0, two, one.length, one.length);
    b.addEntry(1000, two);
    b.addEntry(
        1006,
        RecordBatchEncoder.encode(
            BatchSettings.plain(Compression.NONE), List.of(RecordData.of(5L, null, utf8("z")))));
    return b.build();
  }

  static final String SEGMENT_KEY_V2 =
      "seg/cluster-1/7/3/00000000000000001000-01J0GXQ2E4KX9V0M3N5P6R8S9T.seg";

  /**
   * Segment v2 (sealed): the batches of {@link #segment()}, sealed under {@code kek(1)} for the key
   * {@link #SEGMENT_KEY_V2}, the data key from {@code SplittableRandom(2)}.
   */
  static dev.loam.wal.segment.Segment segmentV2() {
    dev.loam.wal.segment.SegmentBuilder b = new dev.loam.wal.segment.SegmentBuilder(7, 3, 1000);
    byte[] one = batchNone();
    byte[] two = new byte[one.length * 2];
    System.arraycopy(one, 0, two, 0, one.length);
    System.arraycopy(one, 0, two, one.length, one.length);
    b.addEntry(1000, two);
    b.addEntry(
        1006,
        RecordBatchEncoder.encode(
            BatchSettings.plain(Compression.NONE), List.of(RecordData.of(5L, null, utf8("z")))));
    return b.buildSealed(SEGMENT_KEY_V2, kek(1), new SplittableRandom(2));
  }
}
