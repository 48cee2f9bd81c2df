package dev.loam.wal.golden;

import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.KafkaInteropTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden files. Run by hand only when adding a NEW format version (never to "fix" a
 * failing golden test: a failing golden test means a compatibility break):
 *
 * <pre>
 * mvn -o -pl loam-wal test-compile
 * java -cp loam-wal/target/test-classes:loam-wal/target/classes:&lt;zstd-jni, snappy-java, lz4-java,
 *   kafka-clients, slf4j-api jars&gt; dev.loam.wal.golden.GoldenFilesWriter
 * </pre>
 *
 * or run {@code main} from an IDE. The optional argument is the output directory.
 */
public final class GoldenFilesWriter {
  private GoldenFilesWriter() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "loam-wal/src/test/resources/golden");
    Files.createDirectories(dir);
    Files.write(dir.resolve(GoldenFixtures.BATCH_NONE), GoldenFixtures.batchNone());
    // The compressed goldens are kafka-clients' own output: they pin our decoders to Kafka's
    // framing of each codec.
    Files.write(
        dir.resolve(GoldenFixtures.BATCH_ZSTD),
        KafkaInteropTest.kafkaEncode(
            GoldenFixtures.settings(Compression.ZSTD), GoldenFixtures.records()));
    Files.write(
        dir.resolve(GoldenFixtures.BATCH_GZIP),
        KafkaInteropTest.kafkaEncode(
            GoldenFixtures.settings(Compression.GZIP), GoldenFixtures.records()));
    Files.write(
        dir.resolve(GoldenFixtures.BATCH_SNAPPY),
        KafkaInteropTest.kafkaEncode(
            GoldenFixtures.settings(Compression.SNAPPY), GoldenFixtures.records()));
    Files.write(
        dir.resolve(GoldenFixtures.BATCH_LZ4),
        KafkaInteropTest.kafkaEncode(
            GoldenFixtures.settings(Compression.LZ4), GoldenFixtures.records()));
    Files.write(dir.resolve(GoldenFixtures.WAL_V1), GoldenFixtures.walObject().bytes());
    Files.write(dir.resolve(GoldenFixtures.SEGMENT_V1), GoldenFixtures.segment().bytes());
    Files.write(dir.resolve(GoldenFixtures.WAL_V2), GoldenFixtures.walObjectV2().bytes());
    Files.write(dir.resolve(GoldenFixtures.SEGMENT_V2), GoldenFixtures.segmentV2().bytes());
  }
}
