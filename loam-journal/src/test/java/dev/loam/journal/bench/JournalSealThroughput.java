package dev.loam.journal.bench;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.JournalGroup;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.journal.ratis.JournalSettings;
import dev.loam.journal.seal.JournalSealer;
import dev.loam.journal.state.JournalState;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Measures seal throughput: a three-replica journal is filled with {@code mib} MiB of 64 KiB
 * batches on 4 partitions, then the leader's {@link JournalSealer} seals it all into 8 MiB segments
 * written as files with an fsync each (the filesystem store's durability), and the time to an empty
 * tail is reported. Not a test: run by hand like {@link JournalAckLatency}.
 *
 * <pre>
 * java -cp … dev.loam.journal.bench.JournalSealThroughput [mib]
 * </pre>
 */
public final class JournalSealThroughput {
  private JournalSealThroughput() {}

  public static void main(String[] args) throws Exception {
    int mib = args.length > 0 ? Integer.parseInt(args[0]) : 128;
    Path dir = Files.createTempDirectory("journal-seal");
    Path objects = Files.createDirectories(dir.resolve("objects"));
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("n" + i, "127.0.0.1:" + JournalAckLatency.freePort());
    }
    ExecutorService ex = Executors.newFixedThreadPool(4);
    List<JournalServer> servers = new ArrayList<>();
    try {
      for (String id : peers.keySet()) {
        JournalServer s =
            JournalServer.start(
                JournalSettings.defaults(id, peers.get(id), dir.resolve(id))
                    .withMaxUnsealedBytes((long) (mib + 16) << 20),
                ex);
        s.host(new JournalGroup("seal", peers));
        servers.add(s);
      }
      JournalServer leader = null;
      while (leader == null) {
        for (JournalServer s : servers) {
          if (s.isLeader("seal")) {
            leader = s;
          }
        }
        Thread.onSpinWait();
      }
      for (int p = 0; p < 4; p++) {
        leader.propose("seal", new JournalEntry.Host(1, p, 0)).get(30, TimeUnit.SECONDS);
      }
      List<RecordData> records = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        records.add(RecordData.of(1_780_000_000_000L + i, null, new byte[1000]));
      }
      byte[] batch = RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), records);
      int batches = (int) (((long) mib << 20) / batch.length);
      Semaphore window = new Semaphore(32);
      List<CompletableFuture<JournalResult>> all = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < batches; i++) {
        window.acquire();
        CompletableFuture<JournalResult> f =
            leader.propose("seal", new JournalEntry.Append(1, i % 4, batch));
        f.whenComplete((r, e) -> window.release());
        all.add(f);
      }
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
      double fillS = (System.nanoTime() - t0) / 1e9;
      long unsealed = leader.query("seal", JournalState::unsealedBytes);
      System.out.printf(
          "filled %d batches (%.1f MiB) in %.2f s = %.1f MiB/s appended%n",
          batches, unsealed / 1048576.0, fillS, unsealed / 1048576.0 / fillS);
      JournalSealer sealer =
          new JournalSealer(
              leader,
              "seal",
              (key, bytes) -> {
                try (FileChannel ch =
                    FileChannel.open(
                        objects.resolve(key.replace('/', '_')),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                  ch.write(java.nio.ByteBuffer.wrap(bytes));
                  ch.force(true);
                  return CompletableFuture.completedFuture(null);
                } catch (java.io.IOException e) {
                  return CompletableFuture.failedFuture(e);
                }
              },
              (s, p, base) ->
                  new dev.loam.spi.quorum.SegmentNamer.SegmentName(
                      "seg/bench/" + s + "/" + p + "/" + base + ".seg", 0),
              new dev.loam.journal.ListOffsetIndex(),
              1,
              8L << 20);
      long t1 = System.nanoTime();
      int passes = 0;
      int seals = 0;
      while (leader.query("seal", JournalState::unsealedBytes) > 0) {
        seals += sealer.poll().get(120, TimeUnit.SECONDS).size();
        passes++;
      }
      double sealS = (System.nanoTime() - t1) / 1e9;
      System.out.printf(
          "sealed %.1f MiB in %d segments (%d passes) in %.2f s = %.1f MiB/s%n",
          unsealed / 1048576.0, seals, passes, sealS, unsealed / 1048576.0 / sealS);
    } finally {
      for (JournalServer s : servers) {
        s.close();
      }
      ex.shutdownNow();
    }
  }
}
