package dev.loam.journal.ratis;

import static dev.loam.journal.ratis.JournalTestCluster.JOURNAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.ListOffsetIndex;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.seal.JournalSealer;
import dev.loam.journal.state.JournalRead;
import dev.loam.journal.state.JournalState;
import dev.loam.spi.quorum.SegmentNamer;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sealing (docs/design/quorum.md "Sealing"): committed ranges become segment objects with the
 * batches and offsets the journal assigned, every replica's tail drops them, the leader's log is
 * purged behind a snapshot, and a replica restarted afterwards catches up from the snapshot's
 * segment pointers and unsealed tail.
 */
class JournalSealIT {
  static final long STREAM = 3;

  @TempDir Path dir;

  /** Segment objects written by the sealer; create-if-absent like an object store's. */
  final Map<String, byte[]> objects = new ConcurrentHashMap<>();

  /** The offset index the sealer commits into before each seal. */
  final ListOffsetIndex offsetIndex = new ListOffsetIndex();

  static SegmentNamer.SegmentName name(long s, int p, long base) {
    return new SegmentNamer.SegmentName("seg/c1/" + s + "/" + p + "/" + base + ".seg", 0);
  }

  CompletableFuture<Void> put(String key, byte[] bytes) {
    return objects.putIfAbsent(key, bytes) == null
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.failedFuture(new IllegalStateException("exists key=" + key));
  }

  @Test
  void sealedRangesLeaveTheTailAndReadBackFromSegments() {
    try (JournalTestCluster c =
        new JournalTestCluster(
            dir, 3, s -> s.withSnapshotThresholdEntries(20).withLogSegmentSizeBytes(64 << 10))) {
      String leader = c.awaitLeader();
      c.propose(leader, new JournalEntry.Host(STREAM, 0, 0));
      String pad = "y".repeat(1000);
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain(pad + i, 2)));
        expected.add((2 * i) + ":" + pad + i + "-0");
        expected.add((2 * i + 1) + ":" + pad + i + "-1");
      }
      String follower = c.running().stream().filter(id -> !id.equals(leader)).findFirst().get();
      JournalSealer sealer =
          new JournalSealer(
              c.server(leader),
              JOURNAL,
              this::put,
              JournalSealIT::name,
              offsetIndex,
              10_000,
              50_000);
      // A follower's sealer does nothing: only the leader seals.
      assertThat(
              JournalTestCluster.get(
                  new JournalSealer(
                          c.server(follower),
                          JOURNAL,
                          this::put,
                          JournalSealIT::name,
                          offsetIndex,
                          1,
                          1)
                      .poll()))
          .isEmpty();
      List<SegmentPointer> sealed = new ArrayList<>();
      long sealedOffset = 0;
      while (true) {
        List<JournalResult> rs = JournalTestCluster.get(sealer.poll());
        if (rs.isEmpty()) {
          break;
        }
        assertThat(rs).hasSize(1);
        JournalResult.Sealed s = (JournalResult.Sealed) rs.get(0);
        assertThat(s.sealedOffset()).isGreaterThan(sealedOffset);
        sealedOffset = s.sealedOffset();
      }
      // What is left unsealed is below the seal threshold.
      JournalServer l = c.server(leader);
      assertThat(l.query(JOURNAL, JournalState::unsealedBytes)).isLessThan(10_000);
      assertThat(sealedOffset).isGreaterThan(60);
      // Every segment holds the journal's batches at the journal's offsets.
      List<String> fromSegments = new ArrayList<>();
      long at = 0;
      while (at < sealedOffset) {
        JournalRead r = l.read(JOURNAL, STREAM, 0, at, 1 << 20);
        SegmentPointer p = r.segment().orElseThrow();
        sealed.add(p);
        Segment seg = SegmentReader.parse(objects.get(p.key()));
        assertThat(seg.baseOffset()).isEqualTo(p.baseOffset());
        assertThat(seg.endOffset()).isEqualTo(p.endOffset());
        List<byte[]> batches = new ArrayList<>();
        for (var b : seg.batches()) {
          batches.add(
              java.util.Arrays.copyOfRange(
                  seg.bytes(), (int) b.position(), (int) (b.position() + b.length())));
        }
        fromSegments.addAll(Batches.values(batches));
        at = p.endOffset();
      }
      List<String> tail =
          Batches.values(l.read(JOURNAL, STREAM, 0, sealedOffset, Integer.MAX_VALUE).batches());
      List<String> all = new ArrayList<>(fromSegments);
      all.addAll(tail);
      assertThat(all).isEqualTo(expected);

      // A replica that was down through the seals and the purge catches up from the snapshot.
      c.awaitHighWatermark(follower, STREAM, 0, 120);
      c.stop(follower);
      for (int i = 60; i < 100; i++) {
        c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain(pad + i, 2)));
        expected.add((2 * i) + ":" + pad + i + "-0");
        expected.add((2 * i + 1) + ":" + pad + i + "-1");
      }
      JournalTestCluster.get(sealer.poll());
      assertThat(l.logStartIndex(JOURNAL)).as("the leader purged its log").isGreaterThan(0);
      JournalServer back = c.start(follower);
      c.awaitHighWatermark(follower, STREAM, 0, 200);
      // One more append, applied after the last seal: once the follower has it, it has applied
      // everything the leader had.
      c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("last", 1)));
      c.awaitHighWatermark(follower, STREAM, 0, 201);
      assertThat(back.query(JOURNAL, JournalState::snapshot))
          .isEqualTo(l.query(JOURNAL, JournalState::snapshot));
      assertThat(back.read(JOURNAL, STREAM, 0, 0, 100).segment()).contains(sealed.get(0));
    }
  }

  /**
   * The time-based seal: a tail below the size threshold is sealed once the partition's sealed
   * offset has not moved for the quiet interval, on the sealer's clock, and the interval starts
   * again after each seal.
   */
  @Test
  void aQuietTailIsSealedAfterTheQuietInterval() {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String leader = c.awaitLeader();
      c.propose(leader, new JournalEntry.Host(STREAM, 0, 0));
      c.propose(leader, new JournalEntry.Host(STREAM, 1, 0));
      c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("quiet", 2)));
      java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1000);
      JournalSealer sealer =
          new JournalSealer(
              c.server(leader),
              JOURNAL,
              this::put,
              JournalSealIT::name,
              offsetIndex,
              1 << 20,
              4 << 20,
              60_000,
              now::get);
      assertThat(JournalTestCluster.get(sealer.poll())).as("below the threshold").isEmpty();
      now.addAndGet(59_999);
      assertThat(JournalTestCluster.get(sealer.poll())).as("not quiet long enough").isEmpty();
      now.addAndGet(1);
      assertThat(JournalTestCluster.get(sealer.poll()))
          .containsExactly(new JournalResult.Sealed(2));
      assertThat(objects).hasSize(1);
      JournalServer l = c.server(leader);
      assertThat(l.read(JOURNAL, STREAM, 0, 0, 100).segment())
          .contains(new SegmentPointer(0, 2, name(STREAM, 0, 0).key()));
      // Partition 1 stayed empty: nothing to seal there, however long it is quiet.
      assertThat(l.read(JOURNAL, STREAM, 1, 0, 100).highWatermark()).isZero();

      // The next small append starts a new quiet interval.
      c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("later", 1)));
      assertThat(JournalTestCluster.get(sealer.poll())).isEmpty();
      now.addAndGet(30_000);
      assertThat(JournalTestCluster.get(sealer.poll())).isEmpty();
      now.addAndGet(30_000);
      assertThat(JournalTestCluster.get(sealer.poll()))
          .containsExactly(new JournalResult.Sealed(3));
      assertThat(l.query(JOURNAL, JournalState::unsealedBytes)).isZero();
    }
  }
}
