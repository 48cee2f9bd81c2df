package dev.loam.journal.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Snapshots (journal-snapshot-v1.md): a restored state is the same state (same bytes, same answers
 * to later entries); any single-byte change or truncation is detected.
 */
class JournalSnapshotPropertyTest {
  static final long MAX = 1 << 24;

  /** An operation: 0 host, 1 append plain, 2 append idempotent, 3 seal the oldest tail batch. */
  record Op(int kind, int partition, int producer, int seq, int count) {}

  @Provide
  static Arbitrary<List<Op>> ops() {
    return Arbitraries.integers()
        .between(0, 3)
        .flatMap(
            k ->
                net.jqwik.api.Combinators.combine(
                        Arbitraries.integers().between(0, 2),
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.integers().between(0, 6),
                        Arbitraries.integers().between(1, 4))
                    .as((p, pr, seq, n) -> new Op(k, p, pr, seq, n)))
        .list()
        .ofMaxSize(40);
  }

  static JournalEntry entry(JournalState s, Op op) {
    return switch (op.kind()) {
      case 0 -> new JournalEntry.Host(1, op.partition(), op.partition() * 1000L);
      case 1 -> new JournalEntry.Append(1, op.partition(), Batches.plain("p", op.count()));
      case 2 ->
          new JournalEntry.Append(
              1,
              op.partition(),
              Batches.batch(op.producer(), (short) 0, op.seq(), "i", op.count()));
      default -> {
        PartitionJournal p = s.partitions.get(new JournalState.PartitionKey(1, op.partition()));
        long base = p == null ? 0 : p.sealedOffset;
        long end = p == null || p.tail.isEmpty() ? base + 1 : p.tail.get(0).endOffset();
        yield new JournalEntry.Seal(
            1, op.partition(), new SegmentPointer(base, end, "seg/" + op.partition() + "/" + base));
      }
    };
  }

  static JournalState build(List<Op> ops) {
    JournalState s = new JournalState(MAX);
    for (Op op : ops) {
      s.apply(entry(s, op));
    }
    return s;
  }

  @Property(tries = 200)
  void restoreGivesTheSameStateAndAnswers(
      @ForAll("ops") List<Op> ops, @ForAll("ops") List<Op> more) {
    JournalState a = build(ops);
    byte[] snap = a.snapshot();
    JournalState b = JournalState.restore(snap, MAX);
    assertThat(b.snapshot()).isEqualTo(snap);
    assertThat(b.appliedEntries()).isEqualTo(a.appliedEntries());
    assertThat(b.unsealedBytes()).isEqualTo(a.unsealedBytes());
    List<JournalResult> ra = new ArrayList<>();
    List<JournalResult> rb = new ArrayList<>();
    for (Op op : more) {
      JournalEntry e = entry(a, op);
      ra.add(a.apply(e));
      rb.add(b.apply(e));
    }
    assertThat(rb).isEqualTo(ra);
    assertThat(b.snapshot()).isEqualTo(a.snapshot());
  }

  @Property(tries = 200)
  void everySingleByteChangeIsDetected(
      @ForAll("ops") List<Op> ops,
      @ForAll @IntRange(min = 0, max = 1 << 20) int where,
      @ForAll @IntRange(min = 1, max = 255) int flip) {
    byte[] snap = build(ops).snapshot();
    snap[where % snap.length] ^= (byte) flip;
    assertThatThrownBy(() -> JournalState.restore(snap, MAX))
        .isInstanceOf(CorruptionException.class)
        .hasMessageStartingWith("journal snapshot:");
  }

  @Property(tries = 200)
  void truncationIsDetected(
      @ForAll("ops") List<Op> ops, @ForAll @IntRange(min = 0, max = 1 << 20) int cut) {
    byte[] snap = build(ops).snapshot();
    byte[] shorter = Arrays.copyOf(snap, cut % snap.length);
    assertThatThrownBy(() -> JournalState.restore(shorter, MAX))
        .isInstanceOf(CorruptionException.class);
  }

  /** Random bodies behind a valid header and CRC reach every structural check. */
  @Property(tries = 1000)
  void arbitraryBodiesWithAValidCrcOnlyEverFailAsCorruption(@ForAll byte[] body) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + body.length + 4);
    b.putInt(JournalSnapshotCodec.MAGIC).putShort((short) 1).putShort((short) 0).put(body);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    try {
      JournalState.restore(b.array(), MAX);
    } catch (CorruptionException expected) {
      // the only failure allowed
    }
  }

  @Property(tries = 300)
  void arbitraryBytesOnlyEverFailAsCorruption(@ForAll byte[] bytes) {
    try {
      JournalState.restore(bytes, MAX);
    } catch (CorruptionException expected) {
      // the only failure allowed
    }
  }
}
