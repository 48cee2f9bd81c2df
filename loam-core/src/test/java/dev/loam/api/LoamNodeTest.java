package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Log API of one embedded node, end to end on a real metastore and the in-memory store. */
class LoamNodeTest {
  @TempDir Path dir;
  TestCluster cluster;
  Log log;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    log = cluster.start("n1", TestCluster.FAST).log();
    log.createNamespace("ns").join();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  static LoamException failure(CompletableFuture<?> f) {
    try {
      f.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LoamException.class);
      return (LoamException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError("unexpected " + e, e);
    }
    throw new AssertionError("expected the future to fail");
  }

  static List<FetchedRecord> readAll(Log log, String ns, String s, int p) {
    List<FetchedRecord> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      FetchResult r = log.fetch(ns, s, p, offset, 1 << 20, Duration.ZERO).join();
      if (r.records().isEmpty()) {
        return out;
      }
      out.addAll(r.records());
      offset = r.nextOffset();
    }
  }

  @Test
  void appendedRecordsAreFetchedWithTheirOffsetsAndContent() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(3)).join();
    List<AppendRecord> records = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      records.add(
          AppendRecord.of("k" + (i % 7), "v" + i)
              .withTimestamp(1_000 + i)
              .withHeaders(List.of(new Header("h", ("x" + i).getBytes(StandardCharsets.UTF_8)))));
    }
    AppendResult r = await(log.append("ns", "s", records));
    assertThat(r.positions()).hasSize(30);
    assertThat(r.duplicate()).isFalse();
    assertThat(r.consistencyToken()).isPositive();
    for (int i = 0; i < 30; i++) {
      int expected =
          Partitioning.partitionForKey(("k" + (i % 7)).getBytes(StandardCharsets.UTF_8), 3);
      assertThat(r.positions().get(i).partition()).isEqualTo(expected);
    }
    int total = 0;
    for (int p = 0; p < 3; p++) {
      List<FetchedRecord> got = readAll(log, "ns", "s", p);
      for (int j = 0; j < got.size(); j++) {
        FetchedRecord f = got.get(j);
        assertThat(f.offset()).isEqualTo(j);
        int i = Integer.parseInt(f.valueAsString().substring(1));
        assertThat(r.positions().get(i)).isEqualTo(new AppendResult.RecordPosition(p, j));
        assertThat(f.keyAsString()).isEqualTo("k" + (i % 7));
        assertThat(f.timestamp()).isEqualTo(1_000 + i);
        assertThat(f.headers())
            .containsExactly(new Header("h", ("x" + i).getBytes(StandardCharsets.UTF_8)));
      }
      total += got.size();
    }
    assertThat(total).isEqualTo(30);
  }

  @Test
  void concurrentAppendsGetDenseDistinctOffsetsInSubmissionOrder() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      fs.add(
          log.append(
              "ns", "s", List.of(AppendRecord.of(null, "r" + i), AppendRecord.of(null, "s" + i))));
    }
    Set<Long> offsets = new HashSet<>();
    long last = -1;
    for (CompletableFuture<AppendResult> f : fs) {
      AppendResult r = await(f);
      long o0 = r.positions().get(0).offset();
      assertThat(r.positions().get(1).offset()).isEqualTo(o0 + 1);
      assertThat(o0).isGreaterThan(last);
      last = o0 + 1;
      offsets.add(o0);
      offsets.add(o0 + 1);
    }
    assertThat(offsets).hasSize(400);
    assertThat(offsets).allMatch(o -> o >= 0 && o < 400);
    List<FetchedRecord> all = readAll(log, "ns", "s", 0);
    assertThat(all).hasSize(400);
    for (int i = 0; i < 200; i++) {
      assertThat(all.get(2 * i).valueAsString()).isEqualTo("r" + i);
      assertThat(all.get(2 * i + 1).valueAsString()).isEqualTo("s" + i);
    }
  }

  @Test
  void longPollCompletesWhenRecordsAreCommittedAndTimesOutEmpty() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    CompletableFuture<FetchResult> waiting =
        log.fetch("ns", "s", 0, 0, 1 << 20, Duration.ofSeconds(30));
    assertThat(waiting).isNotDone();
    await(log.append("ns", "s", List.of(AppendRecord.of("k", "hello"))));
    FetchResult r = waiting.get(5, TimeUnit.SECONDS);
    assertThat(r.records()).extracting(FetchedRecord::valueAsString).containsExactly("hello");
    assertThat(r.nextOffset()).isEqualTo(1);
    assertThat(r.highWatermark()).isEqualTo(1);

    FetchResult empty = await(log.fetch("ns", "s", 0, 1, 1 << 20, Duration.ofMillis(30)));
    assertThat(empty.records()).isEmpty();
    assertThat(empty.nextOffset()).isEqualTo(1);
  }

  @Test
  void fetchOutsideTheBoundsNamesBothBounds() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    await(log.append("ns", "s", List.of(AppendRecord.of("k", "v"))));
    LoamException e = failure(log.fetch("ns", "s", 0, 5, 1024, Duration.ZERO));
    assertThat(e).isInstanceOf(OffsetOutOfRangeException.class);
    assertThat(e.getMessage())
        .contains("offset=5", "logStartOffset=0", "highWatermark=1", "stream=ns/s");
    assertThat(failure(log.fetch("ns", "s", 0, -1, 1024, Duration.ZERO)))
        .isInstanceOf(OffsetOutOfRangeException.class);
    assertThat(failure(log.fetch("ns", "s", 7, 0, 1024, Duration.ZERO)).kind())
        .isEqualTo(Kind.INVALID);
    assertThat(failure(log.fetch("ns", "nope", 0, 0, 1024, Duration.ZERO)).kind())
        .isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void aFetchWithAConsistencyTokenSeesTheWrite() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    AppendResult r = await(log.append("ns", "s", List.of(AppendRecord.of("k", "v"))));
    FetchResult f =
        await(
            log.fetch("ns", "s", 0, 0, 1024, Duration.ZERO, OptionalLong.of(r.consistencyToken())));
    assertThat(f.records()).hasSize(1);
  }

  @Test
  void aTokenThisNodeNeverReachesFailsAfterTheWait() {
    // The token wait has a floor (so a lagging replica is given time) capped by maxFetchWait.
    Log capped =
        cluster
            .start("n2", TestCluster.FAST.toBuilder().maxFetchWait(Duration.ofMillis(200)).build())
            .log();
    capped.createStream("ns", "s", StreamSpec.standard(1)).join();
    LoamException e =
        failure(
            capped.fetch("ns", "s", 0, 0, 1024, Duration.ZERO, OptionalLong.of(1_000_000_000L)));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e.getMessage()).contains("token=1000000000");
  }

  @Test
  void idempotentRetryReturnsTheOriginalOffsets() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(2)).join();
    List<AppendRecord> recs =
        List.of(AppendRecord.of("a", "1").toPartition(1), AppendRecord.of("b", "2").toPartition(1));
    AppendResult first = await(log.append("ns", "s", recs, new ProducerIdentity(7, (short) 0, 0)));
    await(log.append("ns", "s", List.of(AppendRecord.of("c", "3").toPartition(1))));
    AppendResult retry = await(log.append("ns", "s", recs, new ProducerIdentity(7, (short) 0, 0)));
    assertThat(retry.duplicate()).isTrue();
    assertThat(retry.positions()).isEqualTo(first.positions());
    assertThat(readAll(log, "ns", "s", 1)).hasSize(3);

    AppendResult next =
        await(
            log.append(
                "ns",
                "s",
                List.of(AppendRecord.of("d", "4").toPartition(1)),
                new ProducerIdentity(7, (short) 0, 2)));
    assertThat(next.positions().get(0).offset()).isEqualTo(3);
    LoamException gap =
        failure(
            log.append(
                "ns",
                "s",
                List.of(AppendRecord.of("e", "5").toPartition(1)),
                new ProducerIdentity(7, (short) 0, 9)));
    assertThat(gap.kind()).isEqualTo(Kind.CONFLICT);
    assertThat(gap.getMessage())
        .contains("out of order sequence", "producerId=7", "baseSequence=9");
    LoamException spread =
        failure(
            log.append(
                "ns",
                "s",
                List.of(
                    AppendRecord.of("x", "1").toPartition(0),
                    AppendRecord.of("y", "1").toPartition(1)),
                new ProducerIdentity(8, (short) 0, 0)));
    assertThat(spread.kind()).isEqualTo(Kind.INVALID);
  }

  @Test
  void listOffsetsFindsEarliestLatestAndByTimestamp() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    for (int i = 0; i < 5; i++) {
      await(log.append("ns", "s", List.of(AppendRecord.of("k", "v" + i).withTimestamp(100 * i))));
    }
    assertThat(await(log.listOffset("ns", "s", 0, OffsetSpec.earliest()))).isZero();
    assertThat(await(log.listOffset("ns", "s", 0, OffsetSpec.latest()))).isEqualTo(5);
    assertThat(await(log.listOffset("ns", "s", 0, OffsetSpec.forTimestamp(250)))).isEqualTo(3);
    assertThat(await(log.listOffset("ns", "s", 0, OffsetSpec.forTimestamp(0)))).isZero();
    assertThat(await(log.listOffset("ns", "s", 0, OffsetSpec.forTimestamp(10_000)))).isEqualTo(5);
  }

  @Test
  void streamAdminCreatesDescribesListsAndDeletes() throws Exception {
    StreamDescription d = await(log.createStream("ns", "a", StreamSpec.standard(4)));
    assertThat(d.partitions()).hasSize(4);
    assertThat(d.spec().partitions()).isEqualTo(4);
    await(log.createStream("ns", "b", StreamSpec.standard(1)));
    assertThat(await(log.listStreams("ns")))
        .extracting(StreamDescription::name)
        .containsExactly("a", "b");
    assertThat(failure(log.createStream("ns", "a", StreamSpec.standard(1))).kind())
        .isEqualTo(Kind.CONFLICT);
    assertThat(failure(log.createStream("missing", "a", StreamSpec.standard(1))).kind())
        .isEqualTo(Kind.NOT_FOUND);
    assertThat(failure(log.createStream("ns", "bad name!", StreamSpec.standard(1))).kind())
        .isEqualTo(Kind.INVALID);
    assertThat(failure(log.deleteNamespace("ns")).kind()).isEqualTo(Kind.CONFLICT);
    await(log.deleteStream("ns", "a"));
    assertThat(failure(log.describeStream("ns", "a")).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(failure(log.append("ns", "a", List.of(AppendRecord.of("k", "v")))).kind())
        .isEqualTo(Kind.NOT_FOUND);
    assertThat(await(log.listNamespaces())).contains("default", "ns");
  }

  @Test
  void aSecondProcessWithTheSameNodeIdFencesTheFirst() throws Exception {
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    LoamNode newer = cluster.start("n1", TestCluster.FAST);
    assertThat(
            newer
                .log()
                .append("ns", "s", List.of(AppendRecord.of("k", "new")))
                .get(10, TimeUnit.SECONDS)
                .positions())
        .hasSize(1);
    LoamException e = failure(log.append("ns", "s", List.of(AppendRecord.of("k", "old"))));
    assertThat(e.kind()).isEqualTo(Kind.FENCED);
    assertThat(e.getMessage()).contains("n1");
    assertThat(failure(log.createStream("ns", "t", StreamSpec.standard(1))).kind())
        .isEqualTo(Kind.FENCED);
    assertThat(readAll(newer.log(), "ns", "s", 0))
        .extracting(FetchedRecord::valueAsString)
        .containsExactly("new");
  }

  @Test
  void invalidAppendsAreRefusedWithTheirReason() {
    log.createStream("ns", "s", StreamSpec.standard(2)).join();
    assertThat(failure(log.append("ns", "s", List.of())).kind()).isEqualTo(Kind.INVALID);
    LoamException e =
        failure(log.append("ns", "s", List.of(AppendRecord.of("k", "v").toPartition(2))));
    assertThat(e.kind()).isEqualTo(Kind.INVALID);
    assertThat(e.getMessage()).contains("partition=2", "partitions=2");
    assertThatThrownBy(
            () ->
                log.createStream(
                        "ns", "q", StreamSpec.standard(1).withClass(dev.loam.api.Durability.QUORUM))
                    .join())
        .isInstanceOf(CompletionException.class)
        .hasRootCauseMessage(
            "a quorum stream needs 3 live nodes with a journal port, the cluster has 0 []"
                + " stream=ns/q");
  }
}
