package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AddStreamSchema;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateArrowStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.StreamConfig;
import dev.loam.wal.batch.Compression;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the arrow stream schema golden files: command tags 44–45, outcome tag 30 and
 * snapshot version 12 (metastore-commands.md, metastore-snapshot.md).
 */
final class MetaGoldenFixturesSchemas {
  static final String COMMANDS_V1_SCHEMAS = "metastore-commands-v1-schemas.bin";
  static final String OUTCOMES_V1_SCHEMAS = "outcomes-v1-schemas.bin";
  static final String SNAPSHOT_V12 = "metastore-snapshot-v12.bin";

  static final String V1 =
      "{\"fields\":[{\"name\":\"id\",\"nullable\":false,"
          + "\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]}]}";
  static final String V2 =
      "{\"fields\":[{\"name\":\"id\",\"nullable\":false,"
          + "\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]},"
          + "{\"name\":\"note\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}";

  private MetaGoldenFixturesSchemas() {}

  /** Tag 44 and tag 45. */
  static List<Command> commandsSchemas() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_988L);
    return List.of(
        new CreateArrowStream(
            a,
            "analytics",
            "metrics",
            StreamConfig.standard(2).withCompression(Compression.ZSTD),
            V1),
        new AddStreamSchema(new Origin("nœud-ß", 9L, -5L), "analytics", "metrics", 1, V2));
  }

  /** Tag 30. */
  static List<Outcome> outcomesSchemas() {
    return List.of(new Outcome.SchemaAdded(4L, 2));
  }

  /**
   * The v1 sequence (streams 1 default/orders, 2 analytics/clicks, 3 deleted), then arrow stream 4
   * analytics/metrics with schema versions 1 and 2, and arrow stream 5 default/gauges with one.
   */
  static List<Command> snapshotV12Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(
        new CreateArrowStream(
            originA(11_000), "analytics", "metrics", StreamConfig.standard(2), V1));
    out.add(new AddStreamSchema(originA(11_100), "analytics", "metrics", 1, V2));
    out.add(
        new CreateArrowStream(originB(11_200), "default", "gauges", StreamConfig.standard(1), V1));
    return out;
  }
}
