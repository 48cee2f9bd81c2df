package dev.loam.cluster;

import static dev.loam.cluster.RatisCluster.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads across the nodes of a Ratis cluster: long-polls woken by another node's commit (watches),
 * read-your-writes with the consistency token and on the appending node without it, and two nodes
 * claiming one node id.
 */
class ClusterReadsIT {
  @TempDir Path dir;
  RatisCluster c;

  @BeforeEach
  void setUp() {
    c = RatisCluster.start(dir, 3);
    get(c.log("n1").createNamespace("ns"));
    get(c.log("n1").createStream("ns", "s", StreamSpec.standard(1)));
    c.awaitInSync();
  }

  @AfterEach
  void tearDown() {
    c.close();
  }

  @Test
  void aLongPollOnOneNodeCompletesWithinASecondOfAnAppendThroughAnother() throws Exception {
    List<String> ids = c.ids();
    for (int round = 0; round < 6; round++) {
      String writer = ids.get(round % 3);
      String reader = ids.get((round + 1) % 3);
      long offset = round;
      // The reader's replica has applied the previous round (else the offset is above its view
      // of the high watermark).
      c.awaitInSync();
      CompletableFuture<FetchResult> poll =
          c.log(reader).fetch("ns", "s", 0, offset, 1 << 20, Duration.ofSeconds(30));
      assertThat(poll).as("waits at the high watermark").isNotDone();
      AppendResult r =
          get(c.log(writer).append("ns", "s", List.of(AppendRecord.of("k", "r" + round))));
      long acked = System.nanoTime();
      FetchResult f = poll.get(10, TimeUnit.SECONDS);
      long lagMillis = (System.nanoTime() - acked) / 1_000_000;
      assertThat(lagMillis)
          .as("%s woke %d ms after the ack through %s", reader, lagMillis, writer)
          .isLessThan(1000);
      assertThat(f.records()).extracting(FetchedRecord::valueAsString).containsExactly("r" + round);
      assertThat(f.records().get(0).offset()).isEqualTo(r.positions().get(0).offset());
    }
  }

  @Test
  void aFetchWithTheConsistencyTokenReadsTheWriteOnAnotherNode() throws Exception {
    List<String> ids = c.ids();
    for (int i = 0; i < 30; i++) {
      String writer = ids.get(i % 3);
      String reader = ids.get((i + 1 + i / 3) % 3);
      if (reader.equals(writer)) {
        reader = ids.get((i + 1) % 3);
      }
      AppendResult r = get(c.log(writer).append("ns", "s", List.of(AppendRecord.of("k", "v" + i))));
      long offset = r.positions().get(0).offset();
      FetchResult f =
          get(
              c.log(reader)
                  .fetch(
                      "ns",
                      "s",
                      0,
                      offset,
                      1 << 20,
                      // The token wait is bounded by maxWait (LogService.fetch): with ZERO a
                      // replica one round trip behind fails UNAVAILABLE instead of waiting.
                      Duration.ofSeconds(10),
                      OptionalLong.of(r.consistencyToken())));
      assertThat(f.records())
          .as("write %d through %s read on %s", i, writer, reader)
          .extracting(FetchedRecord::valueAsString)
          .startsWith("v" + i);
    }
  }

  /**
   * A WAL commit completes on the appending node only once that node's own replica has applied it,
   * not on the leader's reply: a fetch right after the acknowledgement on the same node, with no
   * consistency token and no wait, sees the record on every node, the followers' included
   * (docs/design/metastore-ratis.md "Reads and watches"). Completing on the leader's reply would
   * leave a follower's replica a round trip behind here, and the fetch would find the offset above
   * its high watermark.
   */
  @Test
  void anAcknowledgedAppendIsVisibleOnItsOwnNodeWithoutAToken() throws Exception {
    List<String> ids = c.ids();
    for (int i = 0; i < 30; i++) {
      String writer = ids.get(i % 3);
      AppendResult r =
          get(c.log(writer).append("ns", "s", List.of(AppendRecord.of("k", "own" + i))));
      long offset = r.positions().get(0).offset();
      FetchResult f = get(c.log(writer).fetch("ns", "s", 0, offset, 1 << 20, Duration.ZERO));
      assertThat(f.highWatermark())
          .as("write %d through %s, high watermark on the same node", i, writer)
          .isGreaterThan(offset);
      assertThat(f.records())
          .as("write %d through %s read back on it at once", i, writer)
          .extracting(FetchedRecord::valueAsString)
          .startsWith("own" + i);
    }
  }

  @Test
  void twoNodesClaimingOneIdResolveByEpochAndTheOlderIsFenced() throws Exception {
    LoamNode older = c.node("n1");
    LoamNode newer = c.startNodeOn("n1", c.meta("n2"));
    assertThat(newer.epoch()).isGreaterThan(older.epoch());
    AppendResult r = get(newer.log().append("ns", "s", List.of(AppendRecord.of("k", "new"))));
    try {
      older.log().append("ns", "s", List.of(AppendRecord.of("k", "old"))).get(30, TimeUnit.SECONDS);
      throw new AssertionError("the older n1 appended after a newer n1 registered");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LoamException.class);
      assertThat(((LoamException) e.getCause()).kind()).isEqualTo(Kind.FENCED);
      assertThat(e.getCause().getMessage()).contains("n1");
    }
    FetchResult f =
        get(
            c.log("n3")
                .fetch(
                    "ns",
                    "s",
                    0,
                    0,
                    1 << 20,
                    Duration.ofSeconds(10),
                    OptionalLong.of(r.consistencyToken())));
    c.awaitInSync();
    assertThat(RatisCluster.readAll(c.log("n3"), "ns", "s", 0))
        .extracting(FetchedRecord::valueAsString)
        .containsExactly("new");
    assertThat(f.records()).extracting(FetchedRecord::valueAsString).containsExactly("new");
  }
}
