package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.GroupInfo;
import dev.loam.meta.command.GroupOffset;
import dev.loam.meta.command.GroupPartition;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.StreamConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the consumer groups' golden files: command tags 28–30, outcome tag 21 and
 * snapshot version 8 (metastore-commands.md, metastore-snapshot.md).
 */
final class MetaGoldenFixturesGroups {
  static final String COMMANDS_V1_GROUPS = "metastore-commands-v1-groups.bin";
  static final String OUTCOMES_V1_GROUPS = "outcomes-v1-groups.bin";
  static final String SNAPSHOT_V8 = "metastore-snapshot-v8.bin";

  /** A group id with multi-byte UTF-8 and a character no stream name allows. */
  static final String WIDE_GROUP = "grüppe 中";

  private MetaGoldenFixturesGroups() {}

  /**
   * Tag 28; tag 29 with a generation, multi-byte metadata and both leader epochs, and without a
   * generation (-1) with a wide group id; tag 30 partial and whole; tag 29 inside OwnerFenced.
   */
  static List<Command> commandsGroups() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_988L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    CommitGroupOffsets commit =
        new CommitGroupOffsets(
            a,
            41L,
            "default",
            "orders-app",
            7,
            List.of(
                new GroupOffset(1L, 0, 1_234L, 5, "from host-1 ✓"),
                new GroupOffset(1L, 2, Long.MAX_VALUE, -1, "")));
    return List.of(
        new AdvanceGroupGeneration(a, 41L, "default", "orders-app", 7),
        commit,
        new CommitGroupOffsets(
            b, 42L, "analytics", WIDE_GROUP, -1, List.of(new GroupOffset(2L, 1, 0L, -1, ""))),
        new DeleteGroupOffsets(
            a, 41L, "default", "orders-app", false, List.of(new GroupPartition(1L, 2))),
        new DeleteGroupOffsets(b, 42L, "analytics", WIDE_GROUP, true, List.of()),
        new OwnerFenced(41L, 3L, commit));
  }

  /** Outcome tag 21: a group with a record, and one without (generation 0, no offsets). */
  static List<Outcome> outcomesGroups() {
    return List.of(
        new Outcome.GroupChanged("default", "orders-app", 7, 2),
        new Outcome.GroupChanged("analytics", WIDE_GROUP, 0, 0));
  }

  /** The coordinator stream ids the v8 sequence creates (after the v1 sequence's 1..3). */
  static final long ORDERS_COORDINATOR = 4L;

  static final long WIDE_COORDINATOR = 5L;

  /**
   * The v1 sequence, then: the coordinator namespace and the coordinator streams of {@code
   * default/orders-app} (id 4) and {@code analytics/}{@link #WIDE_GROUP} (id 5); orders-app at
   * generation 3 committing partitions 0 and 2 of stream 1, then deleting partition 2's offset; the
   * wide group committing stream 2 partition 1 without a generation.
   */
  static List<Command> snapshotV8Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(new CreateNamespace(originA(9_000), GroupInfo.COORDINATOR_NAMESPACE));
    out.add(
        new CreateStream(
            originA(9_100),
            GroupInfo.COORDINATOR_NAMESPACE,
            GroupInfo.coordinatorStreamName("default", "orders-app"),
            StreamConfig.standard(1)));
    out.add(
        new CreateStream(
            originB(9_200),
            GroupInfo.COORDINATOR_NAMESPACE,
            GroupInfo.coordinatorStreamName("analytics", WIDE_GROUP),
            StreamConfig.standard(1)));
    out.add(
        new AdvanceGroupGeneration(originA(9_300), ORDERS_COORDINATOR, "default", "orders-app", 3));
    out.add(
        new CommitGroupOffsets(
            originA(9_400),
            ORDERS_COORDINATOR,
            "default",
            "orders-app",
            3,
            List.of(new GroupOffset(1L, 0, 4L, 0, "m1"), new GroupOffset(1L, 2, 2L, -1, ""))));
    out.add(
        new CommitGroupOffsets(
            originB(9_500),
            WIDE_COORDINATOR,
            "analytics",
            WIDE_GROUP,
            -1,
            List.of(new GroupOffset(2L, 1, 1L, -1, "é"))));
    out.add(
        new DeleteGroupOffsets(
            originA(9_600),
            ORDERS_COORDINATOR,
            "default",
            "orders-app",
            false,
            List.of(new GroupPartition(1L, 2))));
    return out;
  }
}
