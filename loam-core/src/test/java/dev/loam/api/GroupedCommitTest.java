package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.CommitWal;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.testing.FaultyMetastore;
import dev.loam.testing.FaultyMetastore.Fault;
import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grouped commits (docs/design/write-path.md, metastore-commands.md tag 35): objects whose PUTs
 * finish while an older object's PUT is still running are committed with it in one proposal, in
 * order, and the group shares one fate under commit faults: a lost answer is retried and committed
 * once, a refusal is retried, and a budget spent after an unknown outcome fails every member with
 * CommitUnknown.
 */
class GroupedCommitTest {
  /** One record this size fills a 1 KiB WAL object, so each append is its own object. */
  private static final String BIG = "x".repeat(900);

  @TempDir Path dir;
  TestCluster cluster;
  FaultyMetastore meta;
  HeldFirstPut store;

  /** Holds the answer of the first WAL object's create until released; answers others at once. */
  static final class HeldFirstPut extends ForwardingObjectStore {
    final CompletableFuture<Void> gate = new CompletableFuture<>();
    final CountDownLatch othersDone = new CountDownLatch(2);
    private int creates;

    HeldFirstPut(ObjectStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> create(String key, byte[] bytes) {
      if (!key.startsWith("wal/")) {
        return delegate.create(key, bytes); // the node's own start-up objects
      }
      boolean first;
      synchronized (this) {
        first = creates++ == 0;
      }
      CompletableFuture<Void> written = delegate.create(key, bytes);
      if (first) {
        return written.thenCombine(gate, (a, b) -> null);
      }
      return written.whenComplete((v, e) -> othersDone.countDown());
    }
  }

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    meta = new FaultyMetastore(cluster.embeddedMeta);
    store = new HeldFirstPut(cluster.memoryStore);
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private Log start(NodeSettings settings) {
    Log log = cluster.start("n1", settings.withWalObjects(1024, 4), store, meta).log();
    log.createNamespace("ns").join();
    log.createStream("ns", "s", StreamSpec.standard(1)).join();
    return log;
  }

  /** Three appends, three objects; the oldest PUT finishes last, after the other two. */
  private List<CompletableFuture<AppendResult>> threeObjectsOldestLast(Log log) throws Exception {
    List<CompletableFuture<AppendResult>> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      out.add(log.append("ns", "s", List.of(AppendRecord.of("k", i + BIG))));
    }
    assertThat(store.othersDone.await(10, TimeUnit.SECONDS)).isTrue();
    // The writer hears a PUT's answer on its scheduler, just after the store gives it: a moment
    // for both younger objects to count as written before the oldest does.
    Thread.sleep(300);
    store.gate.complete(null);
    return out;
  }

  private static long offset(CompletableFuture<AppendResult> f) throws Exception {
    return await(f).positions().get(0).offset();
  }

  @Test
  void objectsWrittenBehindTheOldestAreCommittedWithItInOneProposalInOrder() throws Exception {
    Log log = start(TestCluster.FAST);
    List<CompletableFuture<AppendResult>> acks = threeObjectsOldestLast(log);
    assertThat(offset(acks.get(0))).isZero();
    assertThat(offset(acks.get(1))).isEqualTo(1L);
    assertThat(offset(acks.get(2))).isEqualTo(2L);
    assertThat(meta.proposalSizes()).containsExactly(3);
    List<String> keys = meta.forwardedCommits().stream().map(CommitWal::objectKey).toList();
    assertThat(keys).isSorted().doesNotHaveDuplicates().hasSize(3);
    assertThat(readAll(log, "ns", "s", 0))
        .extracting(r -> r.valueAsString().charAt(0))
        .containsExactly('0', '1', '2');
  }

  @Test
  void aGroupWhoseAnswerWasLostIsRetriedWholeAndCommittedOnce() throws Exception {
    Log log = start(TestCluster.FAST);
    meta.script(List.of(Fault.APPLIED_BUT_ANSWER_LOST), Fault.NONE);
    List<CompletableFuture<AppendResult>> acks = threeObjectsOldestLast(log);
    assertThat(List.of(offset(acks.get(0)), offset(acks.get(1)), offset(acks.get(2))))
        .containsExactly(0L, 1L, 2L);
    assertThat(meta.proposalSizes()).containsExactly(3, 3);
    List<CommitWal> commits = meta.forwardedCommits();
    assertThat(commits.subList(3, 6))
        .extracting(CommitWal::objectKey)
        .isEqualTo(commits.subList(0, 3).stream().map(CommitWal::objectKey).toList());
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark())
        .isEqualTo(3);
    assertThat(readAll(log, "ns", "s", 0)).hasSize(3);
  }

  @Test
  void aRefusedGroupIsRetriedUntilItCommits() throws Exception {
    Log log = start(TestCluster.FAST);
    meta.script(List.of(Fault.UNAVAILABLE_BEFORE_LOGGING, Fault.UNKNOWN_NOT_APPLIED), Fault.NONE);
    List<CompletableFuture<AppendResult>> acks = threeObjectsOldestLast(log);
    assertThat(List.of(offset(acks.get(0)), offset(acks.get(1)), offset(acks.get(2))))
        .containsExactly(0L, 1L, 2L);
    assertThat(meta.proposalSizes()).containsExactly(3, 3, 3);
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark())
        .isEqualTo(3);
  }

  @Test
  void whenTheBudgetRunsOutAfterAnUnknownOutcomeEveryMemberFailsCommitUnknown() throws Exception {
    Log log = start(TestCluster.FAST.withCommitBudget(Duration.ofMillis(400)));
    meta.script(List.of(), Fault.UNKNOWN_NOT_APPLIED);
    List<CompletableFuture<AppendResult>> acks = threeObjectsOldestLast(log);
    for (CompletableFuture<AppendResult> f : acks) {
      LoamException e = failure(f);
      assertThat(e).isInstanceOf(CommitUnknownException.class);
      assertThat(e.kind()).isEqualTo(Kind.OUTCOME_UNKNOWN);
    }
    assertThat(meta.proposalSizes()).first().isEqualTo(3);
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark()).isZero();
  }

  @Test
  void whenTheBudgetRunsOutWithOnlyRefusalsEveryMemberFailsUnavailable() throws Exception {
    Log log = start(TestCluster.FAST.withCommitBudget(Duration.ofMillis(400)));
    meta.script(List.of(), Fault.UNAVAILABLE_BEFORE_LOGGING);
    List<CompletableFuture<AppendResult>> acks = threeObjectsOldestLast(log);
    for (CompletableFuture<AppendResult> f : acks) {
      assertThat(failure(f).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
    assertThat(log.describeStream("ns", "s").join().partitions().get(0).highWatermark()).isZero();
  }
}
