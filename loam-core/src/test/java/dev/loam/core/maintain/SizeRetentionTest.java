package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.NodeSettings;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.node.NodeRuntime;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The size branch of retention ({@link RetentionTask}, docs/design/maintenance.md "TrimPartition"):
 * one maintenance pass drops the oldest index entries while the entries kept still hold at least
 * {@code retentionBytes}, never the newest entry, and nothing when the partition is within its
 * limit. The expected log start is computed here from the index entries by the rule as the design
 * states it (Kafka's: a partition exceeds its limit by less than one entry), not by the planner.
 */
class SizeRetentionTest {
  private static final String NS = "default";
  private static final String STREAM = "s";

  /** A settable clock: time only moves when a test says so. */
  static final class Clock implements InstantSource {
    final AtomicLong now = new AtomicLong(1_780_000_000_000L);

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(now.get());
    }

    @Override
    public long millis() {
      return now.get();
    }
  }

  @TempDir Path tmp;

  private final Clock clock = new Clock();
  private final ExecutorService metaExec = Executors.newSingleThreadExecutor();
  private final ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor();
  private Metastore meta;
  private NodeRuntime node;
  private StreamInfo info;

  private void open(long retentionMillis, long retentionBytes) throws Exception {
    meta =
        EmbeddedMetastore.open(
            Files.createTempDirectory(tmp, "meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            metaExec);
    node =
        NodeRuntime.builder()
            .nodeId("n1")
            .settings(
                NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)).toBuilder()
                    .maintenanceInterval(Duration.ofHours(1000))
                    .build())
            .store(new InMemoryObjectStore(clock))
            .meta(meta)
            .clock(clock)
            .random(new Random(7))
            .scheduler(sched)
            .startTimeout(Duration.ofSeconds(10))
            .ownershipSettings(OwnershipSettings.defaults())
            .start();
    node.log()
        .createStream(
            NS,
            STREAM,
            new StreamSpec(1, Durability.STANDARD, retentionMillis, retentionBytes, false))
        .get(10, TimeUnit.SECONDS);
    info = meta.read(r -> r.stream(NS, STREAM).orElseThrow());
  }

  @AfterEach
  void close() {
    if (node != null) {
      node.stop();
    }
    if (meta != null) {
      meta.close();
    }
    metaExec.shutdownNow();
    sched.shutdownNow();
  }

  /** Appends {@code n} single-record appends of {@code valueBytes}; each becomes one entry. */
  private void append(int n, int valueBytes) throws Exception {
    Random rnd = new Random(n * 31L + valueBytes);
    for (int i = 0; i < n; i++) {
      byte[] v = new byte[valueBytes];
      rnd.nextBytes(v);
      node.log()
          .append(
              NS,
              STREAM,
              List.of(
                  new AppendRecord(
                      null, v, List.of(), OptionalLong.of(clock.millis()), OptionalInt.of(0))))
          .get(10, TimeUnit.SECONDS);
    }
  }

  private List<IndexEntry> entries() {
    long start = partition().logStartOffset();
    return meta.read(r -> r.indexEntries(info.id(), 0, start, Integer.MAX_VALUE));
  }

  private PartitionInfo partition() {
    return meta.read(r -> r.partition(info.id(), 0).orElseThrow());
  }

  private void maintain() throws Exception {
    // The first pass's ownership step opens the stream; the passes after it trim.
    for (int i = 0; i < 3; i++) {
      node.runMaintenance().get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * The log start the size rule leads to: drop the oldest entry while the rest holds at least
   * {@code limit} bytes and it is not the newest.
   */
  private static long expectedLogStart(List<IndexEntry> es, long limit) {
    long kept = es.stream().mapToLong(IndexEntry::byteLength).sum();
    int i = 0;
    while (i < es.size() - 1 && kept - es.get(i).byteLength() >= limit) {
      kept -= es.get(i).byteLength();
      i++;
    }
    return es.get(i).baseOffset();
  }

  private static long bytes(List<IndexEntry> es) {
    return es.stream().mapToLong(IndexEntry::byteLength).sum();
  }

  @Test
  void dropsTheOldestEntriesWhileTheRestHoldsTheLimit() throws Exception {
    open(-1, 2_000);
    append(20, 300);
    List<IndexEntry> before = entries();
    assertThat(before).hasSize(20);
    assertThat(bytes(before)).isGreaterThan(5_000);
    long expected = expectedLogStart(before, 2_000);
    assertThat(expected).isGreaterThan(10);

    maintain();

    assertThat(partition().logStartOffset()).isEqualTo(expected);
    List<IndexEntry> after = entries();
    assertThat(bytes(after)).isGreaterThanOrEqualTo(2_000);
    assertThat(bytes(after) - after.get(0).byteLength()).isLessThan(2_000);
    // The dropped records are gone, the kept ones read back.
    assertThatThrownBy(() -> fetch(expected - 1))
        .hasCauseInstanceOf(OffsetOutOfRangeException.class);
    assertThat(fetch(expected).records()).isNotEmpty();
    assertThat(fetch(expected).records().get(0).offset()).isEqualTo(expected);
  }

  @Test
  void laterAppendsAreTrimmedByLaterPasses() throws Exception {
    open(-1, 2_000);
    append(10, 300);
    maintain();
    long first = partition().logStartOffset();
    assertThat(first).isGreaterThan(0);
    append(10, 300);
    long expected = expectedLogStart(entries(), 2_000);
    assertThat(expected).isGreaterThan(first);
    maintain();
    assertThat(partition().logStartOffset()).isEqualTo(expected);
  }

  @Test
  void neverDropsTheNewestEntryEvenWhenItAloneExceedsTheLimit() throws Exception {
    open(-1, 1);
    append(4, 500);
    List<IndexEntry> before = entries();
    maintain();
    assertThat(partition().logStartOffset()).isEqualTo(before.get(before.size() - 1).baseOffset());
    assertThat(entries()).hasSize(1);
    assertThat(partition().highWatermark()).isEqualTo(4);
  }

  @Test
  void trimsNothingWhileThePartitionIsWithinItsLimit() throws Exception {
    open(-1, 100_000);
    append(10, 300);
    maintain();
    assertThat(partition().logStartOffset()).isZero();
    assertThat(entries()).hasSize(10);
  }

  @Test
  void trimsBySizeWhenTheTimeRetentionKeepsEverything() throws Exception {
    open(Duration.ofDays(1).toMillis(), 2_000);
    append(20, 300);
    long expected = expectedLogStart(entries(), 2_000);
    maintain();
    assertThat(partition().logStartOffset()).isEqualTo(expected);
  }

  private FetchResult fetch(long from) throws Exception {
    return node.log().fetch(NS, STREAM, 0, from, 1 << 20, Duration.ZERO).get(10, TimeUnit.SECONDS);
  }
}
