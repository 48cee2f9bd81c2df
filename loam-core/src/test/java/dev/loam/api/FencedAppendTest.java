package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fenced appends through {@link Log} (docs/design/changelog.md), on the embedded metastore and a
 * real WAL write path: a stale writer cannot append, an overlapping retry appends only the new
 * part, a retry never doubles, and the source position survives a restart. The sequencer's rules
 * themselves are property-tested in loam-meta (FencedAppendTest there).
 */
class FencedAppendTest {
  private static final String SRC = "orders-0";

  @TempDir Path dir;

  /** Real time plus an offset the test moves forward, so leases expire without waiting. */
  private final AtomicLong skewMillis = new AtomicLong();

  private final InstantSource clock =
      () -> Instant.ofEpochMilli(System.currentTimeMillis() + skewMillis.get());

  private LoamNode open() {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir)
        .clock(clock)
        .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
        .start();
  }

  private static SourceGroup group(long from, long to) {
    List<AppendRecord> recs = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      recs.add(AppendRecord.of("k" + i, "v" + i));
    }
    return new SourceGroup(from, to, recs);
  }

  private static List<String> values(Log log) throws Exception {
    FetchResult got = await(log.fetch("ns", "out", 0, 0, 1 << 20, Duration.ZERO));
    List<String> out = new ArrayList<>();
    for (FetchedRecord r : got.records()) {
      out.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static Log setUp(LoamNode node) throws Exception {
    Log log = node.log();
    await(log.createNamespace("ns"));
    await(log.createStream("ns", "out", StreamSpec.standard(2)));
    return log;
  }

  @Test
  void anOverlappingRetryAppendsOnlyTheNewPart() throws Exception {
    try (LoamNode node = open()) {
      Log log = setUp(node);
      WriterLease lease =
          await(log.acquireWriterLease("ns", "out", 0, SRC, "worker-a", Duration.ofMinutes(1)));
      assertThat(lease.epoch()).isEqualTo(1);
      assertThat(lease.sourceUpto()).isEmpty();
      assertThat(lease.resumeFrom()).isZero();
      FencedAppendResult first =
          await(log.appendFenced("ns", "out", 0, SRC, 1, List.of(group(0, 2), group(3, 4))));
      assertThat(first.groups())
          .extracting(FencedAppendResult.Group::status)
          .containsOnly(FencedAppendResult.Status.APPENDED);
      assertThat(first.groups())
          .extracting(FencedAppendResult.Group::baseOffset)
          .containsExactly(0L, 3L);
      assertThat(first.sourceUpto()).isEqualTo(4);

      FencedAppendResult retry =
          await(
              log.appendFenced(
                  "ns", "out", 0, SRC, 1, List.of(group(0, 2), group(3, 4), group(5, 6))));
      assertThat(retry.groups())
          .extracting(FencedAppendResult.Group::status)
          .containsExactly(
              FencedAppendResult.Status.ALREADY_APPENDED,
              FencedAppendResult.Status.ALREADY_APPENDED,
              FencedAppendResult.Status.APPENDED);
      assertThat(retry.groups().get(2).baseOffset()).isEqualTo(5);
      assertThat(retry.sourceUpto()).isEqualTo(6);

      // A whole retry (an answer lost after the commit) appends nothing.
      FencedAppendResult again =
          await(log.appendFenced("ns", "out", 0, SRC, 1, List.of(group(5, 6))));
      assertThat(again.allAlreadyAppended()).isTrue();
      assertThat(values(log)).containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6");
      assertThat(await(log.writerLease("ns", "out", 0, SRC)).orElseThrow().sourceUpto())
          .hasValue(6);
    }
  }

  @Test
  void aStaleWriterCannotAppend() throws Exception {
    try (LoamNode node = open()) {
      Log log = setUp(node);
      WriterLease a =
          await(log.acquireWriterLease("ns", "out", 0, SRC, "worker-a", Duration.ofSeconds(5)));
      await(log.appendFenced("ns", "out", 0, SRC, a.epoch(), List.of(group(0, 0))));
      // While a's lease is live, b is refused; once it expired, b takes the next term.
      assertThat(
              failure(
                      log.acquireWriterLease(
                          "ns", "out", 0, SRC, "worker-b", Duration.ofSeconds(5)))
                  .kind())
          .isEqualTo(Kind.CONFLICT);
      skewMillis.addAndGet(6_000);
      WriterLease b =
          await(log.acquireWriterLease("ns", "out", 0, SRC, "worker-b", Duration.ofSeconds(5)));
      assertThat(b.epoch()).isEqualTo(a.epoch() + 1);
      assertThat(b.resumeFrom()).isEqualTo(1);

      var stale = failure(log.appendFenced("ns", "out", 0, SRC, a.epoch(), List.of(group(1, 1))));
      assertThat(stale.kind()).isEqualTo(Kind.FENCED);
      assertThat(stale.getMessage()).contains("leaseEpoch=" + a.epoch(), "source=" + SRC);
      assertThat(values(log)).containsExactly("v0");

      await(log.appendFenced("ns", "out", 0, SRC, b.epoch(), List.of(group(1, 1))));
      assertThat(values(log)).containsExactly("v0", "v1");
    }
  }

  @Test
  void gapsMisalignedRetriesAndBadGroupsAreRefusedAndAppendNothing() throws Exception {
    try (LoamNode node = open()) {
      Log log = setUp(node);
      long e =
          await(log.acquireWriterLease("ns", "out", 0, SRC, "w", Duration.ofMinutes(1))).epoch();
      await(log.appendFenced("ns", "out", 0, SRC, e, List.of(group(0, 3))));
      var gap = failure(log.appendFenced("ns", "out", 0, SRC, e, List.of(group(5, 5))));
      assertThat(gap.kind()).isEqualTo(Kind.CONFLICT);
      assertThat(gap.getMessage()).contains("gap", "sourceFrom=5");
      var overlap = failure(log.appendFenced("ns", "out", 0, SRC, e, List.of(group(2, 5))));
      assertThat(overlap.kind()).isEqualTo(Kind.CONFLICT);
      var holes =
          failure(log.appendFenced("ns", "out", 0, SRC, e, List.of(group(4, 4), group(6, 6))));
      assertThat(holes.kind()).isEqualTo(Kind.INVALID);
      assertThat(holes.getMessage()).contains("contiguous", "group=1");
      var empty =
          failure(
              log.appendFenced("ns", "out", 0, SRC, e, List.of(new SourceGroup(4, 4, List.of()))));
      assertThat(empty.getMessage()).contains("at least one record");
      var badSource = failure(log.appendFenced("ns", "out", 0, "a/b", e, List.of(group(4, 4))));
      assertThat(badSource.kind()).isEqualTo(Kind.INVALID);
      assertThat(badSource.getMessage()).contains("source=a/b");
      assertThat(values(log)).hasSize(4);
      // Another source on the same partition has its own position.
      long e2 =
          await(log.acquireWriterLease("ns", "out", 0, "other", "w", Duration.ofMinutes(1)))
              .epoch();
      FencedAppendResult r =
          await(log.appendFenced("ns", "out", 0, "other", e2, List.of(group(0, 0))));
      assertThat(r.groups().get(0).baseOffset()).isEqualTo(4);
    }
  }

  @Test
  void theSourcePositionSurvivesARestart() throws Exception {
    try (LoamNode node = open()) {
      Log log = setUp(node);
      await(log.acquireWriterLease("ns", "out", 1, SRC, "w", Duration.ofMinutes(1)));
      await(log.appendFenced("ns", "out", 1, SRC, 1, List.of(group(0, 9))));
    }
    try (LoamNode again = open()) {
      Log log = again.log();
      WriterLease l =
          await(log.acquireWriterLease("ns", "out", 1, SRC, "w", Duration.ofMinutes(1)));
      assertThat(l.epoch()).isEqualTo(1);
      assertThat(l.resumeFrom()).isEqualTo(10);
      FencedAppendResult r =
          await(log.appendFenced("ns", "out", 1, SRC, 1, List.of(group(8, 9), group(10, 10))));
      assertThat(r.groups().get(0).status()).isEqualTo(FencedAppendResult.Status.ALREADY_APPENDED);
      assertThat(r.groups().get(1).baseOffset()).isEqualTo(10);
    }
  }
}
