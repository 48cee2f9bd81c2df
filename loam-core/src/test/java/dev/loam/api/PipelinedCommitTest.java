package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.testing.FaultyMetastore;
import dev.loam.testing.FaultyMetastore.Fault;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several commit proposals in flight per writer (docs/design/write-path.md "Several commits in
 * flight"): a proposal goes out while an older one is unanswered only if it writes none of the
 * older one's partitions, and appends hear their answers in submission order, an acknowledgement
 * waiting for an older object whose outcome is unknown.
 */
class PipelinedCommitTest {
  @TempDir Path dir;
  TestCluster cluster;
  FaultyMetastore meta;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    meta = new FaultyMetastore(cluster.embeddedMeta);
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private Log start(NodeSettings settings, int partitions) {
    Log log = cluster.start("n1", settings, cluster.memoryStore, meta).log();
    log.createNamespace("ns").join();
    log.createStream("ns", "s", StreamSpec.standard(partitions)).join();
    return log;
  }

  /**
   * One append per partition in {@code partitions}, each its own WAL object (a flush interval
   * apart); {@code completed} receives each append's index as its future completes.
   */
  private static List<CompletableFuture<AppendResult>> appends(
      Log log, List<Integer> partitions, ConcurrentLinkedQueue<Integer> completed)
      throws Exception {
    List<CompletableFuture<AppendResult>> out = new ArrayList<>();
    for (int i = 0; i < partitions.size(); i++) {
      int n = i;
      CompletableFuture<AppendResult> f =
          log.append(
              "ns", "s", List.of(AppendRecord.of(null, "v" + i).toPartition(partitions.get(i))));
      f.whenComplete((r, e) -> completed.add(n));
      out.add(f);
      Thread.sleep(15); // past the 5 ms flush interval of TestCluster.FAST
    }
    return out;
  }

  @Test
  void proposalsOverOtherPartitionsGoOutWhileAnOlderOneIsUnanswered() throws Exception {
    Log log = start(TestCluster.FAST.withCommitsInFlight(4), 3);
    meta.script(List.of(Fault.ANSWER_LATE), Fault.NONE);
    ConcurrentLinkedQueue<Integer> completed = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<AppendResult>> acks = appends(log, List.of(0, 1, 2), completed);
    for (CompletableFuture<AppendResult> f : acks) {
      assertThat(await(f).positions().get(0).offset()).isZero();
    }
    assertThat(meta.mostUnanswered()).isGreaterThan(1);
    // Answered first, the younger objects still hear their acknowledgements after the oldest.
    assertThat(completed).containsExactly(0, 1, 2);
  }

  @Test
  void anObjectOverAPartitionAnUnansweredProposalWritesWaitsForItsAnswer() throws Exception {
    Log log = start(TestCluster.FAST.withCommitsInFlight(4), 3);
    meta.script(List.of(Fault.ANSWER_LATE), Fault.NONE);
    ConcurrentLinkedQueue<Integer> completed = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<AppendResult>> acks = appends(log, List.of(0, 0, 0), completed);
    for (int i = 0; i < acks.size(); i++) {
      assertThat(await(acks.get(i)).positions().get(0).offset()).isEqualTo(i);
    }
    assertThat(meta.mostUnanswered()).isEqualTo(1);
    assertThat(completed).containsExactly(0, 1, 2);
  }

  @Test
  void anAcknowledgementWaitsUntilAnOlderUnknownOutcomeIsResolved() throws Exception {
    // The oldest proposal times out (its answer lost at once) and is applied late; its retry
    // waits out a long backoff. The younger object, over another partition, is proposed and
    // answered meanwhile, but acknowledged only after the oldest object's retry is answered.
    Log log =
        start(
            TestCluster.FAST.toBuilder()
                .maxCommitsInFlight(4)
                .retryBackoffInitial(Duration.ofMillis(400))
                .build(),
            2);
    meta.script(List.of(Fault.APPLIED_LATE_ANSWER_LOST), Fault.NONE);
    ConcurrentLinkedQueue<Integer> completed = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<AppendResult>> acks = appends(log, List.of(0, 1), completed);
    long until = System.currentTimeMillis() + 5_000;
    while (meta.forwardedCommits().size() < 2 && System.currentTimeMillis() < until) {
      Thread.sleep(2);
    }
    assertThat(meta.forwardedCommits()).hasSize(2); // the younger object was proposed
    Thread.sleep(50);
    assertThat(acks.get(1)).isNotDone();
    assertThat(await(acks.get(0)).positions().get(0).offset()).isZero();
    assertThat(await(acks.get(1)).positions().get(0).offset()).isZero();
    assertThat(completed).containsExactly(0, 1);
    // The late apply landed before the retry, which the sequencer deduped: one record each.
    for (int p = 0; p < 2; p++) {
      assertThat(readAll(log, "ns", "s", p)).hasSize(1);
    }
  }

  @Test
  void byDefaultProposalsGoOneAtATime() throws Exception {
    assertThat(NodeSettings.defaults().maxCommitsInFlight()).isEqualTo(1);
    Log log = start(TestCluster.FAST, 3);
    meta.script(List.of(Fault.ANSWER_LATE), Fault.NONE);
    ConcurrentLinkedQueue<Integer> completed = new ConcurrentLinkedQueue<>();
    for (CompletableFuture<AppendResult> f : appends(log, List.of(0, 1, 2), completed)) {
      await(f);
    }
    assertThat(meta.mostUnanswered()).isEqualTo(1);
    assertThat(completed).containsExactly(0, 1, 2);
  }
}
