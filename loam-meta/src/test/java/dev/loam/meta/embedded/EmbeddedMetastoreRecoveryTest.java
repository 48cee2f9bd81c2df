package dev.loam.meta.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.testing.ManualClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restart, snapshot and damaged-file behaviour of the embedded metastore
 * (docs/design/metastore.md).
 */
class EmbeddedMetastoreRecoveryTest {
  @TempDir Path dir;
  private ExecutorService executor;
  private final ManualClock clock = new ManualClock(1_780_000_000_000L);
  private EmbeddedMetastore ms;
  private int objects;

  @BeforeEach
  void setUp() {
    executor = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() {
    if (ms != null) {
      ms.close();
    }
    executor.shutdownNow();
  }

  private EmbeddedMetastore open(EmbeddedMetastore.Options options) {
    ms = EmbeddedMetastore.open(dir, MetaSettings.defaults(), options, clock, executor);
    return ms;
  }

  private EmbeddedMetastore reopen(EmbeddedMetastore.Options options) {
    ms.close();
    ms = null;
    return open(options);
  }

  private Applied propose(Command c) throws Exception {
    return ms.propose(c).get(10, TimeUnit.SECONDS);
  }

  private Origin origin() {
    return new Origin("n1", 1, clock.millis());
  }

  private CommitWal commit(long streamId) {
    return new CommitWal(
        origin(),
        "wal/standard/n1/" + (objects++) + ".wal",
        clock.millis(),
        1000,
        List.of(
            new ChunkCommit(
                streamId,
                0,
                List.of(new BatchCommit(0, 100, 2, objects, 11, (short) 0, 2 * objects)))));
  }

  /** Registers, creates a stream and commits {@code commits} objects; returns the stream id. */
  private long populate(int commits) throws Exception {
    propose(new RegisterNode(origin(), "h:1", 2, "az"));
    Outcome created =
        propose(new CreateStream(origin(), "default", "s", StreamConfig.standard(1))).outcome();
    long id = ((Outcome.StreamCreated) created).stream().id();
    for (int i = 0; i < commits; i++) {
      assertThat(propose(commit(id)).outcome()).isInstanceOf(Outcome.WalCommitted.class);
    }
    return id;
  }

  private long highWatermark(long streamId) {
    return ms.read((MetaReader r) -> r.partition(streamId, 0)).orElseThrow().highWatermark();
  }

  private List<IndexEntry> entries(long streamId) {
    return ms.read((MetaReader r) -> r.indexEntries(streamId, 0, 0, 10_000));
  }

  private Path onlyLog() throws IOException {
    Map<Long, Path> logs = LogFiles.logs(LocalDisk.INSTANCE, dir);
    assertThat(logs).hasSize(1);
    return logs.values().iterator().next();
  }

  @Test
  void reopenAfterCloseKeepsEverything() throws Exception {
    open(EmbeddedMetastore.Options.defaults());
    long id = populate(10);
    CommitWal first = commit(id);
    propose(first);
    long applied = ms.appliedIndex();
    List<IndexEntry> before = entries(id);

    reopen(EmbeddedMetastore.Options.defaults());
    assertThat(ms.appliedIndex()).isEqualTo(applied);
    assertThat(entries(id)).isEqualTo(before);
    assertThat(highWatermark(id)).isEqualTo(22);
    // Dedupe records and producer state survive too.
    Outcome.WalCommitted retry = (Outcome.WalCommitted) propose(first).outcome();
    assertThat(retry.deduplicated()).isTrue();
    assertThat(highWatermark(id)).isEqualTo(22);
    Applied next = propose(new CreateNamespace(origin(), "after"));
    assertThat(next.index()).isEqualTo(applied + 2);
  }

  @Test
  void consumerOffsetsLeasesAndProducerIdsSurviveReopenFromTheLogAndFromASnapshot()
      throws Exception {
    EmbeddedMetastore.Options every5 = new EmbeddedMetastore.Options(100, 5);
    open(every5);
    long id = populate(2);
    Outcome granted =
        propose(new AcquireConsumerLease(origin(), id, 0, "app", "h1", 600_000)).outcome();
    long gen = ((Outcome.ConsumerLeaseGranted) granted).lease().generation();
    assertThat(propose(new CommitConsumerOffset(origin(), id, 0, "app", gen, 3)).outcome())
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    assertThat(propose(new AllocateProducerIds(origin(), 5)).outcome())
        .isEqualTo(new Outcome.ProducerIdsAllocated(0, 5));
    // Index 7 > 5: the state above is in the snapshot at 5 and the log after it.
    ConsumerLease before = ms.read((MetaReader r) -> r.consumerLease(id, 0, "app")).orElseThrow();

    reopen(every5);
    assertThat(ms.lastSnapshotIndex()).isEqualTo(5);
    assertThat(ms.read((MetaReader r) -> r.consumerLease(id, 0, "app"))).hasValue(before);
    assertThat(before.committedOffset()).isEqualTo(3);
    // The lease is still held: the old generation keeps committing, another holder is refused.
    assertThat(propose(new CommitConsumerOffset(origin(), id, 0, "app", gen, 4)).outcome())
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    Outcome other = propose(new AcquireConsumerLease(origin(), id, 0, "app", "h2", 1000)).outcome();
    assertThat(((Outcome.Rejected) other).reason()).isEqualTo(Outcome.RejectReason.CONFLICT);
    // Reaching index 10 writes a snapshot holding the consumers and the producer-id counter.
    propose(new CreateNamespace(origin(), "x"));
    assertThat(ms.lastSnapshotIndex()).isEqualTo(10);

    reopen(every5);
    assertThat(ms.read((MetaReader r) -> r.consumerLease(id, 0, "app")).orElseThrow())
        .extracting(ConsumerLease::generation, ConsumerLease::committedOffset)
        .containsExactly(gen, 4L);
    assertThat(propose(new AllocateProducerIds(origin(), 1)).outcome())
        .isEqualTo(new Outcome.ProducerIdsAllocated(5, 1));
  }

  @Test
  void theClusterIdSurvivesReopenFromTheLogAndFromASnapshot() throws Exception {
    EmbeddedMetastore.Options every5 = new EmbeddedMetastore.Options(100, 5);
    open(every5);
    propose(new RegisterNode(origin(), "h:1", 2, "az"));
    assertThat(propose(new InitCluster(origin(), "A")).outcome())
        .isEqualTo(new Outcome.ClusterInitialized("A"));

    reopen(every5);
    assertThat(ms.lastSnapshotIndex()).isZero();
    assertThat(ms.read((MetaReader r) -> r.clusterId())).contains("A");
    for (String ns : List.of("x", "y", "z")) {
      propose(new CreateNamespace(origin(), ns));
    }
    assertThat(ms.lastSnapshotIndex()).isEqualTo(5);

    reopen(every5);
    assertThat(ms.read((MetaReader r) -> r.clusterId())).contains("A");
    assertThat(propose(new InitCluster(origin(), "B")).outcome())
        .isEqualTo(new Outcome.ClusterInitialized("A"));
  }

  @Test
  void reopenAfterSnapshotsAndMoreCommands() throws Exception {
    EmbeddedMetastore.Options every5 = new EmbeddedMetastore.Options(100, 5);
    open(every5);
    long id = populate(20);
    assertThat(ms.lastSnapshotIndex()).isEqualTo(20);
    // Covered log files and older snapshots are gone.
    assertThat(LogFiles.snapshots(LocalDisk.INSTANCE, dir).keySet()).containsExactly(20L);
    assertThat(LogFiles.logs(LocalDisk.INSTANCE, dir).keySet()).containsExactly(21L);
    propose(commit(id));
    propose(commit(id));
    List<IndexEntry> before = entries(id);
    long applied = ms.appliedIndex();

    reopen(every5);
    assertThat(ms.appliedIndex()).isEqualTo(applied);
    assertThat(entries(id)).isEqualTo(before);
    assertThat(ms.read((MetaReader r) -> r.node("n1"))).isPresent();
    for (int i = 0; i < 7; i++) {
      propose(commit(id));
    }
    assertThat(ms.lastSnapshotIndex()).isEqualTo(30);
    assertThat(LogFiles.logs(LocalDisk.INSTANCE, dir).keySet()).containsExactly(31L);
    long hw = highWatermark(id);
    reopen(every5);
    assertThat(highWatermark(id)).isEqualTo(hw).isEqualTo(2L * 29);
    assertThat(ms.appliedIndex()).isEqualTo(31);
  }

  @Test
  void garbageAfterTheLastFrameIsTruncated() throws Exception {
    open(EmbeddedMetastore.Options.defaults());
    long id = populate(5);
    long applied = ms.appliedIndex();
    ms.close();
    Path log = onlyLog();
    long validSize = Files.size(log);
    Files.write(
        log,
        new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
        StandardOpenOption.APPEND);

    ms = null;
    open(EmbeddedMetastore.Options.defaults());
    assertThat(ms.appliedIndex()).isEqualTo(applied);
    assertThat(highWatermark(id)).isEqualTo(10);
    assertThat(Files.size(log)).isEqualTo(validSize);
    assertThat(propose(commit(id)).index()).isEqualTo(applied + 1);
    reopen(EmbeddedMetastore.Options.defaults());
    assertThat(highWatermark(id)).isEqualTo(12);
  }

  @Test
  void tornLastFrameIsTruncated() throws Exception {
    open(EmbeddedMetastore.Options.defaults());
    long id = populate(5);
    long applied = ms.appliedIndex();
    ms.close();
    ms = null;
    // A frame that was being written when the process died: never forced, never acknowledged.
    Path log = onlyLog();
    long validSize = Files.size(log);
    byte[] payload = CommandCodec.encode(commit(id));
    ByteBuffer frame = ByteBuffer.allocate(LogFiles.FRAME_HEADER_BYTES + payload.length);
    LogFiles.writeFrame(frame, applied + 1, payload);
    byte[] torn = new byte[frame.capacity() - 3];
    System.arraycopy(frame.array(), 0, torn, 0, torn.length);
    Files.write(log, torn, StandardOpenOption.APPEND);

    open(EmbeddedMetastore.Options.defaults());
    assertThat(ms.appliedIndex()).isEqualTo(applied);
    assertThat(highWatermark(id)).isEqualTo(10);
    assertThat(Files.size(log)).isEqualTo(validSize);
  }

  @Test
  void corruptMiddleFrameIsCorruption() throws Exception {
    open(EmbeddedMetastore.Options.defaults());
    populate(5);
    ms.close();
    ms = null;
    Path log = onlyLog();
    byte[] bytes = Files.readAllBytes(log);
    // Skip the first frame, flip a payload byte of the second.
    int second = LogFiles.FRAME_HEADER_BYTES + ByteBuffer.wrap(bytes).getInt(0);
    bytes[second + LogFiles.FRAME_HEADER_BYTES + 3] ^= 0x40;
    Files.write(log, bytes);

    assertThatThrownBy(() -> open(EmbeddedMetastore.Options.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(log.getFileName().toString());
    // The failed open released the directory.
    bytes[second + LogFiles.FRAME_HEADER_BYTES + 3] ^= 0x40;
    Files.write(log, bytes);
    open(EmbeddedMetastore.Options.defaults());
    assertThat(ms.appliedIndex()).isEqualTo(7);
  }

  @Test
  void corruptSnapshotIsCorruption() throws Exception {
    open(new EmbeddedMetastore.Options(100, 5));
    populate(3);
    ms.close();
    ms = null;
    Path snap = LogFiles.snapshots(LocalDisk.INSTANCE, dir).lastEntry().getValue();
    byte[] bytes = Files.readAllBytes(snap);
    bytes[bytes.length / 2] ^= 1;
    Files.write(snap, bytes);
    assertThatThrownBy(() -> open(new EmbeddedMetastore.Options(100, 5)))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(snap.getFileName().toString());
  }

  @Test
  void secondOpenOfTheSameDirectoryIsRefused() {
    open(EmbeddedMetastore.Options.defaults());
    assertThatThrownBy(
            () ->
                EmbeddedMetastore.open(
                    dir,
                    MetaSettings.defaults(),
                    EmbeddedMetastore.Options.defaults(),
                    clock,
                    executor))
        .isInstanceOfSatisfying(
            LoamException.class,
            e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.UNAVAILABLE))
        .hasMessageContaining(dir.toString());
  }

  @Test
  void fullQueueIsUnavailable() throws Exception {
    // An executor that holds the drain task, so proposals pile up in the queue.
    List<Runnable> held = new java.util.ArrayList<>();
    ms =
        EmbeddedMetastore.open(
            dir, MetaSettings.defaults(), new EmbeddedMetastore.Options(2, 100), clock, held::add);
    var f1 = ms.propose(new RegisterNode(origin(), "h", 1, "z"));
    var f2 = ms.propose(new CreateNamespace(origin(), "a"));
    var f3 = ms.propose(new CreateNamespace(origin(), "b"));
    assertThat(f3).isCompletedExceptionally();
    assertThat(held).hasSize(1);
    held.remove(0).run();
    assertThat(f1.get(1, TimeUnit.SECONDS).index()).isEqualTo(1);
    assertThat(f2.get(1, TimeUnit.SECONDS).outcome()).isInstanceOf(Outcome.NamespaceCreated.class);
  }
}
