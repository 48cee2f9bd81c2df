package dev.loam.bench;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.object.WalObjectReader;
import dev.loam.wal.ulid.Ulid;
import java.util.ArrayList;
import java.util.List;
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
 * Building and fully parsing (every chunk CRC) a WAL object of {@code chunks} partitions with 16
 * batches of 10 records (~1.3 KiB) each.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class WalObjectBench {
  @Param({"1", "10", "100"})
  public int chunks;

  private final List<byte[]> batches = new ArrayList<>();
  private byte[] object;

  @Setup
  public void setUp() {
    List<RecordData> recs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      recs.add(RecordData.of(1000 + i, ("k" + i).getBytes(), new byte[120]));
    }
    byte[] batch = RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), recs);
    for (int i = 0; i < chunks * 16; i++) {
      batches.add(batch);
    }
    object = build().bytes();
  }

  private WalObject build() {
    WalObjectBuilder b =
        new WalObjectBuilder("bench-node", new Ulid(1L << 16, 7), DurabilityClass.STANDARD);
    for (int i = 0; i < batches.size(); i++) {
      b.add(1, i % chunks, ChunkEncoding.KAFKA, batches.get(i));
    }
    return b.build();
  }

  @Benchmark
  public WalObject buildObject() {
    return build();
  }

  @Benchmark
  public WalObject parseObject() {
    return WalObjectReader.parse(object);
  }
}
