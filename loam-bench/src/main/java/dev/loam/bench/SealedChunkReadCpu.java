package dev.loam.bench;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.object.WalObjectReader;
import dev.loam.wal.ulid.Ulid;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * CPU time per record of reading a WAL object's entries one index entry at a time, as a consumer's
 * fetches do without the tail cache: for a plain chunk the entry's own bytes, for a sealed chunk
 * the whole chunk opened (data-key unwrap, AES-256-GCM of every batch in it) and the entry taken
 * from the plaintext, each entry's batch then checked (Kafka CRC) like the fetch path does. A third
 * row opens each sealed chunk once for all its entries: what a read that reuses an opened chunk
 * costs. The object: 10 partitions × 16 one-entry batches × 10 records of 120-byte values. Measured
 * with the thread's CPU clock, the three kinds alternating in one JVM. Usage: {@code java -cp
 * <loam-bench classpath> dev.loam.bench.SealedChunkReadCpu [rounds]}.
 */
public final class SealedChunkReadCpu {
  static final String KEY = "wal/standard/bench-cluster/bench-node/01J0GXQ2E4KX9V0M3N5P6R8S9T.wal";
  static final int CHUNKS = 10;
  static final int PER_CHUNK = 16;

  private SealedChunkReadCpu() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    List<RecordData> recs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      recs.add(RecordData.of(1000 + i, ("k" + i).getBytes(), new byte[120]));
    }
    byte[] batch = RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), recs);
    KeyEncryptionKey kek = new KeyEncryptionKey("bench/01J0GXQ2E4KX9V0M3N5P6R8S9T", new byte[32]);
    WalObject[] objects = new WalObject[2];
    for (int s = 0; s < 2; s++) {
      WalObjectBuilder b =
          new WalObjectBuilder(
              "bench-node",
              new Ulid(1L << 16, 7),
              DurabilityClass.STANDARD,
              KEY,
              new SplittableRandom(1));
      for (int i = 0; i < CHUNKS * PER_CHUNK; i++) {
        b.add(1, i % CHUNKS, ChunkEncoding.KAFKA, batch, s == 1 ? kek : null);
      }
      objects[s] = WalObjectReader.parse(b.build().bytes());
    }
    int len = batch.length;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    int opsPerRound = 100;
    long records = (long) CHUNKS * PER_CHUNK * 10 * opsPerRound;
    String[] kinds = {
      "plain, per entry", "sealed, chunk opened per entry", "sealed, chunk opened once"
    };
    long[][] cpu = new long[3][rounds];
    long sink = 0;
    for (int r = -5; r < rounds; r++) {
      for (int k = 0; k < 3; k++) {
        WalObject o = objects[k == 0 ? 0 : 1];
        long t0 = mx.getCurrentThreadCpuTime();
        for (int op = 0; op < opsPerRound; op++) {
          for (int c = 0; c < CHUNKS; c++) {
            ByteBuffer opened = null;
            for (int e = 0; e < PER_CHUNK; e++) {
              byte[] entry = new byte[len];
              if (k == 0) {
                // The fetch path GETs just the entry's range and checks its batch CRC below.
                ByteBuffer chunk = o.chunk(c);
                chunk.duplicate().position(chunk.position() + e * len).get(entry);
              } else {
                if (opened == null || k == 1) {
                  opened =
                      WalObjectReader.openChunk(o.chunk(c), o.chunks().get(c), c, KEY, id -> kek);
                }
                opened.duplicate().position(opened.position() + e * len).get(entry);
              }
              sink += RecordBatch.readFrom(ByteBuffer.wrap(entry)).recordCount();
            }
          }
        }
        if (r >= 0) {
          cpu[k][r] = mx.getCurrentThreadCpuTime() - t0;
        }
      }
    }
    System.out.println(
        "java "
            + System.getProperty("java.version")
            + ", "
            + rounds
            + " rounds of "
            + opsPerRound
            + " objects ("
            + records
            + " records) each; checksum "
            + sink);
    System.out.println("kind                              CPU ns/record (median)");
    for (int k = 0; k < 3; k++) {
      long[] c = cpu[k].clone();
      java.util.Arrays.sort(c);
      System.out.printf("%-33s %10.1f%n", kinds[k], c[c.length / 2] / (double) records);
    }
  }
}
