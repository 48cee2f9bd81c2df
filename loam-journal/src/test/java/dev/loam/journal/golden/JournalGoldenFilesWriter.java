package dev.loam.journal.golden;

import dev.loam.journal.entry.JournalEntryCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the journal golden files. Run by hand only when adding a NEW format version (never to
 * "fix" a failing golden test: that is a compatibility break):
 *
 * <pre>
 * mvn -o -pl loam-journal test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * java -cp loam-journal/target/test-classes:loam-journal/target/classes:$(cat loam-journal/cp.txt) \
 *   dev.loam.journal.golden.JournalGoldenFilesWriter
 * </pre>
 */
public final class JournalGoldenFilesWriter {
  private JournalGoldenFilesWriter() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "loam-journal/src/test/resources/golden");
    Files.createDirectories(dir);
    Files.write(
        dir.resolve(JournalGoldenFixtures.ENTRY_HOST),
        JournalEntryCodec.encode(JournalGoldenFixtures.host()));
    Files.write(
        dir.resolve(JournalGoldenFixtures.ENTRY_APPEND),
        JournalEntryCodec.encode(JournalGoldenFixtures.append()));
    Files.write(
        dir.resolve(JournalGoldenFixtures.ENTRY_SEAL),
        JournalEntryCodec.encode(JournalGoldenFixtures.seal()));
    Files.write(
        dir.resolve(JournalGoldenFixtures.ENTRY_RELEASE),
        JournalEntryCodec.encode(JournalGoldenFixtures.release()));
    Files.write(
        dir.resolve(JournalGoldenFixtures.SNAPSHOT),
        JournalGoldenFixtures.snapshotState().snapshot());
    Files.write(
        dir.resolve(JournalGoldenFixtures.SNAPSHOT_V2),
        JournalGoldenFixtures.snapshotV2State().snapshot());
  }
}
