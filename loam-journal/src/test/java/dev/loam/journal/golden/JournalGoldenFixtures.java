package dev.loam.journal.golden;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.state.JournalState;

/** The content of the journal golden files; the writer and the test share it. */
final class JournalGoldenFixtures {
  static final String ENTRY_HOST = "journal-entry-v1-host.bin";
  static final String ENTRY_APPEND = "journal-entry-v1-append.bin";
  static final String ENTRY_SEAL = "journal-entry-v1-seal.bin";
  static final String ENTRY_RELEASE = "journal-entry-v1-release.bin";
  static final String SNAPSHOT = "journal-snapshot-v1.bin";

  static final long STREAM = 42;
  static final int PARTITION = 3;

  private JournalGoldenFixtures() {}

  static JournalEntry.Host host() {
    return new JournalEntry.Host(STREAM, PARTITION, 100);
  }

  /** Producer 4242 epoch 3, sequences 17..19, values golden-0..2. */
  static JournalEntry.Append append() {
    return new JournalEntry.Append(
        STREAM, PARTITION, Batches.batch(4242, (short) 3, 17, "golden", 3));
  }

  static JournalEntry.Seal seal() {
    return new JournalEntry.Seal(
        STREAM, PARTITION, new SegmentPointer(100, 103, "ns/1/seg/42/3/00000000000000000100.seg"));
  }

  static JournalEntry.Release release() {
    return new JournalEntry.Release(STREAM, PARTITION, 103);
  }

  /**
   * Host at 100, append 3 (100..102), seal them, append a plain batch of 2 (103..104) and a second
   * partition hosted at 0 with one batch: segment pointers, a tail, producers, two partitions.
   */
  static JournalState snapshotState() {
    JournalState s = new JournalState(1 << 20);
    s.apply(host());
    s.apply(append());
    s.apply(seal());
    s.apply(new JournalEntry.Append(STREAM, PARTITION, Batches.plain("tail", 2)));
    s.apply(new JournalEntry.Host(STREAM, 0, 0));
    s.apply(new JournalEntry.Append(STREAM, 0, Batches.batch(7, (short) 0, 0, "p0", 1)));
    return s;
  }
}
