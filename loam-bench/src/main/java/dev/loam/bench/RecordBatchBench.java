package dev.loam.bench;

import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * RecordBatch v2 encode and decode (with CRC32C) of 100 JSON-like records of ~200 bytes, with no
 * compression and with zstd. Throughput in batches/s; multiply by 100 for records/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RecordBatchBench {
  @Param({"NONE", "ZSTD"})
  public String compression;

  private List<RecordData> records;
  private BatchSettings settings;
  private byte[] encoded;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String v =
          "{\"service\":\"checkout\",\"level\":\"info\",\"trace\":\""
              + Long.toHexString(r.nextLong())
              + "\",\"msg\":\"order placed\",\"amount\":"
              + r.nextInt(10_000)
              + ",\"items\":["
              + r.nextInt(50)
              + ","
              + r.nextInt(50)
              + "],\"region\":\"eu-west-1\",\"seq\":"
              + i
              + "}";
      records.add(
          RecordData.of(1_700_000_000_000L + i, ("key-" + i % 10).getBytes(), v.getBytes()));
    }
    settings = BatchSettings.plain(Compression.valueOf(compression));
    encoded = RecordBatchEncoder.encode(settings, records);
  }

  @Benchmark
  public byte[] encode() {
    return RecordBatchEncoder.encode(settings, records);
  }

  @Benchmark
  public List<Record> decode() {
    return RecordBatch.readFrom(ByteBuffer.wrap(encoded)).records();
  }

  @Benchmark
  public long validateOnly() {
    return RecordBatch.readFrom(ByteBuffer.wrap(encoded)).lastOffset();
  }
}
