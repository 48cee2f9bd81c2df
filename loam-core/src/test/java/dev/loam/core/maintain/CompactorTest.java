package dev.loam.core.maintain;

import static dev.loam.core.maintain.CompactionHarness.kv;
import static dev.loam.core.maintain.CompactionHarness.one;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.CompactionSettings;
import dev.loam.api.FetchedRecord;
import dev.loam.api.ProducerIdentity;
import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.core.read.ReadPath;
import dev.loam.core.read.TailCache;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.testing.Eventually;
import dev.loam.wal.ulid.UlidGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each compaction rule of docs/design/maintenance.md "Compacted streams", on a real node. */
class CompactorTest {
  static final CompactionSettings SETTINGS =
      CompactionSettings.defaults().withTombstoneRetention(CompactionHarness.TOMBSTONE_RETENTION);

  @TempDir Path tmp;

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  static Map<Long, FetchedRecord> byOffset(List<FetchedRecord> rs) {
    Map<Long, FetchedRecord> m = new HashMap<>();
    rs.forEach(r -> m.put(r.offset(), r));
    return m;
  }

  @Test
  void keepsTheLatestRecordPerKeyAtItsOriginalOffset() throws Exception {
    try (CompactionHarness h = new CompactionHarness(tmp, 1, 1, SETTINGS)) {
      for (int i = 0; i < 30; i++) {
        h.append(0, one(kv("k" + (i % 3), "v" + i)));
      }
      h.maintain();
      h.maintain();
      h.check("compacted");
      List<IndexEntry> es = h.entries(0);
      assertThat(es).anyMatch(Compactor::isCompacted);
      Map<Long, FetchedRecord> got = byOffset(h.readAll(0));
      // The first versions were superseded within the compacted prefix and are gone ...
      assertThat(got).doesNotContainKeys(0L, 1L, 2L);
      assertThat(h.supersededGone).isGreaterThanOrEqualTo(3);
      // ... the latest of each key is readable at its original offset ...
      for (long o = 27; o < 30; o++) {
        assertThat(s(got.get(o).value())).isEqualTo("v" + o);
        assertThat(s(got.get(o).key())).isEqualTo("k" + (o % 3));
      }
      // ... and a fetch of a removed offset starts at the next surviving record; the bounds stay.
      var f = h.node.log().fetch("default", "c", 0, 0, 1, Duration.ZERO).get(10, TimeUnit.SECONDS);
      long first = got.keySet().stream().mapToLong(Long::longValue).min().orElseThrow();
      assertThat(f.records().get(0).offset()).isEqualTo(first).isGreaterThan(2);
      assertThat(f.highWatermark()).isEqualTo(30);
      assertThat(f.logStartOffset()).isZero();
    }
  }

  @Test
  void keylessRecordsAreKept() throws Exception {
    try (CompactionHarness h = new CompactionHarness(tmp, 2, 1, SETTINGS)) {
      List<Long> keyless = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        AppendResult r = h.append(0, one(kv(i % 4 == 0 ? null : "k" + (i % 2), "v" + i)));
        if (i % 4 == 0) {
          keyless.add(r.positions().get(0).offset());
        }
      }
      h.maintain();
      h.maintain();
      h.check("compacted");
      assertThat(h.supersededGone).isPositive();
      assertThat(byOffset(h.readAll(0))).containsKeys(keyless.toArray(Long[]::new));
    }
  }

  @Test
  void tombstoneIsKeptForItsRetentionAfterTheFirstCompactionThenRemoved() throws Exception {
    try (CompactionHarness h = new CompactionHarness(tmp, 3, 1, SETTINGS)) {
      h.append(0, one(kv("gone", "old")));
      long tomb = h.append(0, one(kv("gone", null))).positions().get(0).offset();
      // The tombstone's own timestamp is already older than the retention when it is first
      // compacted: the retention runs from that compaction, not from the record's timestamp.
      h.advance(CompactionHarness.TOMBSTONE_RETENTION.plusMinutes(5));
      for (int i = 0; i < 20; i++) {
        h.append(0, one(kv("f" + i, "filler" + i)));
      }
      h.maintain();
      h.maintain();
      h.check("first compaction");
      Map<Long, FetchedRecord> got = byOffset(h.readAll(0));
      assertThat(got).doesNotContainKey(0L);
      assertThat(got.get(tomb).value()).as("tombstone kept").isNull();
      assertThat(h.entries(0).get(0).objectKey()).endsWith(ObjectLayout.COMPACTED_SEGMENT_SUFFIX);

      h.advance(CompactionHarness.TOMBSTONE_RETENTION.minusMinutes(1));
      h.append(0, one(kv("tick", "1")));
      h.maintain();
      h.check("just inside the retention");
      assertThat(byOffset(h.readAll(0))).containsKey(tomb);

      h.advance(Duration.ofMinutes(2));
      h.append(0, one(kv("tick", "2")));
      h.maintain();
      h.maintain();
      h.check("past the retention");
      assertThat(byOffset(h.readAll(0))).doesNotContainKeys(0L, tomb);
      assertThat(h.tombstonesGone).isPositive();
    }
  }

  @Test
  void theActiveTailIsNeverCompacted() throws Exception {
    try (CompactionHarness h = new CompactionHarness(tmp, 4, 1, SETTINGS)) {
      for (int i = 0; i < 30; i++) {
        h.append(0, one(kv("k" + (i % 3), "v" + i)));
      }
      h.maintain();
      h.maintain();
      // The newest entry (here a segment entry) keeps its plain segment and all its records.
      List<IndexEntry> es = h.entries(0);
      IndexEntry newest = es.get(es.size() - 1);
      assertThat(newest.objectKey()).endsWith(".seg");
      Map<Long, FetchedRecord> got = byOffset(h.readAll(0));
      for (long o = newest.baseOffset(); o < newest.endOffset(); o++) {
        assertThat(got).containsKey(o);
      }
      // WAL entries after it stay as they are, superseded or not.
      h.append(0, one(kv("k0", "tail-1")));
      h.append(0, one(kv("k0", "tail-2")));
      List<IndexEntry> before = h.entries(0);
      h.maintain();
      h.maintain();
      List<IndexEntry> after = h.entries(0);
      assertThat(after.subList(after.size() - 2, after.size()))
          .isEqualTo(before.subList(before.size() - 2, before.size()))
          .allMatch(Segmenter::isWal);
      assertThat(byOffset(h.readAll(0))).containsKeys(30L, 31L);
      h.check("tail");
    }
  }

  @Test
  void aStaleCompactorIsRefusedAndItsSegmentBecomesAnOrphan() throws Exception {
    try (CompactionHarness h = new CompactionHarness(tmp, 5, 1, SETTINGS)) {
      h.append(0, one(kv("open", "it")));
      h.maintain(); // opens the stream; nothing to segment yet
      for (int i = 0; i < 30; i++) {
        h.append(0, one(kv("k" + (i % 3), "v" + i)));
      }
      long oldEpoch = h.node.epoch();
      ReadPath rp = new ReadPath(h.store, new TailCache(0));
      Segmenter seg =
          new Segmenter(
              new NodeContext(
                  h.node.clusterId(),
                  "n1",
                  oldEpoch,
                  h.meta,
                  h.clock,
                  new UlidGenerator(new Random(1)),
                  null),
              h.store,
              rp,
              500,
              2500,
              1024);
      while (seg.poll().get(10, TimeUnit.SECONDS)) {
        // segment everything, without compacting
      }
      Compactor stale =
          new Compactor(
              new NodeContext(
                  h.node.clusterId(),
                  "n1",
                  oldEpoch,
                  h.meta,
                  h.clock,
                  new UlidGenerator(new Random(2)),
                  null),
              h.store,
              rp,
              SETTINGS,
              2500,
              1024);
      List<Compactor.Plan> plans = stale.pick();
      assertThat(plans).hasSize(1);
      long streamEpoch = plans.get(0).key().streamEpoch();
      // The node restarts and reopens the stream at a newer stream epoch.
      h.restart();
      Eventually.await(
          () ->
              h.meta
                      .read(r -> r.ownership(h.info.id()))
                      .map(StreamOwnership::streamEpoch)
                      .orElse(0L)
                  > streamEpoch,
          "the restarted node reopens the stream");
      List<IndexEntry> before = h.entries(0);
      assertThat(stale.compact(plans.get(0)).get(10, TimeUnit.SECONDS)).isFalse();
      assertThat(stale.swapsRefused()).isEqualTo(1);
      assertThat(h.entries(0)).isEqualTo(before);
      h.check("stale refused");
      h.settleGc("orphan of the stale compactor deleted");
    }
  }

  @Test
  void idempotentProducerDedupeSurvivesCompaction() throws Exception {
    try (CompactionHarness h = new CompactionHarness(tmp, 6, 1, SETTINGS)) {
      ProducerIdentity pid = h.node.log().allocateProducerId().get(10, TimeUnit.SECONDS);
      List<AppendRecord> first =
          List.of(AppendRecord.of("k0", "first").toPartition(0).withTimestamp(h.clock.millis()));
      AppendResult a = h.node.log().append("default", "c", first, pid).get(10, TimeUnit.SECONDS);
      h.record(0, one(kv("k0", "first")), a);
      for (int i = 0; i < 30; i++) {
        h.append(0, one(kv("k" + (i % 3), "v" + i)));
      }
      h.maintain();
      h.maintain();
      assertThat(byOffset(h.readAll(0))).doesNotContainKey(0L);
      long hw = h.bounds(0).highWatermark();
      AppendResult retry =
          h.node.log().append("default", "c", first, pid).get(10, TimeUnit.SECONDS);
      assertThat(retry.duplicate()).isTrue();
      assertThat(retry.positions().get(0).offset()).isEqualTo(a.positions().get(0).offset());
      assertThat(h.bounds(0).highWatermark()).isEqualTo(hw);
      h.check("after the retry");
    }
  }

  @Test
  void aSmallMapCompactsInSeveralPasses() throws Exception {
    // 40 slots: 36 keys per pass, fewer than the 60 keys written.
    CompactionSettings small = SETTINGS.withMapBytes(40 * OffsetMap.SLOT_BYTES);
    try (CompactionHarness h = new CompactionHarness(tmp, 7, 1, small)) {
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 60; i++) {
          h.append(0, one(kv("k" + i, "r" + round)));
        }
      }
      for (int i = 0; i < 8; i++) {
        h.append(0, one(kv("filler" + i, "x")));
      }
      h.maintain();
      h.check("first pass");
      int passes = 1;
      while (stale(h) > 0 && passes < 20) {
        h.maintain();
        passes++;
      }
      h.check("all passes");
      assertThat(stale(h)).as("superseded records left in the compacted prefix").isZero();
      assertThat(passes).as("maintenance passes needed").isGreaterThan(1);
    }
  }

  /**
   * Records before the newest entry (the part compaction may touch) that a later record of the same
   * key before the newest entry supersedes.
   */
  static long stale(CompactionHarness h) throws Exception {
    List<IndexEntry> es = h.entries(0);
    long newestBase = es.get(es.size() - 1).baseOffset();
    Map<String, Long> latest = new HashMap<>();
    for (CompactionHarness.Rec r : h.model.get(0)) {
      if (r.offset() < newestBase) {
        latest.put(s(r.key()), r.offset());
      }
    }
    return h.readAll(0).stream()
        .filter(r -> r.offset() < newestBase && latest.get(s(r.key())) > r.offset())
        .count();
  }
}
