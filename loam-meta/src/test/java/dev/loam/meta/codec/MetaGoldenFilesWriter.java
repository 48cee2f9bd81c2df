package dev.loam.meta.codec;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamConfig.CleanupPolicy;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.StreamOwnership.State;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import dev.loam.wal.DurabilityClass;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes the metastore golden files, and holds the fixed inputs behind them. Run by hand only when
 * adding a NEW format version (never to "fix" a failing {@code MetaGoldenFilesTest}: a failing
 * golden test means a compatibility break). Never change the fixtures of an existing version: the
 * files are decoded forever.
 *
 * <pre>
 * mvn -B -o -q -pl loam-meta test-compile
 * java -cp loam-meta/target/test-classes:loam-meta/target/classes:&lt;loam-wal, slf4j-api jars&gt; \
 *   dev.loam.meta.codec.MetaGoldenFilesWriter
 * </pre>
 *
 * or run {@code main} from an IDE. The optional argument is the output directory.
 *
 * <p>The files:
 *
 * <ul>
 *   <li>{@value #COMMANDS_V1}: every command type, as a sequence of frames (below), each holding
 *       one v1 command encoding (metastore-commands.md).
 *   <li>{@value #OUTCOMES_V1}: every outcome type, every reject reason and every batch status, as
 *       frames of v1 outcome encodings.
 *   <li>{@value #SNAPSHOT_V1}: one v1 snapshot (metastore-snapshot.md) of a state machine after
 *       {@link #snapshotCommands()} applied at indexes 1, 2, 3, ...
 *   <li>{@value #COMMANDS_V1_EXT}: the command tags added to version 1 after {@value #COMMANDS_V1}
 *       was written (7 and up), same framing; {@link #commandsExt()}.
 *   <li>{@value #OUTCOMES_V1_EXT}: likewise the outcome tags 7 and up and reject reasons 9 and up;
 *       {@link #outcomesExt()}.
 *   <li>{@value #SNAPSHOT_V2}: a v2 snapshot (retired objects) after {@link #snapshotV2Commands()}.
 *   <li>{@value #SNAPSHOT_V3}: a v3 snapshot (producer-id counter, named consumers; also a stream
 *       grown by AddPartitions and re-configured by UpdateStreamConfig) after {@link
 *       #snapshotV3Commands()}.
 *   <li>{@value #COMMANDS_V1_OWNERSHIP}: the node liveness and ownership command tags 15..23 (still
 *       format version 1), same framing; {@link #commandsOwnership()}.
 *   <li>{@value #OUTCOMES_V1_OWNERSHIP}: outcome tags 15..16 and reject reason 11 (NOT_OWNER);
 *       {@link #outcomesOwnership()}.
 *   <li>{@value #SNAPSHOT_V4}: a v4 snapshot (renewals, dead nodes, ownerships in every owned and
 *       unowned state) after {@link #snapshotV4Commands()}.
 *   <li>{@value #COMMANDS_V1_CLUSTER}: command tag 24, InitCluster (still format version 1), same
 *       framing; {@link #commandsCluster()}.
 *   <li>{@value #OUTCOMES_V1_CLUSTER}: outcome tag 17, ClusterInitialized; {@link
 *       #outcomesCluster()}.
 *   <li>{@value #SNAPSHOT_V5}: a v5 snapshot (the cluster id, with empty v2..v4 sections) after
 *       {@link #snapshotV5Commands()}.
 *   <li>The named endpoints' files (command tag 25, outcome tag 18, snapshot version 6), whose
 *       fixtures are in {@link MetaGoldenFixturesEndpoints}.
 *   <li>The API keys' files (command tags 26 and 27, outcome tags 19 and 20, snapshot version 7),
 *       whose fixtures are in {@link MetaGoldenFixturesApiKeys}.
 *   <li>The consumer groups' files (command tags 28 to 30, outcome tag 21, snapshot version 8),
 *       whose fixtures are in {@link MetaGoldenFixturesGroups}.
 *   <li>The namespace keys' files (command tags 38 and 39, outcome tag 27, snapshot version 10),
 *       whose fixtures are in {@link MetaGoldenFixturesNamespaceKeys}.
 *   <li>The writer leases' files (command tags 41 to 43, outcome tags 28 and 29, snapshot version
 *       11), whose fixtures are in {@link MetaGoldenFixturesWriters}.
 * </ul>
 *
 * <p>{@code main} writes only files that do not exist yet: an existing golden file is never
 * rewritten.
 *
 * <p>A frame is a test-only container, not part of any format: a big-endian {@code i32} length,
 * then that many bytes; frames follow each other to the end of the file. The command and outcome
 * formats carry no length of their own (their container does), hence the frames.
 */
public final class MetaGoldenFilesWriter {
  static final String COMMANDS_V1 = "metastore-commands-v1.bin";
  static final String OUTCOMES_V1 = "outcomes-v1.bin";
  static final String SNAPSHOT_V1 = "metastore-snapshot-v1.bin";
  static final String COMMANDS_V1_EXT = "metastore-commands-v1-ext.bin";
  static final String OUTCOMES_V1_EXT = "outcomes-v1-ext.bin";
  static final String SNAPSHOT_V2 = "metastore-snapshot-v2.bin";
  static final String SNAPSHOT_V3 = "metastore-snapshot-v3.bin";
  static final String COMMANDS_V1_OWNERSHIP = "metastore-commands-v1-ownership.bin";
  static final String OUTCOMES_V1_OWNERSHIP = "outcomes-v1-ownership.bin";
  static final String SNAPSHOT_V4 = "metastore-snapshot-v4.bin";
  static final String COMMANDS_V1_CLUSTER = "metastore-commands-v1-cluster.bin";
  static final String OUTCOMES_V1_CLUSTER = "outcomes-v1-cluster.bin";
  static final String SNAPSHOT_V5 = "metastore-snapshot-v5.bin";

  /** The snapshot sequence's base clock; stamps are offsets from it. */
  static final long START = 1_780_000_000_000L;

  static final long EPOCH_A = 1_779_999_000_000L;
  static final long EPOCH_B = 1_779_999_500_000L;

  static final String OBJECT_1 = "wal/express/node-a/01J0GXQ2E4KX9V0M3N5P6R8S9T.wal";
  static final String OBJECT_2 = "wal/express/node-b/01J0GXQ3F5MY0W1N4P6Q7S9T0V.wal";

  private MetaGoldenFilesWriter() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "loam-meta/src/test/resources/golden");
    Files.createDirectories(dir);
    writeNew(dir, COMMANDS_V1, frame(commands().stream().map(CommandCodec::encode)));
    writeNew(dir, OUTCOMES_V1, frame(outcomes().stream().map(OutcomeCodec::encode)));
    writeNew(dir, SNAPSHOT_V1, snapshotState().snapshot());
    writeNew(dir, COMMANDS_V1_EXT, frame(commandsExt().stream().map(CommandCodec::encode)));
    writeNew(dir, OUTCOMES_V1_EXT, frame(outcomesExt().stream().map(OutcomeCodec::encode)));
    writeNew(dir, SNAPSHOT_V2, state(snapshotV2Commands()).snapshot());
    writeNew(dir, SNAPSHOT_V3, state(snapshotV3Commands()).snapshot());
    writeNew(
        dir, COMMANDS_V1_OWNERSHIP, frame(commandsOwnership().stream().map(CommandCodec::encode)));
    writeNew(
        dir, OUTCOMES_V1_OWNERSHIP, frame(outcomesOwnership().stream().map(OutcomeCodec::encode)));
    writeNew(dir, SNAPSHOT_V4, state(snapshotV4Commands()).snapshot());
    writeNew(dir, COMMANDS_V1_CLUSTER, frame(commandsCluster().stream().map(CommandCodec::encode)));
    writeNew(dir, OUTCOMES_V1_CLUSTER, frame(outcomesCluster().stream().map(OutcomeCodec::encode)));
    writeNew(dir, SNAPSHOT_V5, state(snapshotV5Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesEndpoints.COMMANDS_V1_ENDPOINTS,
        frame(MetaGoldenFixturesEndpoints.commandsEndpoints().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesEndpoints.OUTCOMES_V1_ENDPOINTS,
        frame(MetaGoldenFixturesEndpoints.outcomesEndpoints().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesEndpoints.SNAPSHOT_V6,
        state(MetaGoldenFixturesEndpoints.snapshotV6Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesApiKeys.COMMANDS_V1_API_KEYS,
        frame(MetaGoldenFixturesApiKeys.commandsApiKeys().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesApiKeys.OUTCOMES_V1_API_KEYS,
        frame(MetaGoldenFixturesApiKeys.outcomesApiKeys().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesApiKeys.SNAPSHOT_V7,
        state(MetaGoldenFixturesApiKeys.snapshotV7Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesGroups.COMMANDS_V1_GROUPS,
        frame(MetaGoldenFixturesGroups.commandsGroups().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesGroups.OUTCOMES_V1_GROUPS,
        frame(MetaGoldenFixturesGroups.outcomesGroups().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesGroups.SNAPSHOT_V8,
        state(MetaGoldenFixturesGroups.snapshotV8Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesWalGroup.COMMANDS_V1_WAL_GROUP,
        frame(MetaGoldenFixturesWalGroup.commandsWalGroup().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesWalGroup.OUTCOMES_V1_WAL_GROUP,
        frame(MetaGoldenFixturesWalGroup.outcomesWalGroup().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesEvents.COMMANDS_V1_EVENTS,
        frame(MetaGoldenFixturesEvents.commandsEvents().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesEvents.OUTCOMES_V1_EVENTS,
        frame(MetaGoldenFixturesEvents.outcomesEvents().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesEvents.SNAPSHOT_V9,
        state(MetaGoldenFixturesEvents.snapshotV9Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesNamespaceKeys.COMMANDS_V1_NAMESPACE_KEYS,
        frame(
            MetaGoldenFixturesNamespaceKeys.commandsNamespaceKeys().stream()
                .map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesNamespaceKeys.OUTCOMES_V1_NAMESPACE_KEYS,
        frame(
            MetaGoldenFixturesNamespaceKeys.outcomesNamespaceKeys().stream()
                .map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesNamespaceKeys.SNAPSHOT_V10,
        state(MetaGoldenFixturesNamespaceKeys.snapshotV10Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesWriters.COMMANDS_V1_WRITERS,
        frame(MetaGoldenFixturesWriters.commandsWriters().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesWriters.OUTCOMES_V1_WRITERS,
        frame(MetaGoldenFixturesWriters.outcomesWriters().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesWriters.SNAPSHOT_V11,
        state(MetaGoldenFixturesWriters.snapshotV11Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesSchemas.COMMANDS_V1_SCHEMAS,
        frame(MetaGoldenFixturesSchemas.commandsSchemas().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesSchemas.OUTCOMES_V1_SCHEMAS,
        frame(MetaGoldenFixturesSchemas.outcomesSchemas().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesSchemas.SNAPSHOT_V12,
        state(MetaGoldenFixturesSchemas.snapshotV12Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesJournals.COMMANDS_V1_JOURNALS,
        frame(MetaGoldenFixturesJournals.commandsJournals().stream().map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesJournals.OUTCOMES_V1_JOURNALS,
        frame(MetaGoldenFixturesJournals.outcomesJournals().stream().map(OutcomeCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesJournals.SNAPSHOT_V13,
        state(MetaGoldenFixturesJournals.snapshotV13Commands()).snapshot());
    writeNew(
        dir,
        MetaGoldenFixturesJournalSeal.COMMANDS_V1_JOURNAL_SEAL,
        frame(
            MetaGoldenFixturesJournalSeal.commandsJournalSeal().stream()
                .map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesJournalSpread.COMMANDS_V1_JOURNAL_SPREAD,
        frame(
            MetaGoldenFixturesJournalSpread.commandsJournalSpread().stream()
                .map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesJournalSpread.COMMANDS_V1_JOURNAL_MOVE,
        frame(
            MetaGoldenFixturesJournalSpread.commandsJournalMove().stream()
                .map(CommandCodec::encode)));
    writeNew(
        dir,
        MetaGoldenFixturesJournalSpread.SNAPSHOT_V14,
        state(MetaGoldenFixturesJournalSpread.snapshotV14Commands()).snapshot());
  }

  /** Golden files are decoded forever: one that exists is left exactly as it is. */
  private static void writeNew(Path dir, String name, byte[] bytes) throws IOException {
    Path f = dir.resolve(name);
    if (Files.exists(f)) {
      System.out.println("kept " + f);
      return;
    }
    Files.write(f, bytes);
    System.out.println("wrote " + f);
  }

  // ---- commands-v1: every command type, with every field set to a non-default value somewhere

  static List<Command> commands() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_123L);
    Origin b = new Origin("node-b", 7L, 1_780_000_000_456L);
    return List.of(
        new RegisterNode(a, "broker-a.loam.internal:9092", 8, "eu-west-1a"),
        // Both nullable strings null (length -1), and a multi-byte UTF-8 node id.
        new RegisterNode(new Origin("nœud-ß", 3L, -1L), null, 1, null),
        new CreateNamespace(a, "analytics"),
        new DeleteNamespace(b, "scratch-ns"),
        new CreateStream(
            a,
            "analytics",
            "page-views",
            new StreamConfig(
                12, DurabilityClass.QUORUM, 86_400_000L, 5_368_709_120L, CleanupPolicy.COMPACT)),
        new CreateStream(
            b,
            "default",
            "orders",
            new StreamConfig(3, DurabilityClass.EXPRESS, -1L, -1L, CleanupPolicy.DELETE)),
        new CreateStream(b, "default", "audit", StreamConfig.standard(1)),
        new DeleteStream(b, "analytics", "page-views"),
        new CommitWal(
            a,
            "wal/quorum/node-a/01J0GXQ2E4KX9V0M3N5P6R8S9T.wal",
            1_780_000_000_000L,
            4_096L,
            List.of(
                new ChunkCommit(
                    42L,
                    3,
                    List.of(
                        // An idempotent producer whose id needs all 64 bits.
                        new BatchCommit(
                            64L, 1_000, 10, 1_779_999_999_001L, 9_000_000_001L, (short) 5, 120),
                        new BatchCommit(
                            1_064L, 500, 4, 1_779_999_999_002L, 9_000_000_001L, (short) 5, 130))),
                new ChunkCommit(
                    43L,
                    0,
                    List.of(
                        // Not idempotent: producer id, epoch and sequence all -1.
                        new BatchCommit(
                            2_048L, 2_000, 1, 1_779_999_999_003L, -1L, (short) -1, -1))))));
  }

  // ---- outcomes-v1: every outcome type, every reason code, every batch status

  static List<Outcome> outcomes() {
    return List.of(
        new Outcome.Rejected(RejectReason.STALE_NODE_EPOCH, "stale node=node-a epoch=1"),
        new Outcome.Rejected(RejectReason.UNKNOWN_NODE, "unknown node=nœud-ß"),
        new Outcome.Rejected(RejectReason.FUTURE_STAMP, "future stamp=1780000060001"),
        new Outcome.Rejected(RejectReason.STALE_COMMIT, "stale commit object=wal/x.wal"),
        new Outcome.Rejected(RejectReason.ALREADY_EXISTS, "namespace exists namespace=analytics"),
        new Outcome.Rejected(RejectReason.NOT_FOUND, null),
        new Outcome.Rejected(RejectReason.CONFLICT, "namespace still holds streams streams=2"),
        new Outcome.Rejected(RejectReason.INVALID, ""),
        new Outcome.NodeRegistered(
            new NodeInfo("node-a", EPOCH_A, "broker-a.loam.internal:9092", 8, "eu-west-1a")),
        new Outcome.NodeRegistered(new NodeInfo("node-b", 7L, null, 1, null)),
        new Outcome.NamespaceCreated("analytics"),
        new Outcome.StreamCreated(
            new StreamInfo(
                17L,
                "analytics",
                "page-views",
                new StreamConfig(
                    6, DurabilityClass.STANDARD, 3_600_000L, -1L, CleanupPolicy.COMPACT))),
        new Outcome.Deleted("page-views"),
        new Outcome.WalCommitted(
            false,
            List.of(
                List.of(
                    new BatchResult(BatchStatus.APPENDED, 1_000L),
                    new BatchResult(BatchStatus.DUPLICATE, 990L),
                    new BatchResult(BatchStatus.OUT_OF_ORDER_SEQUENCE, -1L)),
                List.of(
                    new BatchResult(BatchStatus.PRODUCER_FENCED, -1L),
                    new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1L)))),
        new Outcome.WalCommitted(
            true,
            List.of(List.of(new BatchResult(BatchStatus.APPENDED, 5_000_000_000L)), List.of())));
  }

  // ---- snapshot-v1: a small cluster after a fixed command sequence

  static Origin originA(long offsetMillis) {
    return new Origin("node-a", EPOCH_A, START + offsetMillis);
  }

  static Origin originB(long offsetMillis) {
    return new Origin("node-b", EPOCH_B, START + offsetMillis);
  }

  /**
   * The first commit: two byte-adjacent batches of producer 7 on stream 1 partition 0 (one index
   * entry), and a non-idempotent batch on stream 2 partition 1. Also retried by the test.
   */
  static CommitWal commit1(Origin origin) {
    return new CommitWal(
        origin,
        OBJECT_1,
        START + 6_500,
        1_000L,
        List.of(
            new ChunkCommit(
                1L,
                0,
                List.of(
                    new BatchCommit(0L, 100, 3, START + 6_100, 7L, (short) 0, 0),
                    new BatchCommit(100L, 80, 2, START + 6_200, 7L, (short) 0, 3))),
            new ChunkCommit(
                2L,
                1,
                List.of(new BatchCommit(300L, 120, 4, START + 6_300, -1L, (short) -1, -1)))));
  }

  /**
   * Applied at indexes 1..n. Result (asserted literally by the test): nodes node-a and node-b;
   * namespaces analytics and default; streams 1 default/orders (3 partitions) and 2
   * analytics/clicks (2 partitions), stream 3 created then deleted so nextStreamId is 4; producers
   * 7 (epoch 0) on 1/0 and 8 (epoch 2) on 1/2; dedupe records for both objects.
   */
  static List<Command> snapshotCommands() {
    return List.of(
        new RegisterNode(originA(0), "10.0.0.1:9092", 4, "az-1"),
        new RegisterNode(originB(1_000), "10.0.0.2:9092", 2, null),
        new CreateNamespace(originA(2_000), "analytics"),
        new CreateStream(
            originA(3_000),
            "default",
            "orders",
            new StreamConfig(
                3, DurabilityClass.EXPRESS, 604_800_000L, 1_073_741_824L, CleanupPolicy.DELETE)),
        new CreateStream(
            originB(4_000),
            "analytics",
            "clicks",
            new StreamConfig(2, DurabilityClass.QUORUM, -1L, 10_000_000L, CleanupPolicy.COMPACT)),
        new CreateStream(originA(5_000), "analytics", "scratch", StreamConfig.standard(1)),
        new DeleteStream(originA(6_000), "analytics", "scratch"),
        commit1(originA(7_000)),
        new CommitWal(
            originB(8_000),
            OBJECT_2,
            START + 7_500,
            2_000L,
            List.of(
                new ChunkCommit(
                    1L,
                    0,
                    List.of(
                        // Producer 7 continues at sequence 5, then retries its first batch.
                        new BatchCommit(0L, 90, 1, START + 7_100, 7L, (short) 0, 5),
                        new BatchCommit(90L, 100, 3, START + 6_100, 7L, (short) 0, 0))),
                new ChunkCommit(
                    1L,
                    2,
                    List.of(
                        // Not byte-adjacent: two index entries.
                        new BatchCommit(500L, 70, 2, START + 7_200, 8L, (short) 2, 0),
                        new BatchCommit(700L, 61, 1, START + 7_300, 8L, (short) 2, 2))),
                // The deleted stream: UNKNOWN_PARTITION, nothing appended.
                new ChunkCommit(
                    3L,
                    0,
                    List.of(new BatchCommit(1_000L, 61, 1, START + 7_400, -1L, (short) -1, -1))))));
  }

  static MetaStateMachine snapshotState() {
    return state(snapshotCommands());
  }

  static MetaStateMachine state(List<Command> commands) {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    long index = 0;
    for (Command c : commands) {
      Outcome o = m.apply(++index, c);
      if (o instanceof Outcome.Rejected r) {
        // The fixture is meant to succeed throughout; a rejection means it no longer builds the
        // state the golden file describes.
        throw new IllegalStateException("fixture command rejected index=" + index + " " + r);
      }
    }
    return m;
  }

  // ---- commands-v1-ext: tags 7..14, added to v1 after commands-v1 was written

  static final String SEGMENT = "segments/42/3/00000000000000001000.seg";

  static List<Command> commandsExt() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_789L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    return List.of(
        new SwapSegment(
            a,
            42L,
            3,
            1_000L,
            1_014L,
            List.of(
                new IndexEntry(1_000L, 10, OBJECT_1, 64L, 1_000, 1_779_999_999_001L),
                new IndexEntry(1_010L, 4, OBJECT_2, 0L, 500, 1_779_999_999_002L)),
            SEGMENT,
            1_780_000_000_500L,
            1_500L,
            List.of(
                new SwapSegment.SegmentEntry(10, 0L, 1_000, 1_779_999_999_001L),
                new SwapSegment.SegmentEntry(4, 1_000L, 500, 1_779_999_999_002L))),
        // No expected entries, no segment entries: empty counts.
        new SwapSegment(b, 7L, 0, 0L, 0L, List.of(), "segments/é.seg", -1L, 0L, List.of()),
        new TrimPartition(a, 42L, 3, 1_014L, TrimPartition.Reason.TIME),
        new TrimPartition(b, 5_000_000_000L, 9_999, Long.MAX_VALUE, TrimPartition.Reason.SIZE),
        new DeleteObjects(a, List.of(OBJECT_1, OBJECT_2, "wal/中.wal")),
        new DeleteObjects(b, List.of()),
        new AllocateProducerIds(a, 250),
        new AcquireConsumerLease(a, 42L, 3, "billing-app", "host-1.zone-b/pid 77", 30_000L),
        new CommitConsumerOffset(b, 5_000_000_000L, 9_999, "ünïcode", 3_000_000_000L, 1_014L),
        // Every field present, then each one alone.
        new UpdateStreamConfig(
            a, "analytics", "page-views", 604_800_000L, 5_368_709_120L, CleanupPolicy.COMPACT),
        new UpdateStreamConfig(b, "default", "orders", -1L, null, null),
        new UpdateStreamConfig(b, "default", "orders", null, -1L, null),
        new UpdateStreamConfig(b, "default", "orders", null, null, CleanupPolicy.DELETE),
        new AddPartitions(a, "analytics", "page-views", 10_000));
  }

  // ---- outcomes-v1-ext: outcome tags 7..14 and reason codes 9..10

  static final ConsumerLease LEASE =
      new ConsumerLease(
          42L, 3, "billing-app", 2L, "host-1.zone-b/pid 77", 30_000L, 1_780_000_030_789L, -1L);

  static List<Outcome> outcomesExt() {
    return List.of(
        new Outcome.Rejected(
            RejectReason.FENCED, "consumer lease is fenced consumer=billing-app generation=1"),
        new Outcome.Rejected(RejectReason.OUT_OF_RANGE, "offset out of range offset=99 hw=14"),
        new Outcome.SegmentSwapped(false, 2),
        new Outcome.SegmentSwapped(true, 0),
        new Outcome.Trimmed(1_014L, 2),
        new Outcome.ObjectsDeleted(3),
        new Outcome.ProducerIdsAllocated(9_000_000_000L, 250),
        new Outcome.ConsumerLeaseGranted(LEASE),
        new Outcome.ConsumerOffsetCommitted(
            new ConsumerLease(
                5_000_000_000L, 9_999, "ünïcode", 3_000_000_000L, "h", 1L, Long.MAX_VALUE, 1_014L)),
        new Outcome.StreamConfigUpdated(
            new StreamInfo(
                17L,
                "analytics",
                "page-views",
                new StreamConfig(
                    6, DurabilityClass.EXPRESS, 604_800_000L, -1L, CleanupPolicy.COMPACT))),
        new Outcome.PartitionsAdded(
            new StreamInfo(
                18L,
                "default",
                "orders",
                new StreamConfig(
                    12, DurabilityClass.QUORUM, -1L, 1_073_741_824L, CleanupPolicy.DELETE)),
            3));
  }

  // ---- snapshot-v2: retired objects

  static final String RETIRED_0 = "wal/standard/node-a/r0.wal";
  static final String RETIRED_1 = "wal/standard/node-a/r1.wal";
  static final String LIVE_2 = "wal/standard/node-a/r2.wal";

  static CommitWal retentionCommit(String key, int partition, long offsetMillis) {
    return new CommitWal(
        originA(offsetMillis),
        key,
        START + offsetMillis,
        1_000L,
        List.of(
            new ChunkCommit(
                1L,
                partition,
                List.of(new BatchCommit(0L, 100, 2, START + offsetMillis, -1L, (short) -1, -1)))));
  }

  /**
   * Result (asserted literally by the test): node-a; stream 1 default/events (2 partitions, 1 s
   * time retention); partition 0 trimmed to [4, 6) so that r0 and r1 were retired, r0's deletion
   * confirmed; r1 retired at START + 5000; partition 1 holds [0, 2) in r2.
   */
  static List<Command> snapshotV2Commands() {
    return List.of(
        new RegisterNode(originA(0), "10.0.0.1:9092", 4, "az-1"),
        new CreateStream(
            originA(100),
            "default",
            "events",
            new StreamConfig(2, DurabilityClass.STANDARD, 1_000L, -1L, CleanupPolicy.DELETE)),
        retentionCommit(RETIRED_0, 0, 1_000),
        retentionCommit(RETIRED_1, 0, 1_100),
        new CommitWal(
            originA(1_200),
            LIVE_2,
            START + 1_200,
            1_000L,
            List.of(
                new ChunkCommit(
                    1L,
                    0,
                    List.of(new BatchCommit(0L, 100, 2, START + 1_200, -1L, (short) -1, -1))),
                new ChunkCommit(
                    1L,
                    1,
                    List.of(new BatchCommit(100L, 100, 2, START + 1_200, -1L, (short) -1, -1))))),
        new TrimPartition(originA(5_000), 1L, 0, 4L, TrimPartition.Reason.TIME),
        new DeleteObjects(originA(6_000), List.of(RETIRED_0)));
  }

  // ---- snapshot-v3: producer ids, named consumers, and a grown, re-configured stream

  /**
   * The v2 sequence, then: 5 producer ids (0..4); events grown to 3 partitions and its size
   * retention set to 1 MiB; producer 3 appends 3 records to the new partition 2; consumer "billing"
   * takes a 30 s lease on 1/2 (generation 1) and commits offset 1; consumer "audit" takes a lease
   * on 1/0 and never commits.
   */
  static List<Command> snapshotV3Commands() {
    List<Command> out = new ArrayList<>(snapshotV2Commands());
    out.add(new AllocateProducerIds(originA(7_000), 5));
    out.add(new AddPartitions(originA(7_100), "default", "events", 3));
    out.add(new UpdateStreamConfig(originA(7_200), "default", "events", null, 1_048_576L, null));
    out.add(
        new CommitWal(
            originA(7_300),
            "wal/standard/node-a/r3.wal",
            START + 7_300,
            1_000L,
            List.of(
                new ChunkCommit(
                    1L,
                    2,
                    List.of(new BatchCommit(0L, 150, 3, START + 7_300, 3L, (short) 1, 0))))));
    out.add(new AcquireConsumerLease(originA(8_000), 1L, 2, "billing", "host-1", 30_000L));
    out.add(new CommitConsumerOffset(originA(8_100), 1L, 2, "billing", 1L, 1L));
    out.add(new AcquireConsumerLease(originA(8_200), 1L, 0, "audit", "host-2", 10_000L));
    return out;
  }

  // ---- commands-v1-ownership: tags 15..23, added to v1 with node liveness and stream ownership

  static final long EPOCH_C = START + 9_000;
  static final long EPOCH_D = START + 9_100;

  static List<Command> commandsOwnership() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_901L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    return List.of(
        new RenewNode(a),
        new RenewNode(b),
        new ExpireNode(a, "node-c", EPOCH_C, 30_000L),
        new ExpireNode(b, "nœud-ß", Long.MAX_VALUE, ExpireNode.MIN_TIMEOUT_MILLIS),
        new DeregisterNode(b),
        new SetNodeSlots(a, "node-b", SetNodeSlots.MAX_SLOTS),
        new SetNodeSlots(b, "nœud-ß", 0),
        new PlaceStream(a, 42L),
        new OpenStream(b, 5_000_000_000L),
        new CloseStream(a, 42L, 7L),
        new TransferStream(a, 42L, 7L, "nœud-ß"),
        // Wrappers of three owner-bound tags (8, 5, 13): the inner command is a whole encoding.
        new OwnerFenced(42L, 7L, new TrimPartition(a, 42L, 3, 1_014L, TrimPartition.Reason.SIZE)),
        new OwnerFenced(5_000_000_000L, 1L, new DeleteStream(b, "analytics", "page-views")),
        new OwnerFenced(
            42L,
            Long.MAX_VALUE,
            new UpdateStreamConfig(a, "default", "orders", null, 1_048_576L, null)));
  }

  // ---- outcomes-v1-ownership: outcome tags 15..16 and reason code 11

  static List<Outcome> outcomesOwnership() {
    return List.of(
        new Outcome.Rejected(
            RejectReason.NOT_OWNER, "not the owner stream=42 owner=node-b streamEpoch=7"),
        new Outcome.NodeStatusChanged(
            new NodeStatus("node-a", EPOCH_A, true, 1_780_000_009_300L), true, 0),
        new Outcome.NodeStatusChanged(new NodeStatus("nœud-ß", 9L, false, -1L), false, 70_000),
        new Outcome.OwnershipChanged(StreamOwnership.unplaced(5_000_000_000L), false),
        new Outcome.OwnershipChanged(
            new StreamOwnership(42L, State.PLACED, "node-b", EPOCH_B, 0L, null), true),
        new Outcome.OwnershipChanged(
            new StreamOwnership(42L, State.OPEN, "node-a", EPOCH_A, 7L, "nœud-ß"), true),
        new Outcome.OwnershipChanged(
            new StreamOwnership(42L, State.OPEN, "node-a", EPOCH_A, Long.MAX_VALUE, null), false),
        new Outcome.OwnershipChanged(
            new StreamOwnership(42L, State.CLOSED, null, 0L, 8L, null), true));
  }

  // ---- snapshot-v4: node liveness and stream ownership

  static Origin originC(long offsetMillis) {
    return new Origin("node-c", EPOCH_C, START + offsetMillis);
  }

  static Origin originD(long offsetMillis) {
    return new Origin("node-d", EPOCH_D, START + offsetMillis);
  }

  /**
   * The v3 sequence, then: node-b, node-c and node-d register; node-d deregisters and node-c is
   * expired by node-a (two dead nodes); node-a renews; node-b's slots become 3; node-a opens stream
   * 1 (placed on it), changes its retention under its stream epoch, and hands it to node-b (a
   * pending transfer); stream 2 "metrics" is placed on node-b (never opened); stream 3 "logs" is
   * placed on node-a, opened and closed.
   */
  static List<Command> snapshotV4Commands() {
    List<Command> out = new ArrayList<>(snapshotV3Commands());
    out.add(new RegisterNode(originB(9_000), "10.0.0.2:9092", 2, "az-2"));
    out.add(new RegisterNode(originC(9_050), "10.0.0.3:9092", 1, null));
    out.add(new RegisterNode(originD(9_100), null, 1, "az-4"));
    out.add(new DeregisterNode(originD(9_150)));
    out.add(new RenewNode(originA(9_300)));
    out.add(new SetNodeSlots(originA(9_400), "node-b", 3));
    out.add(new ExpireNode(originA(10_500), "node-c", EPOCH_C, 1_000L));
    out.add(new PlaceStream(originA(10_600), 1L));
    out.add(new OpenStream(originA(10_700), 1L));
    out.add(
        new OwnerFenced(
            1L,
            1L,
            new UpdateStreamConfig(originA(10_800), "default", "events", 2_000L, null, null)));
    out.add(new TransferStream(originA(10_900), 1L, 1L, "node-b"));
    out.add(new CreateStream(originA(11_000), "default", "metrics", StreamConfig.standard(1)));
    out.add(new PlaceStream(originA(11_100), 2L));
    out.add(new CreateStream(originA(11_200), "default", "logs", StreamConfig.standard(1)));
    out.add(new PlaceStream(originA(11_300), 3L));
    out.add(new OpenStream(originA(11_400), 3L));
    out.add(new CloseStream(originA(11_500), 3L, 1L));
    return out;
  }

  // ---- commands-v1-cluster and outcomes-v1-cluster: command tag 24, outcome tag 17

  /** A ULID: what the node runtime draws as a cluster id. */
  static final String CLUSTER_ID = "01J0GXQ2E4KX9V0M3N5P6R8S9T";

  /** The longest valid id, every character class of the alphabet once. */
  static final String CLUSTER_ID_64 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

  static List<Command> commandsCluster() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_950L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    return List.of(
        new InitCluster(a, CLUSTER_ID),
        new InitCluster(b, "A"),
        new InitCluster(a, CLUSTER_ID_64),
        // The codec carries what the state machine refuses.
        new InitCluster(b, ""));
  }

  static List<Outcome> outcomesCluster() {
    return List.of(
        new Outcome.ClusterInitialized(CLUSTER_ID), new Outcome.ClusterInitialized(CLUSTER_ID_64));
  }

  // ---- snapshot-v5: the cluster id

  /**
   * The v1 sequence, then node-a records {@link #CLUSTER_ID} and node-b proposes another id, which
   * changes nothing (first proposer wins). No retired objects, producer ids, consumers or ownership
   * activity: the v2..v4 sections are written empty.
   */
  static List<Command> snapshotV5Commands() {
    List<Command> out = new ArrayList<>(snapshotCommands());
    out.add(new InitCluster(originA(9_000), CLUSTER_ID));
    out.add(new InitCluster(originB(9_100), "another-cluster"));
    return out;
  }

  // ---- frames (test-only container, see the class comment)

  static byte[] frame(Stream<byte[]> payloads) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    payloads.forEach(
        p -> {
          out.writeBytes(ByteBuffer.allocate(4).putInt(p.length).array());
          out.writeBytes(p);
        });
    return out.toByteArray();
  }

  static List<byte[]> unframe(byte[] file) {
    ByteBuffer buf = ByteBuffer.wrap(file);
    List<byte[]> out = new ArrayList<>();
    while (buf.hasRemaining()) {
      if (buf.remaining() < 4) {
        throw new CorruptionException("golden frame: truncated length position=" + buf.position());
      }
      int len = buf.getInt();
      if (len < 0 || len > buf.remaining()) {
        throw new CorruptionException(
            "golden frame: bad length length=" + len + " position=" + buf.position());
      }
      byte[] p = new byte[len];
      buf.get(p);
      out.add(p);
    }
    return out;
  }
}
