package dev.loam.journal;

import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Record batches for journal tests, built with Loam's own RecordBatch v2 encoder. */
public final class Batches {
  public static final long T0 = 1_780_000_000_000L;

  private Batches() {}

  /** A plain (non-idempotent) batch of {@code count} records whose values are {@code tag-i}. */
  public static byte[] plain(String tag, int count) {
    return batch(-1, (short) -1, -1, tag, count);
  }

  /** An idempotent batch: producer id, epoch and base sequence, values {@code tag-i}. */
  public static byte[] batch(
      long producerId, short epoch, int baseSequence, String tag, int count) {
    List<RecordData> rs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rs.add(
          RecordData.of(
              T0 + i,
              ("k" + i).getBytes(StandardCharsets.UTF_8),
              (tag + "-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    return RecordBatchEncoder.encode(
        new BatchSettings(
            0L, Compression.NONE, TimestampType.CREATE_TIME, producerId, epoch, baseSequence),
        rs);
  }

  /** The values of every record in {@code batches}, in order, with their offsets. */
  public static List<String> values(List<byte[]> batches) {
    List<String> out = new ArrayList<>();
    for (byte[] b : batches) {
      RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(b));
      for (Record r : rb.records()) {
        out.add(r.offset() + ":" + new String(r.toData().value(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }
}
