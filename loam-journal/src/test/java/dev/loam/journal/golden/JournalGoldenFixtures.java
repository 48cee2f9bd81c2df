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
  static final String SNAPSHOT_V2 = "journal-snapshot-v2.bin";

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

  /**
   * Partition 3 hosted at 0 with 20 one-record segments sealed (0..19, the journal keeps the newest
   * 16: 4..19) and one record in the tail at 20; partition 0 hosted at 0 with one segment: a
   * version 2 snapshot with one partition's pointers starting above its start offset and one
   * complete.
   */
  static JournalState snapshotV2State() {
    JournalState s = new JournalState(1 << 20);
    s.apply(new JournalEntry.Host(STREAM, PARTITION, 0));
    for (int i = 0; i < 20; i++) {
      s.apply(new JournalEntry.Append(STREAM, PARTITION, Batches.plain("s" + i, 1)));
      s.apply(
          new JournalEntry.Seal(
              STREAM, PARTITION, new SegmentPointer(i, i + 1, String.format("seg/42/3/%02d", i))));
    }
    s.apply(new JournalEntry.Append(STREAM, PARTITION, Batches.plain("tail", 1)));
    s.apply(new JournalEntry.Host(STREAM, 0, 0));
    s.apply(new JournalEntry.Append(STREAM, 0, Batches.plain("p0", 1)));
    s.apply(new JournalEntry.Seal(STREAM, 0, new SegmentPointer(0, 1, "seg/42/0/00")));
    return s;
  }
}
