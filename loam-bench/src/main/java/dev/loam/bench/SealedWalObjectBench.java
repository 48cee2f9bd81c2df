package dev.loam.bench;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.KeyResolver;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.object.WalObjectReader;
import dev.loam.wal.ulid.Ulid;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of envelope encryption on the WAL object path, plain against sealed in the same run:
 * building an object of 10 partitions × 16 batches × 10 records (1,600 records of 120-byte values,
 * ~213 KiB), and opening every chunk of it as the fetch path does (CRC check, and for sealed chunks
 * data-key unwrap and AES-256-GCM decryption). Divide the time per operation by 1,600 for the cost
 * per record.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SealedWalObjectBench {
  static final String KEY = "wal/standard/bench-cluster/bench-node/01J0GXQ2E4KX9V0M3N5P6R8S9T.wal";
  static final int CHUNKS = 10;

  @Param({"false", "true"})
  public boolean sealed;

  private final List<byte[]> batches = new ArrayList<>();
  private final KeyEncryptionKey kek =
      new KeyEncryptionKey("bench/01J0GXQ2E4KX9V0M3N5P6R8S9T", new byte[32]);
  private final KeyResolver keys = id -> kek;
  private final SplittableRandom random = new SplittableRandom(1);
  private WalObject object;

  @Setup
  public void setUp() {
    List<RecordData> recs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      recs.add(RecordData.of(1000 + i, ("k" + i).getBytes(), new byte[120]));
    }
    byte[] batch = RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), recs);
    for (int i = 0; i < CHUNKS * 16; i++) {
      batches.add(batch);
    }
    object = WalObjectReader.parse(build().bytes());
  }

  private WalObject build() {
    WalObjectBuilder b =
        new WalObjectBuilder(
            "bench-node", new Ulid(1L << 16, 7), DurabilityClass.STANDARD, KEY, random);
    for (int i = 0; i < batches.size(); i++) {
      b.add(1, i % CHUNKS, ChunkEncoding.KAFKA, batches.get(i), sealed ? kek : null);
    }
    return b.build();
  }

  /** Size of the object the open benchmark reads. */
  public int objectSize() {
    return object.size();
  }

  @Benchmark
  public WalObject buildObject() {
    return build();
  }

  @Benchmark
  public void openChunks(Blackhole bh) {
    for (int i = 0; i < object.chunks().size(); i++) {
      ByteBuffer plain =
          WalObjectReader.openChunk(object.chunk(i), object.chunks().get(i), i, KEY, keys);
      bh.consume(plain);
    }
  }
}
