package dev.loam.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.testing.ManualClock;
import dev.loam.wal.DurabilityClass;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The metastore conformance kit (STYLE.md §2): every {@link Metastore} implementation, embedded or
 * replicated, extends this class and passes it unchanged. Commit rules are stream-engine.txt §3.
 *
 * <p>The cases are {@code protected} so that a subclass in any package runs them; an override may
 * assert a different message, never weaken a case. Every wait goes through {@link #await}, which a
 * metastore driven by a simulated scheduler overrides.
 */
public abstract class MetastoreContractTest {
  protected static final long START_MILLIS = 1_780_000_000_000L;
  protected static final long TIMEOUT_SECONDS = 10;

  protected ManualClock clock;
  protected Metastore ms;
  private long nextObject;

  /** Opens a fresh, empty metastore with these settings and this clock. */
  protected abstract Metastore open(MetaSettings settings, InstantSource clock);

  /** Called after the metastore of a test was closed (to release executors and files). */
  protected void cleanUp() {}

  @BeforeEach
  void openMetastore() {
    clock = new ManualClock(START_MILLIS);
    ms = open(MetaSettings.defaults(), clock);
  }

  @AfterEach
  void closeMetastore() {
    try {
      ms.close();
    } finally {
      cleanUp();
    }
  }

  // ---- helpers

  protected Origin origin(String node, long epoch) {
    return new Origin(node, epoch, clock.millis());
  }

  /**
   * Whether this implementation applies one thread's concurrent proposals in the order they were
   * made when nothing fails. Not part of the SPI ({@code Metastore#propose} says why); the embedded
   * and Ratis implementations keep it, and the kit holds them to it. An implementation that
   * reorders on purpose (the simulation's, to test callers against it) answers false, and every
   * other assertion of the case still applies.
   */
  protected boolean keepsOneThreadsProposalOrder() {
    return true;
  }

  /**
   * Waits for {@code f} and returns its value; every case waits through this method. The default
   * blocks up to {@link #TIMEOUT_SECONDS}. An implementation driven by a simulated scheduler
   * overrides it to run that scheduler until {@code f} completes, since nothing else would.
   *
   * @throws CompletionException with the cause when {@code f} fails
   * @throws AssertionError when {@code f} does not complete in time
   */
  protected <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  protected Applied propose(Command c) {
    try {
      return await(ms.propose(c));
    } catch (RuntimeException | AssertionError e) {
      throw new AssertionError("proposal failed: " + c, e);
    }
  }

  protected Outcome apply(Command c) {
    return propose(c).outcome();
  }

  protected static void assertRejected(Outcome o, RejectReason reason) {
    assertThat(o).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) o).reason()).as(o.toString()).isEqualTo(reason);
  }

  protected void register(String node, long epoch) {
    assertThat(apply(new RegisterNode(origin(node, epoch), "host:9092", 4, "az1")))
        .isInstanceOf(Outcome.NodeRegistered.class);
  }

  protected StreamInfo createStream(String ns, String name, int partitions) {
    Outcome o =
        apply(new CreateStream(origin("n1", 1), ns, name, StreamConfig.standard(partitions)));
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.StreamCreated.class);
    return ((Outcome.StreamCreated) o).stream();
  }

  protected static BatchCommit batch(long byteOffset, int byteLength, int records, long maxTs) {
    return new BatchCommit(byteOffset, byteLength, records, maxTs, -1, (short) -1, -1);
  }

  protected static BatchCommit idem(
      long byteOffset, int records, long producerId, int epoch, int baseSequence) {
    return new BatchCommit(
        byteOffset, 100, records, START_MILLIS, producerId, (short) epoch, baseSequence);
  }

  protected static ChunkCommit chunk(StreamInfo s, int partition, BatchCommit... batches) {
    return new ChunkCommit(s.id(), partition, Arrays.asList(batches));
  }

  protected String newObjectKey() {
    return "wal/standard/n1/obj-" + (nextObject++) + ".wal";
  }

  protected CommitWal commit(String key, long objectTime, ChunkCommit... chunks) {
    return new CommitWal(origin("n1", 1), key, objectTime, 1 << 20, Arrays.asList(chunks));
  }

  protected Outcome.WalCommitted commitOk(ChunkCommit... chunks) {
    Outcome o = apply(commit(newObjectKey(), clock.millis(), chunks));
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.WalCommitted.class);
    return (Outcome.WalCommitted) o;
  }

  protected static List<BatchResult> results(Outcome.WalCommitted o, int chunk) {
    return o.chunks().get(chunk);
  }

  protected PartitionInfo partition(StreamInfo s, int p) {
    return ms.read((MetaReader r) -> r.partition(s.id(), p)).orElseThrow();
  }

  protected BatchResult single(Outcome.WalCommitted o) {
    assertThat(o.chunks()).hasSize(1);
    assertThat(o.chunks().get(0)).hasSize(1);
    return o.chunks().get(0).get(0);
  }

  protected BatchResult commitOne(StreamInfo s, BatchCommit b) {
    return single(commitOk(chunk(s, 0, b)));
  }

  // ---- node registration and fencing

  @Test
  protected void registrationEpochs() {
    register("n1", 2);
    assertRejected(
        apply(new RegisterNode(origin("n1", 1), "a", 1, "z")), RejectReason.STALE_NODE_EPOCH);
    // The same epoch again is idempotent and may update the record.
    Outcome again = apply(new RegisterNode(origin("n1", 2), "other:1", 8, "az2"));
    assertThat(again).isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(ms.read((MetaReader r) -> r.node("n1")).orElseThrow().advertisedAddress())
        .isEqualTo("other:1");
    assertThat(ms.read((MetaReader r) -> r.node("n1")).orElseThrow().slots()).isEqualTo(8);
    assertThat(apply(new CreateNamespace(origin("n1", 2), "a")))
        .isInstanceOf(Outcome.NamespaceCreated.class);

    // A higher epoch fences the old one.
    register("n1", 3);
    Outcome zombie = apply(new CreateNamespace(origin("n1", 2), "b"));
    assertRejected(zombie, RejectReason.STALE_NODE_EPOCH);
    assertThat(((Outcome.Rejected) zombie).message()).contains("node=n1 epoch=2 registeredEpoch=3");
    assertRejected(apply(new CreateNamespace(origin("n1", 4), "b")), RejectReason.UNKNOWN_NODE);
    assertRejected(apply(new CreateNamespace(origin("nx", 1), "b")), RejectReason.UNKNOWN_NODE);
    assertThat(ms.read((MetaReader r) -> r.namespaceExists("b"))).isFalse();
    assertRejected(apply(new RegisterNode(origin("n2", 1), "a", 0, "z")), RejectReason.INVALID);
    assertThat(ms.read((MetaReader r) -> r.nodes()).stream().map(n -> n.id()).toList())
        .containsExactly("n1");
  }

  @Test
  protected void fencedNodeCannotCommit() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    register("n1", 2);
    Outcome o = apply(commit(newObjectKey(), clock.millis(), chunk(s, 0, batch(0, 100, 1, 1))));
    assertRejected(o, RejectReason.STALE_NODE_EPOCH);
    assertThat(partition(s, 0).highWatermark()).isZero();
  }

  // ---- node endpoints (bodies in NodeEndpointCases)

  @Test
  protected void nodeEndpointsAreSetAndReplaced() {
    NodeEndpointCases.setAndReplace(this);
  }

  @Test
  protected void anEmptyAddressRemovesANodeEndpoint() {
    NodeEndpointCases.removeWithAnEmptyAddress(this);
  }

  @Test
  protected void aStaleEpochCannotSetANodeEndpoint() {
    NodeEndpointCases.staleEpochIsRefused(this);
  }

  @Test
  protected void reRegisteringAtAHigherEpochClearsTheNodeEndpoints() {
    NodeEndpointCases.reRegistrationAtAHigherEpochClears(this);
  }

  @Test
  protected void invalidNodeEndpointsAreRefused() {
    NodeEndpointCases.invalidEndpointsAreRefused(this);
  }

  // ---- API keys (bodies in ApiKeyCases)

  @Test
  protected void apiKeysAreCreatedListedAndRetriedIdempotently() {
    ApiKeyCases.createListAndRetry(this);
  }

  @Test
  protected void aRevokedApiKeyIsSeenRevokedByReadsAndApplyListeners() {
    ApiKeyCases.revokeIsSeenByReadsAndListeners(this);
  }

  @Test
  protected void apiKeysOfAStaleEpochOrInvalidAreRefused() {
    ApiKeyCases.staleEpochAndInvalidKeysAreRefused(this);
  }

  // ---- the cluster id

  @Test
  protected void theFirstInitClusterSetsTheClusterIdAndLaterOnesGetItBack() {
    register("n1", 1);
    register("n2", 1);
    assertThat(ms.read((MetaReader r) -> r.clusterId())).isEmpty();

    Applied first = propose(new InitCluster(origin("n1", 1), "A"));
    assertThat(first.outcome()).isEqualTo(new Outcome.ClusterInitialized("A"));
    await(ms.awaitApplied(first.index()));
    assertThat(ms.read((MetaReader r) -> r.clusterId())).contains("A");

    // Another node proposing another id learns the first one; nothing changes.
    Applied second = propose(new InitCluster(origin("n2", 1), "B"));
    assertThat(second.outcome()).isEqualTo(new Outcome.ClusterInitialized("A"));
    await(ms.awaitApplied(second.index()));
    assertThat(ms.read((MetaReader r) -> r.clusterId())).contains("A");

    assertRejected(apply(new InitCluster(origin("n1", 1), "not valid")), RejectReason.INVALID);
    assertRejected(apply(new InitCluster(origin("n1", 1), "")), RejectReason.INVALID);
    assertRejected(apply(new InitCluster(origin("nx", 1), "C")), RejectReason.UNKNOWN_NODE);
    Applied last = propose(new InitCluster(origin("n1", 1), "A"));
    assertThat(last.outcome()).isEqualTo(new Outcome.ClusterInitialized("A"));
    await(ms.awaitApplied(last.index()));
    assertThat(ms.read((MetaReader r) -> r.clusterId())).contains("A");
  }

  // ---- namespaces and streams

  @Test
  protected void namespaceCrud() {
    register("n1", 1);
    assertThat(ms.read((MetaReader r) -> r.namespaceExists("default"))).isTrue();
    assertThat(apply(new CreateNamespace(origin("n1", 1), "ns1")))
        .isEqualTo(new Outcome.NamespaceCreated("ns1"));
    assertRejected(apply(new CreateNamespace(origin("n1", 1), "ns1")), RejectReason.ALREADY_EXISTS);
    for (String bad : List.of("", ".", "..", "a/b", "a b", "é", "x".repeat(250))) {
      assertRejected(apply(new CreateNamespace(origin("n1", 1), bad)), RejectReason.INVALID);
    }
    assertThat(apply(new CreateNamespace(origin("n1", 1), "A-z_0.9" + "x".repeat(242))))
        .isInstanceOf(Outcome.NamespaceCreated.class);
    assertThat(ms.read(MetaReader::namespaces)).isSorted().contains("default", "ns1");
    assertRejected(apply(new DeleteNamespace(origin("n1", 1), "default")), RejectReason.INVALID);
    assertRejected(apply(new DeleteNamespace(origin("n1", 1), "nope")), RejectReason.NOT_FOUND);

    createStream("ns1", "s", 1);
    assertRejected(apply(new DeleteNamespace(origin("n1", 1), "ns1")), RejectReason.CONFLICT);
    assertThat(apply(new DeleteStream(origin("n1", 1), "ns1", "s")))
        .isEqualTo(new Outcome.Deleted("s"));
    assertThat(apply(new DeleteNamespace(origin("n1", 1), "ns1")))
        .isEqualTo(new Outcome.Deleted("ns1"));
    assertThat(ms.read((MetaReader r) -> r.namespaceExists("ns1"))).isFalse();
  }

  @Test
  protected void streamCrud() {
    register("n1", 1);
    Origin o = origin("n1", 1);
    assertRejected(
        apply(new CreateStream(o, "missing", "s", StreamConfig.standard(1))),
        RejectReason.NOT_FOUND);
    StreamInfo a = createStream("default", "a", 3);
    StreamInfo b = createStream("default", "b", 1);
    assertThat(a.id()).isEqualTo(1);
    assertThat(b.id()).isEqualTo(2);
    assertRejected(
        apply(new CreateStream(o, "default", "a", StreamConfig.standard(1))),
        RejectReason.ALREADY_EXISTS);
    for (int bad : new int[] {0, -1, StreamConfig.MAX_PARTITIONS + 1}) {
      assertRejected(
          apply(new CreateStream(o, "default", "c", StreamConfig.standard(bad))),
          RejectReason.INVALID);
    }
    StreamConfig zeroRetention =
        new StreamConfig(1, DurabilityClass.EXPRESS, 0, -1, StreamConfig.CleanupPolicy.DELETE);
    assertRejected(apply(new CreateStream(o, "default", "c", zeroRetention)), RejectReason.INVALID);
    assertRejected(
        apply(new CreateStream(o, "default", "bad/name", StreamConfig.standard(1))),
        RejectReason.INVALID);
    StreamConfig cfg =
        new StreamConfig(
            2, DurabilityClass.EXPRESS, 60_000, 1 << 30, StreamConfig.CleanupPolicy.COMPACT);
    Outcome created = apply(new CreateStream(o, "default", "c", cfg));
    assertThat(((Outcome.StreamCreated) created).stream().config()).isEqualTo(cfg);

    assertThat(ms.read((MetaReader r) -> r.stream("default", "a"))).contains(a);
    assertThat(ms.read((MetaReader r) -> r.streamById(a.id()))).contains(a);
    assertThat(
            ms.read((MetaReader r) -> r.streams("default")).stream().map(StreamInfo::name).toList())
        .containsExactly("a", "b", "c");
    assertThat(partition(a, 2)).isEqualTo(new PartitionInfo(a.id(), 2, 0, 0));
    assertThat(ms.read((MetaReader r) -> r.partition(a.id(), 3))).isEmpty();

    assertRejected(apply(new DeleteStream(o, "default", "zz")), RejectReason.NOT_FOUND);
    assertThat(apply(new DeleteStream(o, "default", "a"))).isInstanceOf(Outcome.Deleted.class);
    assertThat(ms.read((MetaReader r) -> r.stream("default", "a"))).isEmpty();
    assertThat(ms.read((MetaReader r) -> r.partition(a.id(), 0))).isEmpty();
    // Ids are never reused.
    assertThat(createStream("default", "a", 1).id()).isEqualTo(4);
  }

  // ---- CommitWal: offsets and the index

  @Test
  protected void commitAssignsOffsetsAcrossChunksAndPartitions() {
    register("n1", 1);
    StreamInfo a = createStream("default", "a", 2);
    StreamInfo b = createStream("default", "b", 1);
    String key = newObjectKey();
    Outcome o =
        apply(
            commit(
                key,
                clock.millis(),
                chunk(a, 0, batch(100, 100, 3, 10), batch(200, 61, 2, 30)),
                chunk(a, 1, batch(261, 100, 4, 20)),
                chunk(b, 0, batch(400, 100, 1, 5))));
    Outcome.WalCommitted w = (Outcome.WalCommitted) o;
    assertThat(w.deduplicated()).isFalse();
    assertThat(results(w, 0))
        .containsExactly(
            new BatchResult(BatchStatus.APPENDED, 0), new BatchResult(BatchStatus.APPENDED, 3));
    assertThat(results(w, 1)).containsExactly(new BatchResult(BatchStatus.APPENDED, 0));
    assertThat(results(w, 2)).containsExactly(new BatchResult(BatchStatus.APPENDED, 0));

    String key2 = newObjectKey();
    Outcome.WalCommitted w2 =
        (Outcome.WalCommitted)
            apply(
                commit(
                    key2,
                    clock.millis(),
                    chunk(a, 0, batch(0, 100, 1, 40), batch(200, 100, 2, 35))));
    assertThat(results(w2, 0))
        .containsExactly(
            new BatchResult(BatchStatus.APPENDED, 5), new BatchResult(BatchStatus.APPENDED, 6));

    assertThat(partition(a, 0)).isEqualTo(new PartitionInfo(a.id(), 0, 0, 8));
    assertThat(partition(a, 1).highWatermark()).isEqualTo(4);
    assertThat(partition(b, 0).highWatermark()).isEqualTo(1);

    // Byte-adjacent batches of one chunk share an entry; a gap starts a new one.
    List<IndexEntry> entries = ms.read((MetaReader r) -> r.indexEntries(a.id(), 0, 0, 100));
    assertThat(entries)
        .containsExactly(
            new IndexEntry(0, 5, key, 100, 161, 30),
            new IndexEntry(5, 1, key2, 0, 100, 40),
            new IndexEntry(6, 2, key2, 200, 100, 35));
    assertThat(ms.read((MetaReader r) -> r.indexEntries(a.id(), 0, 4, 100))).isEqualTo(entries);
    assertThat(ms.read((MetaReader r) -> r.indexEntries(a.id(), 0, 5, 1)))
        .containsExactly(entries.get(1));
    assertThat(ms.read((MetaReader r) -> r.indexEntries(a.id(), 0, 7, 10)))
        .containsExactly(entries.get(2));
    assertThat(ms.read((MetaReader r) -> r.indexEntries(a.id(), 0, 8, 10))).isEmpty();
    assertThat(ms.read((MetaReader r) -> r.indexEntries(a.id(), 0, -5, 1)))
        .containsExactly(entries.get(0));
    assertThat(ms.read((MetaReader r) -> r.indexEntries(a.id(), 7, 0, 10))).isEmpty();
  }

  @Test
  protected void entryForTimestamp() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    commitOne(s, batch(0, 100, 1, 100));
    commitOne(s, batch(0, 100, 1, 50));
    commitOne(s, batch(0, 100, 1, 300));
    assertThat(
            ms.read((MetaReader r) -> r.entryForTimestamp(s.id(), 0, 60))
                .orElseThrow()
                .baseOffset())
        .isZero();
    assertThat(
            ms.read((MetaReader r) -> r.entryForTimestamp(s.id(), 0, 100))
                .orElseThrow()
                .baseOffset())
        .isZero();
    assertThat(
            ms.read((MetaReader r) -> r.entryForTimestamp(s.id(), 0, 101))
                .orElseThrow()
                .baseOffset())
        .isEqualTo(2);
    assertThat(ms.read((MetaReader r) -> r.entryForTimestamp(s.id(), 0, 301))).isEmpty();
    assertThat(ms.read((MetaReader r) -> r.entryForTimestamp(s.id() + 9, 0, 0))).isEmpty();
  }

  @Test
  protected void invalidCommitsAreRefusedWholly() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    List<List<BatchCommit>> bad =
        List.of(
            List.of(batch(0, 60, 1, 0)), // shorter than a RecordBatch v2 header
            List.of(batch(0, 100, 0, 0)), // no records
            List.of(batch(-1, 100, 1, 0)), // before the object
            List.of(batch((1 << 20) - 99, 100, 1, 0)), // past its end
            List.of(batch(0, 100, 1, 0), batch(99, 100, 1, 0)), // overlapping
            List.of(batch(200, 100, 1, 0), batch(0, 100, 1, 0))); // not increasing
    for (List<BatchCommit> batches : bad) {
      String key = newObjectKey();
      Outcome o =
          apply(
              new CommitWal(
                  origin("n1", 1),
                  key,
                  clock.millis(),
                  1 << 20,
                  List.of(new ChunkCommit(s.id(), 0, batches))));
      assertRejected(o, RejectReason.INVALID);
      assertThat(((Outcome.Rejected) o).message()).contains(key);
    }
    assertThat(partition(s, 0).highWatermark()).isZero();
  }

  // ---- the commit window (§3)

  @Test
  protected void retriedCommitIsDeduplicated() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 2);
    CommitWal c =
        commit(
            newObjectKey(),
            clock.millis(),
            chunk(s, 0, batch(0, 100, 3, 1)),
            chunk(s, 1, batch(100, 100, 2, 1)));
    Outcome.WalCommitted first = (Outcome.WalCommitted) apply(c);
    Outcome.WalCommitted retry = (Outcome.WalCommitted) apply(c);
    assertThat(retry.deduplicated()).isTrue();
    assertThat(retry.chunks()).isEqualTo(first.chunks());
    assertThat(partition(s, 0).highWatermark()).isEqualTo(3);
    assertThat(partition(s, 1).highWatermark()).isEqualTo(2);
    assertThat(ms.read((MetaReader r) -> r.indexEntries(s.id(), 0, 0, 10))).hasSize(1);

    // Past the stale window but inside the dedupe retention, a retry still gets its offsets.
    clock.advance(Duration.ofMinutes(20));
    CommitWal later =
        new CommitWal(
            origin("n1", 1), c.objectKey(), c.objectTimeMillis(), c.objectSize(), c.chunks());
    Outcome.WalCommitted retry2 = (Outcome.WalCommitted) apply(later);
    assertThat(retry2.deduplicated()).isTrue();
    assertThat(retry2.chunks()).isEqualTo(first.chunks());
    assertThat(partition(s, 0).highWatermark()).isEqualTo(3);
  }

  @Test
  protected void staleCommitIsRefused() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    String key = newObjectKey();
    long objectTime = clock.millis() - Duration.ofMinutes(15).toMillis() - 1;
    Outcome o = apply(commit(key, objectTime, chunk(s, 0, batch(0, 100, 1, 1))));
    assertRejected(o, RejectReason.STALE_COMMIT);
    assertThat(((Outcome.Rejected) o).message()).contains(key);
    assertThat(partition(s, 0).highWatermark()).isZero();

    long edge = clock.millis() - Duration.ofMinutes(15).toMillis();
    assertThat(apply(commit(newObjectKey(), edge, chunk(s, 0, batch(0, 100, 1, 1)))))
        .isInstanceOf(Outcome.WalCommitted.class);
  }

  @Test
  protected void futureStampIsRefusedWithoutLogging() {
    register("n1", 1);
    long before = ms.appliedIndex();
    Applied refused =
        propose(new CreateNamespace(new Origin("n1", 1, clock.millis() + 61_000), "ahead"));
    assertRejected(refused.outcome(), RejectReason.FUTURE_STAMP);
    assertThat(refused.index()).isEqualTo(before);
    assertThat(ms.appliedIndex()).isEqualTo(before);
    assertThat(ms.read((MetaReader r) -> r.namespaceExists("ahead"))).isFalse();

    Applied ok =
        propose(new CreateNamespace(new Origin("n1", 1, clock.millis() + 59_000), "ahead"));
    assertThat(ok.outcome()).isInstanceOf(Outcome.NamespaceCreated.class);
    assertThat(ok.index()).isEqualTo(before + 1);
    assertThat(ms.read(MetaReader::clockMillis)).isEqualTo(clock.millis() + 59_000);
  }

  @Test
  protected void dedupeRecordsArePrunedAndARetryIsThenStale() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    CommitWal c = commit(newObjectKey(), clock.millis(), chunk(s, 0, batch(0, 100, 2, 1)));
    assertThat(apply(c)).isInstanceOf(Outcome.WalCommitted.class);
    clock.advance(Duration.ofMinutes(30).plusMillis(1));
    CommitWal retry =
        new CommitWal(
            origin("n1", 1), c.objectKey(), c.objectTimeMillis(), c.objectSize(), c.chunks());
    assertRejected(apply(retry), RejectReason.STALE_COMMIT);
    assertThat(partition(s, 0).highWatermark()).isEqualTo(2);
  }

  // ---- idempotent producers (§3 sequencer, Kafka's rules)

  @Test
  protected void producerDuplicateReturnsOriginalOffsets() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    commitOne(s, batch(0, 100, 1, 1)); // offset 0, no producer
    List<Long> offsets = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      BatchResult r = commitOne(s, idem(0, 2, 7, 0, i * 2));
      assertThat(r.status()).isEqualTo(BatchStatus.APPENDED);
      offsets.add(r.baseOffset());
    }
    assertThat(offsets).containsExactly(1L, 3L, 5L, 7L, 9L, 11L);
    // The newest, and one among the last five that is not the newest.
    assertThat(commitOne(s, idem(0, 2, 7, 0, 10)))
        .isEqualTo(new BatchResult(BatchStatus.DUPLICATE, 11));
    assertThat(commitOne(s, idem(0, 2, 7, 0, 4)))
        .isEqualTo(new BatchResult(BatchStatus.DUPLICATE, 5));
    assertThat(commitOne(s, idem(0, 2, 7, 0, 2)))
        .isEqualTo(new BatchResult(BatchStatus.DUPLICATE, 3));
    // The sixth-newest is forgotten: it no longer matches and does not follow either.
    assertThat(commitOne(s, idem(0, 2, 7, 0, 0)).status())
        .isEqualTo(BatchStatus.OUT_OF_ORDER_SEQUENCE);
    assertThat(partition(s, 0).highWatermark()).isEqualTo(13);
    // A duplicate inside one commit, after its original in the same chunk.
    Outcome.WalCommitted w = commitOk(chunk(s, 0, idem(0, 1, 8, 0, 0), idem(100, 1, 8, 0, 0)));
    assertThat(results(w, 0))
        .containsExactly(
            new BatchResult(BatchStatus.APPENDED, 13), new BatchResult(BatchStatus.DUPLICATE, 13));
  }

  @Test
  protected void producerOutOfOrderSequence() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    assertThat(commitOne(s, idem(0, 3, 9, 0, 5)).status()).isEqualTo(BatchStatus.APPENDED);
    assertThat(commitOne(s, idem(0, 1, 9, 0, 9)).status())
        .isEqualTo(BatchStatus.OUT_OF_ORDER_SEQUENCE);
    assertThat(commitOne(s, idem(0, 1, 9, 0, 8)))
        .isEqualTo(new BatchResult(BatchStatus.APPENDED, 3));
    assertThat(partition(s, 0).highWatermark()).isEqualTo(4);
  }

  @Test
  protected void producerSequenceWrapsAfterMaxInt() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    assertThat(commitOne(s, idem(0, 2, 9, 0, Integer.MAX_VALUE - 1)).status())
        .isEqualTo(BatchStatus.APPENDED);
    assertThat(commitOne(s, idem(0, 1, 9, 0, 0)).status()).isEqualTo(BatchStatus.APPENDED);
  }

  @Test
  protected void producerEpochs() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    assertThat(commitOne(s, idem(0, 1, 5, 3, 0)).status()).isEqualTo(BatchStatus.APPENDED);
    assertThat(commitOne(s, idem(0, 1, 5, 2, 1)).status()).isEqualTo(BatchStatus.PRODUCER_FENCED);
    assertThat(commitOne(s, idem(0, 1, 5, 4, 1)).status())
        .isEqualTo(BatchStatus.OUT_OF_ORDER_SEQUENCE);
    assertThat(commitOne(s, idem(0, 1, 5, 4, 0)))
        .isEqualTo(new BatchResult(BatchStatus.APPENDED, 1));
    // The old epoch is now fenced, the new one continues.
    assertThat(commitOne(s, idem(0, 1, 5, 3, 1)).status()).isEqualTo(BatchStatus.PRODUCER_FENCED);
    assertThat(commitOne(s, idem(0, 1, 5, 4, 1)).status()).isEqualTo(BatchStatus.APPENDED);
    assertThat(partition(s, 0).highWatermark()).isEqualTo(3);
  }

  @Test
  protected void commitToDeletedStreamIsUnknownPartition() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    StreamInfo t = createStream("default", "t", 1);
    apply(new DeleteStream(origin("n1", 1), "default", "s"));
    Outcome.WalCommitted w =
        commitOk(
            chunk(s, 0, batch(0, 100, 1, 1), batch(100, 100, 1, 1)),
            chunk(t, 1, batch(200, 100, 1, 1)),
            chunk(t, 0, batch(300, 100, 1, 1)));
    assertThat(results(w, 0))
        .containsExactly(
            new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1),
            new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1));
    assertThat(results(w, 1)).containsExactly(new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1));
    assertThat(results(w, 2)).containsExactly(new BatchResult(BatchStatus.APPENDED, 0));
  }

  @Test
  protected void concurrentProposalsGetDenseIndexesAndOffsets() {
    register("n1", 1);
    StreamInfo s = createStream("default", "s", 1);
    long base = ms.appliedIndex();
    List<CompletableFuture<Applied>> futures = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      futures.add(
          ms.propose(commit(newObjectKey(), clock.millis(), chunk(s, 0, batch(0, 100, 1, 1)))));
    }
    List<Long> indexes = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    for (CompletableFuture<Applied> f : futures) {
      Applied a = await(f);
      indexes.add(a.index());
      offsets.add(single((Outcome.WalCommitted) a.outcome()).baseOffset());
    }
    // Every proposal got its own index, the indexes are dense, and offsets follow apply order.
    assertThat(indexes.stream().sorted().toList())
        .isEqualTo(java.util.stream.LongStream.rangeClosed(base + 1, base + 200).boxed().toList());
    for (int i = 0; i < 200; i++) {
      assertThat(offsets.get(i)).isEqualTo(indexes.get(i) - base - 1);
    }
    if (keepsOneThreadsProposalOrder()) {
      for (int i = 0; i < 200; i++) {
        assertThat(indexes.get(i)).isEqualTo(base + 1 + i);
      }
    }
    assertThat(partition(s, 0).highWatermark()).isEqualTo(200);
  }

  // ---- watches

  @Test
  protected void awaitAppliedAndListeners() {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    ms.addApplyListener(
        (index, command, outcome) ->
            seen.add(
                index
                    + ":"
                    + command.getClass().getSimpleName()
                    + ":"
                    + outcome.getClass().getSimpleName()));
    long base = ms.appliedIndex();
    assertThat(await(ms.awaitApplied(base))).isNull();
    CompletableFuture<Void> later = ms.awaitApplied(base + 2);
    assertThat(later).isNotDone();
    Applied a1 = propose(new RegisterNode(origin("n1", 1), "h", 1, "z"));
    assertThat(a1.index()).isEqualTo(base + 1);
    assertThat(later).isNotDone();
    Applied a2 = propose(new CreateNamespace(origin("nx", 1), "q"));
    assertThat(a2.index()).isEqualTo(base + 2);
    await(later);
    assertThat(ms.appliedIndex()).isGreaterThanOrEqualTo(base + 2);
    assertThat(seen)
        .containsExactly(
            (base + 1) + ":RegisterNode:NodeRegistered", (base + 2) + ":CreateNamespace:Rejected");
  }

  @Test
  protected void closedMetastoreRefusesProposals() {
    register("n1", 1);
    CompletableFuture<Void> never = ms.awaitApplied(ms.appliedIndex() + 100);
    ms.close();
    assertThatThrownBy(() -> await(ms.propose(new CreateNamespace(origin("n1", 1), "x"))))
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            LoamException.class,
            e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.UNAVAILABLE));
    assertThat(never).isCompletedExceptionally();
  }

  // ---- segments, retention and the object lifecycle (stream-engine.txt §5)

  protected List<IndexEntry> entries(StreamInfo s, int p) {
    return ms.read((MetaReader r) -> r.indexEntries(s.id(), p, 0, 1000));
  }

  protected int refs(String key) {
    return ms.read((MetaReader r) -> r.objectRefs(key));
  }

  protected boolean retired(String key) {
    return ms.read((MetaReader r) -> r.retired(key).isPresent());
  }

  protected dev.loam.meta.command.SwapSegment swap(
      StreamInfo s, int p, List<IndexEntry> expected, String segmentKey, long time) {
    long from = expected.get(0).baseOffset();
    long to = expected.get(expected.size() - 1).endOffset();
    List<dev.loam.meta.command.SwapSegment.SegmentEntry> es = new ArrayList<>();
    long pos = 32;
    for (IndexEntry e : expected) {
      es.add(
          new dev.loam.meta.command.SwapSegment.SegmentEntry(
              e.recordCount(), pos, e.byteLength(), e.maxTimestamp()));
      pos += e.byteLength();
    }
    return new dev.loam.meta.command.SwapSegment(
        origin("n1", 1), s.id(), p, from, to, expected, segmentKey, time, pos + 100, es);
  }

  /** Two WAL objects: A holds p0's first entry, B holds p0's second and p1's only entry. */
  protected StreamInfo twoObjects(String a, String b) {
    register("n1", 1);
    StreamInfo s = createStream("default", "seg", 2);
    apply(commit(a, clock.millis(), chunk(s, 0, batch(0, 100, 2, START_MILLIS))));
    apply(
        commit(
            b,
            clock.millis(),
            chunk(s, 0, batch(0, 100, 3, START_MILLIS + 5)),
            chunk(s, 1, batch(100, 80, 1, START_MILLIS))));
    return s;
  }

  @Test
  protected void swapReplacesEntriesRetiresUnreferencedObjectsAndIsIdempotent() {
    StreamInfo s = twoObjects("wal/standard/n1/a.wal", "wal/standard/n1/b.wal");
    List<IndexEntry> before = entries(s, 0);
    assertThat(before).hasSize(2);
    dev.loam.meta.command.SwapSegment sw = swap(s, 0, before, "seg/1/0/0-x.seg", clock.millis());
    assertThat(apply(sw)).isEqualTo(new Outcome.SegmentSwapped(false, 2));
    List<IndexEntry> after = entries(s, 0);
    assertThat(after)
        .extracting(IndexEntry::baseOffset, IndexEntry::recordCount, IndexEntry::objectKey)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0L, 2, "seg/1/0/0-x.seg"),
            org.assertj.core.groups.Tuple.tuple(2L, 3, "seg/1/0/0-x.seg"));
    assertThat(after.get(1).maxTimestamp()).isEqualTo(START_MILLIS + 5);
    assertThat(partition(s, 0).highWatermark()).isEqualTo(5);
    // A is referenced by nothing now; B still by partition 1.
    assertThat(refs("wal/standard/n1/a.wal")).isZero();
    assertThat(retired("wal/standard/n1/a.wal")).isTrue();
    assertThat(refs("wal/standard/n1/b.wal")).isEqualTo(1);
    assertThat(retired("wal/standard/n1/b.wal")).isFalse();
    assertThat(refs("seg/1/0/0-x.seg")).isEqualTo(2);
    // A retry (outcome unknown) is a deduplicated success and changes nothing.
    assertThat(apply(sw)).isEqualTo(new Outcome.SegmentSwapped(true, 0));
    assertThat(entries(s, 0)).isEqualTo(after);
  }

  @Test
  protected void staleSwapIsRefusedByCompareAndSwap() {
    StreamInfo s = twoObjects("wal/standard/n1/a.wal", "wal/standard/n1/b.wal");
    List<IndexEntry> before = entries(s, 0);
    assertThat(apply(swap(s, 0, before, "seg/1/0/0-x.seg", clock.millis())))
        .isInstanceOf(Outcome.SegmentSwapped.class);
    // A second segmenter built from the old view: its expected entries are gone.
    Outcome o = apply(swap(s, 0, before, "seg/1/0/0-y.seg", clock.millis()));
    assertRejected(o, RejectReason.CONFLICT);
    assertThat(refs("seg/1/0/0-y.seg")).isZero();
    assertThat(entries(s, 0)).extracting(IndexEntry::objectKey).containsOnly("seg/1/0/0-x.seg");
    // A subset that does not match the entries' boundaries is a conflict too.
    List<IndexEntry> now = entries(s, 0);
    IndexEntry fake = new IndexEntry(0, 5, "seg/1/0/0-x.seg", 32, 200, now.get(1).maxTimestamp());
    assertRejected(
        apply(swap(s, 0, List.of(fake), "seg/1/0/0-z.seg", clock.millis())), RejectReason.CONFLICT);
  }

  @Test
  protected void swapIsFencedByNodeEpochAndSegmentAge() {
    StreamInfo s = twoObjects("wal/standard/n1/a.wal", "wal/standard/n1/b.wal");
    List<IndexEntry> before = entries(s, 0);
    long old = clock.millis();
    clock.advance(Duration.ofMinutes(16));
    assertRejected(apply(swap(s, 0, before, "seg/1/0/0-old.seg", old)), RejectReason.STALE_COMMIT);
    register("n1", 2);
    assertRejected(
        apply(swap(s, 0, before, "seg/1/0/0-x.seg", clock.millis())),
        RejectReason.STALE_NODE_EPOCH);
    assertThat(entries(s, 0)).isEqualTo(before);
  }

  @Test
  protected void invalidSwapsAreRefused() {
    StreamInfo s = twoObjects("wal/standard/n1/a.wal", "wal/standard/n1/b.wal");
    List<IndexEntry> before = entries(s, 0);
    dev.loam.meta.command.SwapSegment ok = swap(s, 0, before, "seg/1/0/0-x.seg", clock.millis());
    // The new entries hold one record too few.
    List<dev.loam.meta.command.SwapSegment.SegmentEntry> es = new ArrayList<>(ok.entries());
    es.set(0, new dev.loam.meta.command.SwapSegment.SegmentEntry(1, 32, 100, 0));
    assertRejected(
        apply(
            new dev.loam.meta.command.SwapSegment(
                ok.origin(),
                s.id(),
                0,
                0,
                5,
                before,
                ok.segmentKey(),
                clock.millis(),
                ok.segmentSize(),
                es)),
        RejectReason.INVALID);
    // Byte ranges outside the segment.
    assertRejected(
        apply(
            new dev.loam.meta.command.SwapSegment(
                ok.origin(),
                s.id(),
                0,
                0,
                5,
                before,
                ok.segmentKey(),
                clock.millis(),
                100,
                ok.entries())),
        RejectReason.INVALID);
    assertRejected(
        apply(
            new dev.loam.meta.command.SwapSegment(
                ok.origin(),
                s.id(),
                7,
                0,
                5,
                before,
                ok.segmentKey(),
                clock.millis(),
                ok.segmentSize(),
                ok.entries())),
        RejectReason.NOT_FOUND);
    assertThat(entries(s, 0)).isEqualTo(before);
  }

  protected StreamInfo retentionStream(long retentionMillis, long retentionBytes) {
    register("n1", 1);
    Outcome o =
        apply(
            new CreateStream(
                origin("n1", 1),
                "default",
                "ret",
                new StreamConfig(
                    1,
                    DurabilityClass.STANDARD,
                    retentionMillis,
                    retentionBytes,
                    StreamConfig.CleanupPolicy.DELETE)));
    StreamInfo s = ((Outcome.StreamCreated) o).stream();
    for (int i = 0; i < 4; i++) {
      apply(
          commit(
              "wal/standard/n1/r" + i + ".wal",
              clock.millis(),
              chunk(s, 0, batch(0, 100, 2, clock.millis()))));
      clock.advance(Duration.ofMinutes(1));
    }
    return s;
  }

  protected Outcome trim(StreamInfo s, long start, dev.loam.meta.command.TrimPartition.Reason r) {
    return apply(new dev.loam.meta.command.TrimPartition(origin("n1", 1), s.id(), 0, start, r));
  }

  @Test
  protected void timeRetentionTrimsOnlyExpiredWholeEntries() {
    StreamInfo s = retentionStream(Duration.ofMinutes(2).toMillis(), -1);
    var time = dev.loam.meta.command.TrimPartition.Reason.TIME;
    // Now = start + 4 min: entries stamped start+0 and start+1 are older than 2 minutes.
    assertRejected(trim(s, 6, time), RejectReason.INVALID); // entry 2 is inside retention
    assertRejected(trim(s, 3, time), RejectReason.INVALID); // not an entry boundary
    assertRejected(trim(s, 9, time), RejectReason.INVALID); // beyond the high watermark
    assertRejected(
        trim(s, 4, dev.loam.meta.command.TrimPartition.Reason.SIZE),
        RejectReason.INVALID); // no size retention
    assertThat(trim(s, 4, time)).isEqualTo(new Outcome.Trimmed(4, 2));
    assertThat(partition(s, 0).logStartOffset()).isEqualTo(4);
    assertThat(entries(s, 0)).extracting(IndexEntry::baseOffset).containsExactly(4L, 6L);
    assertThat(retired("wal/standard/n1/r0.wal")).isTrue();
    assertThat(retired("wal/standard/n1/r1.wal")).isTrue();
    assertThat(refs("wal/standard/n1/r2.wal")).isEqualTo(1);
    // Idempotent: an older or equal log start changes nothing.
    assertThat(trim(s, 2, time)).isEqualTo(new Outcome.Trimmed(4, 0));
    // Once everything is old enough, time retention may empty the partition.
    clock.advance(Duration.ofMinutes(10));
    apply(new RegisterNode(origin("n1", 1), "host:9092", 4, "az1")); // moves the metastore clock
    assertThat(trim(s, 8, time)).isEqualTo(new Outcome.Trimmed(8, 2));
    assertThat(entries(s, 0)).isEmpty();
    assertThat(partition(s, 0).highWatermark()).isEqualTo(8);
  }

  @Test
  protected void sizeRetentionKeepsAtLeastTheLimitAndTheNewestEntry() {
    StreamInfo s = retentionStream(-1, 150);
    var size = dev.loam.meta.command.TrimPartition.Reason.SIZE;
    // 4 entries of 100 bytes: dropping 2 keeps 200 >= 150; dropping 3 would keep 100 < 150.
    assertRejected(trim(s, 6, size), RejectReason.INVALID);
    assertRejected(trim(s, 8, size), RejectReason.INVALID);
    assertThat(trim(s, 4, size)).isEqualTo(new Outcome.Trimmed(4, 2));
    assertRejected(trim(s, 6, size), RejectReason.INVALID);
    assertThat(entries(s, 0)).hasSize(2);
  }

  @Test
  protected void sizeRetentionNeverDropsTheNewestEntry() {
    StreamInfo s = retentionStream(-1, 1);
    var size = dev.loam.meta.command.TrimPartition.Reason.SIZE;
    assertRejected(trim(s, 8, size), RejectReason.INVALID);
    assertThat(trim(s, 6, size)).isEqualTo(new Outcome.Trimmed(6, 3));
    assertThat(entries(s, 0)).hasSize(1);
  }

  @Test
  protected void objectLifecycleRetireAndConfirmDeletion() {
    register("n1", 1);
    StreamInfo s = createStream("default", "life", 1);
    // A commit that appends nothing (unknown partition) retires its object at once.
    apply(commit("wal/standard/n1/none.wal", clock.millis(), chunk(s, 5, batch(0, 100, 1, 0))));
    assertThat(retired("wal/standard/n1/none.wal")).isTrue();
    apply(commit("wal/standard/n1/one.wal", clock.millis(), chunk(s, 0, batch(0, 100, 1, 0))));
    assertThat(refs("wal/standard/n1/one.wal")).isEqualTo(1);
    assertThat(retired("wal/standard/n1/one.wal")).isFalse();
    // Deleting the stream drops its references.
    apply(new DeleteStream(origin("n1", 1), "default", "life"));
    assertThat(retired("wal/standard/n1/one.wal")).isTrue();
    List<dev.loam.meta.command.RetiredObject> list =
        ms.read((MetaReader r) -> r.retiredObjects(10));
    assertThat(list)
        .extracting(dev.loam.meta.command.RetiredObject::objectKey)
        .containsExactly("wal/standard/n1/none.wal", "wal/standard/n1/one.wal");
    assertThat(ms.read((MetaReader r) -> r.retiredObjects(1))).hasSize(1);
    // Confirming deletion removes the records; unknown keys are ignored; a retry is harmless.
    Outcome o =
        apply(
            new dev.loam.meta.command.DeleteObjects(
                origin("n1", 1), List.of("wal/standard/n1/none.wal", "wal/other.wal")));
    assertThat(o).isEqualTo(new Outcome.ObjectsDeleted(1));
    assertThat(
            apply(
                new dev.loam.meta.command.DeleteObjects(
                    origin("n1", 1), List.of("wal/standard/n1/none.wal"))))
        .isEqualTo(new Outcome.ObjectsDeleted(0));
    assertThat(ms.read((MetaReader r) -> r.retiredCount())).isEqualTo(1);
    List<String> tooMany = Collections.nCopies(1001, "k");
    assertRejected(
        apply(new dev.loam.meta.command.DeleteObjects(origin("n1", 1), tooMany)),
        RejectReason.INVALID);
  }

  // ---- producer ids and named consumers (stream-engine.txt §7)

  @Test
  protected void producerIdsAreHandedOutOnceInIncreasingRanges() {
    register("n1", 1);
    assertThat(apply(new AllocateProducerIds(origin("n1", 1), 1)))
        .isEqualTo(new Outcome.ProducerIdsAllocated(0, 1));
    assertThat(apply(new AllocateProducerIds(origin("n1", 1), 10)))
        .isEqualTo(new Outcome.ProducerIdsAllocated(1, 10));
    assertThat(apply(new AllocateProducerIds(origin("n1", 1), 1)))
        .isEqualTo(new Outcome.ProducerIdsAllocated(11, 1));
    assertRejected(apply(new AllocateProducerIds(origin("n1", 1), 0)), RejectReason.INVALID);
    assertRejected(
        apply(new AllocateProducerIds(origin("n1", 1), AllocateProducerIds.MAX_COUNT + 1)),
        RejectReason.INVALID);
    // A fenced node gets none.
    assertRejected(
        apply(new AllocateProducerIds(origin("n1", 0), 1)), RejectReason.STALE_NODE_EPOCH);
    assertThat(ms.read((MetaReader r) -> r.nextProducerId())).isEqualTo(12);
  }

  protected ConsumerLease acquire(
      StreamInfo s, int p, String consumer, String holder, long leaseMillis) {
    Outcome o =
        apply(new AcquireConsumerLease(origin("n1", 1), s.id(), p, consumer, holder, leaseMillis));
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.ConsumerLeaseGranted.class);
    return ((Outcome.ConsumerLeaseGranted) o).lease();
  }

  protected Outcome commitOffset(StreamInfo s, int p, String consumer, long gen, long offset) {
    return apply(new CommitConsumerOffset(origin("n1", 1), s.id(), p, consumer, gen, offset));
  }

  protected void appendRecords(StreamInfo s, int p, int records) {
    commitOk(chunk(s, p, batch(0, 100, records, clock.millis())));
  }

  @Test
  protected void aConsumerLeaseIsGrantedRenewedAndCommitsWithinTheRange() {
    register("n1", 1);
    StreamInfo s = createStream("default", "c1", 2);
    appendRecords(s, 0, 5);
    ConsumerLease l = acquire(s, 0, "billing", "h1", 10_000);
    assertThat(l.generation()).isEqualTo(1);
    assertThat(l.holder()).isEqualTo("h1");
    assertThat(l.expiresAtMillis()).isEqualTo(clock.millis() + 10_000);
    assertThat(l.committedOffset()).isEqualTo(ConsumerLease.NO_OFFSET);

    // Offsets in [logStart, hw] commit; the commit renews the lease.
    clock.advance(Duration.ofSeconds(5));
    Outcome c = commitOffset(s, 0, "billing", 1, 3);
    assertThat(c).as(c.toString()).isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    ConsumerLease after = ((Outcome.ConsumerOffsetCommitted) c).lease();
    assertThat(after.committedOffset()).isEqualTo(3);
    assertThat(after.expiresAtMillis()).isEqualTo(clock.millis() + 10_000);
    assertThat(commitOffset(s, 0, "billing", 1, 5))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    assertThat(commitOffset(s, 0, "billing", 1, 0))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    assertRejected(commitOffset(s, 0, "billing", 1, 6), RejectReason.OUT_OF_RANGE);
    assertRejected(commitOffset(s, 0, "billing", 1, -1), RejectReason.OUT_OF_RANGE);
    assertThat(
            ms.read((MetaReader r) -> r.consumerLease(s.id(), 0, "billing"))
                .orElseThrow()
                .committedOffset())
        .isEqualTo(0);

    // The same holder re-acquiring a live lease renews it: same generation, offset kept.
    clock.advance(Duration.ofSeconds(1));
    ConsumerLease renewed = acquire(s, 0, "billing", "h1", 20_000);
    assertThat(renewed.generation()).isEqualTo(1);
    assertThat(renewed.committedOffset()).isEqualTo(0);
    assertThat(renewed.expiresAtMillis()).isEqualTo(clock.millis() + 20_000);

    // Another holder is refused while the lease is live, and nothing changes.
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 1), s.id(), 0, "billing", "h2", 1000)),
        RejectReason.CONFLICT);
    // Consumers, partitions and streams are independent.
    assertThat(acquire(s, 0, "audit", "h2", 1000).generation()).isEqualTo(1);
    assertThat(acquire(s, 1, "billing", "h2", 1000).generation()).isEqualTo(1);
    assertThat(ms.read((MetaReader r) -> r.consumerLeases(s.id(), "billing")))
        .extracting(ConsumerLease::partition, ConsumerLease::holder)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, "h1"),
            org.assertj.core.groups.Tuple.tuple(1, "h2"));
  }

  @Test
  protected void anExpiredLeaseIsTakenOverAndTheOldGenerationIsFenced() {
    register("n1", 1);
    StreamInfo s = createStream("default", "c2", 1);
    appendRecords(s, 0, 4);
    ConsumerLease first = acquire(s, 0, "app", "old", 1000);
    assertThat(commitOffset(s, 0, "app", first.generation(), 2))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);

    // Expiry is by the metastore clock: at expiresAt the lease is gone.
    clock.set(first.expiresAtMillis() + 1000);
    ConsumerLease second = acquire(s, 0, "app", "new", 1000);
    assertThat(second.generation()).isEqualTo(2);
    assertThat(second.holder()).isEqualTo("new");
    assertThat(second.committedOffset()).as("the offset survives the takeover").isEqualTo(2);

    // The old holder is fenced, even with an offset that would be valid.
    assertRejected(commitOffset(s, 0, "app", first.generation(), 3), RejectReason.FENCED);
    assertRejected(commitOffset(s, 0, "app", 99, 3), RejectReason.FENCED);
    assertThat(commitOffset(s, 0, "app", second.generation(), 3))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);

    // A holder whose lease expired cannot commit either, until it acquires a new generation.
    clock.advance(Duration.ofSeconds(5));
    assertRejected(commitOffset(s, 0, "app", second.generation(), 4), RejectReason.FENCED);
    ConsumerLease third = acquire(s, 0, "app", "new", 1000);
    assertThat(third.generation()).isEqualTo(3);
    assertThat(commitOffset(s, 0, "app", 3, 4)).isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    assertThat(ms.read((MetaReader r) -> r.consumerLease(s.id(), 0, "app")).orElseThrow())
        .extracting(ConsumerLease::generation, ConsumerLease::committedOffset)
        .containsExactly(3L, 4L);
  }

  @Test
  protected void invalidConsumerCommandsAreRefused() {
    register("n1", 1);
    StreamInfo s = createStream("default", "c3", 1);
    // No lease at all: fenced (the caller's generation is not current).
    assertRejected(commitOffset(s, 0, "app", 1, 0), RejectReason.FENCED);
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 1), s.id(), 1, "app", "h", 1000)),
        RejectReason.NOT_FOUND);
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 1), 999, 0, "app", "h", 1000)),
        RejectReason.NOT_FOUND);
    assertRejected(commitOffset(s, 3, "app", 1, 0), RejectReason.NOT_FOUND);
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 1), s.id(), 0, "bad name", "h", 1000)),
        RejectReason.INVALID);
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 1), s.id(), 0, "app", "", 1000)),
        RejectReason.INVALID);
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 1), s.id(), 0, "app", "h", 0)),
        RejectReason.INVALID);
    assertRejected(
        apply(
            new AcquireConsumerLease(
                origin("n1", 1), s.id(), 0, "app", "h", AcquireConsumerLease.MAX_LEASE_MILLIS + 1)),
        RejectReason.INVALID);
    // A fenced node cannot take leases.
    assertRejected(
        apply(new AcquireConsumerLease(origin("n1", 0), s.id(), 0, "app", "h", 1000)),
        RejectReason.STALE_NODE_EPOCH);
    assertThat(ms.read((MetaReader r) -> r.consumerLease(s.id(), 0, "app"))).isEmpty();
  }

  @Test
  protected void deletingAStreamDropsItsConsumersAndARecreatedStreamStartsFresh() {
    register("n1", 1);
    StreamInfo s = createStream("default", "c4", 1);
    appendRecords(s, 0, 2);
    ConsumerLease l = acquire(s, 0, "app", "h", 60_000);
    assertThat(commitOffset(s, 0, "app", l.generation(), 2))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    apply(new DeleteStream(origin("n1", 1), "default", "c4"));
    assertThat(ms.read((MetaReader r) -> r.consumerLease(s.id(), 0, "app"))).isEmpty();
    StreamInfo again = createStream("default", "c4", 1);
    assertThat(ms.read((MetaReader r) -> r.consumerLease(again.id(), 0, "app"))).isEmpty();
    assertThat(acquire(again, 0, "app", "h", 60_000).generation()).isEqualTo(1);
  }

  // ---- stream admin: UpdateStreamConfig and AddPartitions

  @Test
  protected void updateStreamConfigChangesOnlyTheNamedFields() {
    register("n1", 1);
    Origin o = origin("n1", 1);
    StreamConfig cfg =
        new StreamConfig(
            2, DurabilityClass.EXPRESS, 60_000, 1 << 30, StreamConfig.CleanupPolicy.DELETE);
    StreamInfo s =
        ((Outcome.StreamCreated) apply(new CreateStream(o, "default", "u1", cfg))).stream();

    Outcome u = apply(new UpdateStreamConfig(o, "default", "u1", 120_000L, null, null));
    StreamConfig afterMillis =
        new StreamConfig(
            2, DurabilityClass.EXPRESS, 120_000, 1 << 30, StreamConfig.CleanupPolicy.DELETE);
    assertThat(u)
        .isEqualTo(
            new Outcome.StreamConfigUpdated(new StreamInfo(s.id(), "default", "u1", afterMillis)));
    Outcome u2 =
        apply(
            new UpdateStreamConfig(
                o, "default", "u1", null, -1L, StreamConfig.CleanupPolicy.COMPACT));
    StreamConfig after =
        new StreamConfig(
            2, DurabilityClass.EXPRESS, 120_000, -1, StreamConfig.CleanupPolicy.COMPACT);
    assertThat(((Outcome.StreamConfigUpdated) u2).stream().config()).isEqualTo(after);
    assertThat(ms.read((MetaReader r) -> r.stream("default", "u1")))
        .contains(new StreamInfo(s.id(), "default", "u1", after));
    assertThat(ms.read((MetaReader r) -> r.streamById(s.id())).orElseThrow().config())
        .isEqualTo(after);
    // The same update again is a success that changes nothing.
    assertThat(
            apply(
                new UpdateStreamConfig(
                    o, "default", "u1", null, -1L, StreamConfig.CleanupPolicy.COMPACT)))
        .isEqualTo(u2);
  }

  @Test
  protected void invalidStreamConfigUpdatesAreRefusedNamingTheField() {
    register("n1", 1);
    Origin o = origin("n1", 1);
    StreamInfo s = createStream("default", "u2", 1);
    assertRejected(
        apply(new UpdateStreamConfig(o, "default", "nope", 1000L, null, null)),
        RejectReason.NOT_FOUND);
    assertRejected(
        apply(new UpdateStreamConfig(o, "nope", "u2", 1000L, null, null)), RejectReason.NOT_FOUND);
    Outcome empty = apply(new UpdateStreamConfig(o, "default", "u2", null, null, null));
    assertRejected(empty, RejectReason.INVALID);
    Outcome zeroMillis = apply(new UpdateStreamConfig(o, "default", "u2", 0L, null, null));
    assertRejected(zeroMillis, RejectReason.INVALID);
    assertThat(((Outcome.Rejected) zeroMillis).message()).contains("retentionMillis=0");
    Outcome badBytes = apply(new UpdateStreamConfig(o, "default", "u2", null, -5L, null));
    assertRejected(badBytes, RejectReason.INVALID);
    assertThat(((Outcome.Rejected) badBytes).message()).contains("retentionBytes=-5");
    // A fenced node changes nothing either.
    assertRejected(
        apply(new UpdateStreamConfig(origin("n1", 0), "default", "u2", 1000L, null, null)),
        RejectReason.STALE_NODE_EPOCH);
    assertThat(ms.read((MetaReader r) -> r.stream("default", "u2"))).contains(s);
  }

  @Test
  protected void addPartitionsGrowsAStreamWithEmptyPartitionsAndKeepsTheOldOnes() {
    register("n1", 1);
    Origin o = origin("n1", 1);
    StreamInfo s = createStream("default", "p1", 2);
    appendRecords(s, 0, 3);
    appendRecords(s, 1, 2);
    // Before the change a commit to partition 2 is refused.
    assertThat(results(commitOk(chunk(s, 2, batch(0, 100, 1, clock.millis()))), 0))
        .containsExactly(new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1));

    Outcome added = apply(new AddPartitions(o, "default", "p1", 4));
    assertThat(added).isInstanceOf(Outcome.PartitionsAdded.class);
    Outcome.PartitionsAdded pa = (Outcome.PartitionsAdded) added;
    assertThat(pa.previousPartitions()).isEqualTo(2);
    assertThat(pa.stream().config()).isEqualTo(StreamConfig.standard(4));
    assertThat(ms.read((MetaReader r) -> r.stream("default", "p1")).orElseThrow().config())
        .isEqualTo(StreamConfig.standard(4));
    assertThat(partition(s, 0)).isEqualTo(new PartitionInfo(s.id(), 0, 0, 3));
    assertThat(partition(s, 1)).isEqualTo(new PartitionInfo(s.id(), 1, 0, 2));
    assertThat(partition(s, 2)).isEqualTo(new PartitionInfo(s.id(), 2, 0, 0));
    assertThat(partition(s, 3)).isEqualTo(new PartitionInfo(s.id(), 3, 0, 0));
    assertThat(ms.read((MetaReader r) -> r.partition(s.id(), 4))).isEmpty();

    // The new partitions take commits from offset 0; the old ones continue.
    Outcome.WalCommitted w =
        commitOk(
            chunk(s, 3, batch(0, 100, 2, clock.millis())),
            chunk(s, 0, batch(100, 100, 1, clock.millis())));
    assertThat(results(w, 0)).containsExactly(new BatchResult(BatchStatus.APPENDED, 0));
    assertThat(results(w, 1)).containsExactly(new BatchResult(BatchStatus.APPENDED, 3));
    assertThat(partition(s, 3)).isEqualTo(new PartitionInfo(s.id(), 3, 0, 2));
    // Named consumers can use a new partition.
    ConsumerLease l = acquire(s, 3, "app", "h", 60_000);
    assertThat(commitOffset(s, 3, "app", l.generation(), 2))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
  }

  @Test
  protected void addPartitionsMustGrowWithinTheLimit() {
    register("n1", 1);
    Origin o = origin("n1", 1);
    StreamInfo s = createStream("default", "p2", 3);
    for (int bad : new int[] {3, 2, 0, -1, StreamConfig.MAX_PARTITIONS + 1}) {
      Outcome r = apply(new AddPartitions(o, "default", "p2", bad));
      assertRejected(r, RejectReason.INVALID);
      assertThat(((Outcome.Rejected) r).message())
          .contains("partitions=" + bad)
          .contains("currentPartitions=3");
    }
    assertRejected(apply(new AddPartitions(o, "default", "zz", 5)), RejectReason.NOT_FOUND);
    assertRejected(
        apply(new AddPartitions(origin("n1", 0), "default", "p2", 5)),
        RejectReason.STALE_NODE_EPOCH);
    assertThat(ms.read((MetaReader r) -> r.stream("default", "p2"))).contains(s);
    assertThat(apply(new AddPartitions(o, "default", "p2", StreamConfig.MAX_PARTITIONS)))
        .isInstanceOf(Outcome.PartitionsAdded.class);
    assertThat(partition(s, StreamConfig.MAX_PARTITIONS - 1))
        .isEqualTo(new PartitionInfo(s.id(), StreamConfig.MAX_PARTITIONS - 1, 0, 0));
  }
}
