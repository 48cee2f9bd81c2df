package dev.loam.core.maintain;

import static dev.loam.core.maintain.CompactionHarness.kv;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.CompactionSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random interleavings of keyed appends (with tombstones and keyless records), maintenance
 * (segmenter, compactor, GC), clock advances, node crashes, and crashes between writing a compacted
 * segment and its swap. After every step (CompactionHarness#check): every surviving record is read
 * at its original offset with its content, in order; a missing record was superseded by a later
 * record of its key, or is a tombstone older than the tombstone retention; keyless records and the
 * latest record of each key are never lost; a fetch at any offset starts at the next surviving
 * record; the bounds never move; every referenced object exists. At the end, after the grace
 * periods, the store holds exactly the referenced objects (orphans deleted).
 */
class CompactionPropertyTest {
  static final CompactionSettings SETTINGS =
      CompactionSettings.defaults()
          .withTombstoneRetention(CompactionHarness.TOMBSTONE_RETENTION)
          .withMapBytes(60 * OffsetMap.SLOT_BYTES);

  @Property(tries = 8)
  void compactionNeverLosesTheLatestRecordOfAKey(
      @ForAll("ops") List<Integer> ops, @ForAll long seed) throws Exception {
    run(ops, seed);
  }

  /**
   * Compaction and time retention on one stream (Kafka's "compact,delete"): retention moves the log
   * start only past records older than the retention, fetches below it are refused with
   * OffsetOutOfRange, and above it the compaction invariants hold.
   */
  @Property(tries = 6)
  void compactionWithTimeRetentionKeepsBothRules(
      @ForAll("ops") List<Integer> ops, @ForAll long seed) throws Exception {
    run(ops, seed, Duration.ofMinutes(25).toMillis());
  }

  @Example
  void retentionTrimsACompactedStream() throws Exception {
    int trimmed = 0;
    for (long seed = 1; seed <= 3; seed++) {
      Random r = new Random(seed);
      List<Integer> ops = new ArrayList<>();
      for (int i = 0; i < 70; i++) {
        ops.add(r.nextInt(100));
      }
      trimmed += run(ops, seed, Duration.ofMinutes(25).toMillis())[4];
    }
    assertThat(trimmed).as("records trimmed by retention").isPositive();
  }

  /**
   * A sample the property found: after a crash between a compacted segment's PUT and its swap, a
   * fetch of one byte at an offset whose batch kept only older records answered no record (and the
   * batch's end as the next offset) although a later record survived in the same segment.
   */
  @Example
  void aFetchInsideACompactedBatchReadsOnToTheNextSurvivingRecord() throws Exception {
    run(
        List.of(
            0, 0, 58, 98, 10, 51, 2, 30, 2, 96, 4, 80, 6, 18, 99, 11, 10, 60, 4, 15, 0, 75, 55, 12,
            2, 13, 54, 27, 39, 98, 2, 99, 7, 51, 24, 32, 45, 29, 0, 1, 1, 91),
        -1245784214L);
  }

  @Provide
  Arbitrary<List<Integer>> ops() {
    return Arbitraries.integers().between(0, 99).list().ofMinSize(20).ofMaxSize(50);
  }

  /** Long fixed runs that must reach every interesting state (coverage of the property above). */
  @Example
  void fixedRunsCoverRemovalsTombstonesAndCrashes() throws Exception {
    int superseded = 0;
    int tombstones = 0;
    int compacted = 0;
    int crashes = 0;
    for (long seed = 1; seed <= 3; seed++) {
      Random r = new Random(seed);
      List<Integer> ops = new ArrayList<>();
      for (int i = 0; i < 70; i++) {
        ops.add(r.nextInt(100));
      }
      int[] c = run(ops, seed);
      superseded += c[0];
      tombstones += c[1];
      compacted += c[2];
      crashes += c[3];
    }
    assertThat(superseded).as("superseded records removed").isPositive();
    assertThat(tombstones).as("tombstones removed after their retention").isPositive();
    assertThat(compacted).as("compacted entries read").isPositive();
    assertThat(crashes).as("crashes between a compacted segment PUT and its swap").isPositive();
  }

  static int[] run(List<Integer> ops, long seed) throws Exception {
    return run(ops, seed, -1);
  }

  static int[] run(List<Integer> ops, long seed, long retentionMillis) throws Exception {
    Path tmp = Files.createTempDirectory("loam-compaction-prop");
    try (CompactionHarness h = new CompactionHarness(tmp, seed, 2, SETTINGS, retentionMillis)) {
      Random rnd = new Random(seed);
      int step = 0;
      for (int op : ops) {
        String what;
        if (op < 55) {
          int p = rnd.nextInt(2);
          int n = op < 45 ? 1 + rnd.nextInt(4) : 10;
          List<byte[][]> kvs = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(20);
            String key = kind == 0 ? null : "key-" + rnd.nextInt(6);
            String value = kind >= 1 && kind <= 3 ? null : "value-" + step + "-" + i;
            kvs.add(kv(key, value));
          }
          h.append(p, kvs);
          what = "append p=" + p + " n=" + n;
        } else if (op < 72) {
          h.maintain();
          what = "maintain";
        } else if (op < 82) {
          h.advance(Duration.ofMinutes(1 + rnd.nextInt(20)));
          what = "advance";
        } else if (op < 90) {
          h.restart();
          what = "crash";
        } else {
          // The compactor dies between its segment PUT and the swap; the process restarts.
          h.crashAfterCompactedPut.set(true);
          h.maintain();
          h.crashAfterCompactedPut.set(false);
          h.restart();
          what = "crash after a compacted segment PUT";
        }
        h.check("seed=" + seed + " step=" + step + " " + what);
        step++;
      }
      // Let the tombstone retention pass twice (the first pass may only set the horizons).
      for (int i = 0; i < 2; i++) {
        h.advance(CompactionHarness.TOMBSTONE_RETENTION.plusMinutes(1));
        h.append(1, CompactionHarness.one(kv("tick", "t" + i)));
        h.maintain();
        h.check("seed=" + seed + " retention passed " + i);
      }
      h.settleGc("seed=" + seed + " end");
      h.check("seed=" + seed + " end");
      return new int[] {
        h.supersededGone,
        h.tombstonesGone,
        h.compactedEntriesSeen,
        h.crashesInjected,
        h.trimmedByRetention
      };
    } finally {
      try (Stream<Path> s = Files.walk(tmp)) {
        s.sorted(Comparator.reverseOrder())
            .forEach(
                f -> {
                  try {
                    Files.deleteIfExists(f);
                  } catch (IOException e) {
                    // best effort
                  }
                });
      }
    }
  }
}
