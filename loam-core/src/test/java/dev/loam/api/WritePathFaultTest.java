package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.CommitWal;
import dev.loam.testing.FaultyMetastore;
import dev.loam.testing.FaultyMetastore.Fault;
import dev.loam.testing.FaultyObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each step of the write path under failure (stream-engine.txt §3): PUT refused or answer lost,
 * commit refused or answer lost, and the commit budget running out.
 */
class WritePathFaultTest {
  @TempDir Path dir;
  TestCluster cluster;
  FaultyMetastore meta;
  FaultyObjectStore store;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    meta = new FaultyMetastore(cluster.embeddedMeta);
    store = new FaultyObjectStore(cluster.memoryStore);
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private Log start(NodeSettings settings) {
    Log log = cluster.start("n1", settings, store, meta).log();
    log.createNamespace("ns").join();
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    return log;
  }

  @Test
  void aCommitWhoseAnswerWasLostIsRetriedAndCommittedOnce() throws Exception {
    Log log = start(TestCluster.FAST);
    meta.script(List.of(Fault.APPLIED_BUT_ANSWER_LOST), Fault.NONE);
    AppendResult r =
        await(log.append("ns", "s", List.of(AppendRecord.of("k", "a"), AppendRecord.of("k", "b"))));
    assertThat(r.positions())
        .extracting(AppendResult.RecordPosition::offset)
        .containsExactly(0L, 1L);
    List<CommitWal> commits = meta.forwardedCommits();
    assertThat(commits).hasSize(2);
    assertThat(commits.get(1).objectKey()).isEqualTo(commits.get(0).objectKey());
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark())
        .isEqualTo(2);
    assertThat(readAll(log, "ns", "s", 0))
        .extracting(FetchedRecord::valueAsString)
        .containsExactly("a", "b");
  }

  @Test
  void aRefusedOrUnknownCommitIsRetriedUntilItSucceeds() throws Exception {
    Log log = start(TestCluster.FAST);
    meta.script(List.of(Fault.UNAVAILABLE_BEFORE_LOGGING, Fault.UNKNOWN_NOT_APPLIED), Fault.NONE);
    AppendResult r = await(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(r.positions().get(0).offset()).isZero();
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark())
        .isEqualTo(1);
  }

  @Test
  void aPutWhoseAnswerWasLostIsRetriedAndTheObjectIsKept() throws Exception {
    Log log = start(TestCluster.FAST);
    store.script(
        List.of(
            FaultyObjectStore.Fault.UNAVAILABLE, FaultyObjectStore.Fault.WRITTEN_BUT_ANSWER_LOST));
    AppendResult r = await(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(r.positions().get(0).offset()).isZero();
    assertThat(meta.forwardedCommits()).hasSize(1);
    assertThat(readAll(log, "ns", "s", 0))
        .extracting(FetchedRecord::valueAsString)
        .containsExactly("a");
  }

  @Test
  void whenTheBudgetRunsOutAfterAnUnknownOutcomeTheAppendFailsCommitUnknown() {
    Log log = start(TestCluster.FAST.withCommitBudget(Duration.ofMillis(300)));
    meta.script(List.of(), Fault.UNKNOWN_NOT_APPLIED);
    LoamException e = failure(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(e).isInstanceOf(CommitUnknownException.class);
    assertThat(e.kind()).isEqualTo(Kind.OUTCOME_UNKNOWN);
    assertThat(e.getMessage()).containsPattern("object=wal/standard/[0-9A-Z]{26}/n1/");
  }

  @Test
  void whenTheBudgetRunsOutWithOnlyDefiniteRefusalsTheAppendFailsUnavailable() {
    Log log = start(TestCluster.FAST.withCommitBudget(Duration.ofMillis(300)));
    meta.script(List.of(), Fault.UNAVAILABLE_BEFORE_LOGGING);
    LoamException e = failure(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark()).isZero();
  }

  @Test
  void aStoreThatStaysDownFailsTheAppendWithoutCommitting() {
    Log log = start(TestCluster.FAST.withCommitBudget(Duration.ofMillis(300)));
    store.script(java.util.Collections.nCopies(1000, FaultyObjectStore.Fault.UNAVAILABLE));
    LoamException e = failure(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(e.getMessage())
        .contains("WAL object write failed")
        .containsPattern("object=wal/standard/[0-9A-Z]{26}/n1/");
    assertThat(meta.forwardedCommits()).isEmpty();
  }

  @Test
  void aRefusalAfterAnAttemptWithUnknownOutcomeIsReportedCommitUnknown() {
    // The first attempt reaches the log but its answer is lost; the retry is refused (this node
    // was fenced by a newer process with the same id). A refusal proves nothing after an unknown
    // attempt (§3), so the writer must not report a definite failure.
    Log log = start(TestCluster.FAST);
    cluster.start("n1", TestCluster.FAST);
    meta.script(List.of(Fault.APPLIED_BUT_ANSWER_LOST), Fault.NONE);
    LoamException e = failure(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(e).isInstanceOf(CommitUnknownException.class);
    assertThat(e.getCause()).isInstanceOf(LoamException.class);
    assertThat(((LoamException) e.getCause()).kind()).isEqualTo(Kind.FENCED);
  }

  @Test
  void aFirstAttemptRefusedAsFencedIsADefiniteFailure() {
    Log log = start(TestCluster.FAST);
    cluster.start("n1", TestCluster.FAST);
    LoamException e = failure(log.append("ns", "s", List.of(AppendRecord.of("k", "a"))));
    assertThat(e.kind()).isEqualTo(Kind.FENCED);
  }
}
