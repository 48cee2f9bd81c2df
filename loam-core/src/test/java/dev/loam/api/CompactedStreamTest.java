package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compacted streams end to end through the public API: an embedded node whose own background
 * maintenance segments and compacts a stream created compacted and one switched to compact later;
 * consumers then read the latest value per key at its original offset, deletes disappear after the
 * tombstone retention, and the bounds never move.
 */
class CompactedStreamTest {
  @TempDir Path dir;

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  static List<FetchedRecord> readAll(Log log, String stream) throws Exception {
    List<FetchedRecord> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      FetchResult r =
          log.fetch("default", stream, 0, offset, 1 << 20, Duration.ZERO).get(10, TimeUnit.SECONDS);
      out.addAll(r.records());
      if (r.nextOffset() >= r.highWatermark()) {
        return out;
      }
      offset = r.nextOffset();
    }
  }

  @Test
  void theOwnerCompactsInTheBackgroundAndConsumersReadTheLatestValues() throws Exception {
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)).toBuilder()
            .maintenanceInterval(Duration.ofMillis(100))
            .segmentThresholdBytes(500L)
            .segmentMaxBytes(2500L)
            .segmentEntryMaxBytes(1024)
            .build();
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir.resolve("meta"))
            .objectStore(new InMemoryObjectStore(Clock.systemUTC()))
            .settings(settings)
            .compaction(CompactionSettings.defaults().withTombstoneRetention(Duration.ZERO))
            .start()) {
      Log log = node.log();
      log.createStream("default", "born", new StreamSpec(1, Durability.STANDARD, -1, -1, true))
          .get(10, TimeUnit.SECONDS);
      log.createStream("default", "switched", StreamSpec.standard(1)).get(10, TimeUnit.SECONDS);
      log.updateStream("default", "switched", new StreamUpdate(null, null, true))
          .get(10, TimeUnit.SECONDS);
      for (String stream : List.of("born", "switched")) {
        Map<String, Long> latest = new HashMap<>();
        Map<String, String> latestValue = new HashMap<>();
        long deleted = -1;
        for (int i = 0; i < 60; i++) {
          String key = i < 40 ? "k" + (i % 5) : "f" + i;
          String value = i == 34 ? null : "v" + i; // k4's last record is a delete
          AppendResult r =
              log.append("default", stream, List.of(AppendRecord.of(key, value).toPartition(0)))
                  .get(10, TimeUnit.SECONDS);
          long offset = r.positions().get(0).offset();
          assertThat(offset).isEqualTo(i);
          latest.put(key, offset);
          latestValue.put(key, value);
          if (value == null) {
            deleted = offset;
          }
        }
        long tombstone = deleted;
        Eventually.await(
            () -> {
              try {
                List<FetchedRecord> rs = readAll(log, stream);
                return rs.stream().noneMatch(x -> x.offset() == 0 || x.offset() == tombstone);
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            },
            "stream " + stream + " compacted and its tombstone removed");
        List<FetchedRecord> rs = readAll(log, stream);
        Map<String, FetchedRecord> seen = new HashMap<>();
        long prev = -1;
        for (FetchedRecord r : rs) {
          assertThat(r.offset()).isGreaterThan(prev);
          prev = r.offset();
          String k = s(r.key());
          assertThat(s(r.value())).as("offset %d", r.offset()).isEqualTo("v" + r.offset());
          seen.put(k, r);
        }
        for (String k : latest.keySet()) {
          if (latestValue.get(k) == null) {
            assertThat(seen).as("deleted key %s", k).doesNotContainKey(k);
          } else {
            assertThat(seen.get(k).offset()).as("latest of %s", k).isEqualTo(latest.get(k));
          }
        }
        assertThat(rs.size()).isLessThan(60);
        FetchResult f =
            log.fetch("default", stream, 0, 0, 1, Duration.ZERO).get(10, TimeUnit.SECONDS);
        assertThat(f.records().get(0).offset()).isEqualTo(rs.get(0).offset()).isPositive();
        assertThat(f.highWatermark()).isEqualTo(60);
        assertThat(f.logStartOffset()).isZero();
        assertThat(log.listOffset("default", stream, 0, OffsetSpec.latest()).get()).isEqualTo(60);
      }
    }
  }
}
