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

  /**
   * Long enough runs of append-then-seal on one partition that the journal drops its oldest
   * pointers (more than {@link PartitionJournal#KEPT_SEGMENT_POINTERS} seals), between random ops.
   */
  @Provide
  static Arbitrary<List<Op>> sealHeavy() {
    return net.jqwik.api.Combinators.combine(
            ops(),
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(17, 40),
            ops())
        .as(
            (before, partition, seals, after) -> {
              List<Op> all = new ArrayList<>(before);
              all.add(new Op(0, partition, 0, 0, 1));
              for (int i = 0; i < seals; i++) {
                all.add(new Op(1, partition, 0, 0, 1 + i % 3));
                all.add(new Op(3, partition, 0, 0, 1));
              }
              all.addAll(after);
              return all;
            });
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
  void restoreOfAStateThatDroppedPointersGivesTheSameStateAndAnswers(
      @ForAll("sealHeavy") List<Op> ops, @ForAll("sealHeavy") List<Op> more) {
    restoreGivesTheSameStateAndAnswers(ops, more);
  }

  /** The newest pointers stay, in order, ending at the sealed offset; older offsets read empty. */
  @Property(tries = 200)
  void aPartitionKeepsItsNewestPointersOnly(@ForAll("sealHeavy") List<Op> ops) {
    JournalState s = build(ops);
    byte[] snap = s.snapshot();
    boolean dropped = false;
    for (var e : s.partitions.entrySet()) {
      PartitionJournal p = e.getValue();
      assertThat(p.segments).hasSizeLessThanOrEqualTo(PartitionJournal.KEPT_SEGMENT_POINTERS);
      if (p.segments.isEmpty()) {
        assertThat(p.sealedOffset).isEqualTo(p.startOffset);
        continue;
      }
      assertThat(p.segments.get(p.segments.size() - 1).endOffset()).isEqualTo(p.sealedOffset);
      long first = p.segments.get(0).baseOffset();
      if (first > p.startOffset) {
        dropped = true;
        assertThat(p.segments).hasSize(PartitionJournal.KEPT_SEGMENT_POINTERS);
        JournalRead below =
            s.read(e.getKey().streamId(), e.getKey().partition(), first - 1, 1 << 20);
        assertThat(below.segment()).isEmpty();
        assertThat(below.batches()).isEmpty();
        assertThat(below.sealedOffset()).isEqualTo(p.sealedOffset);
      }
      for (SegmentPointer sp : p.segments) {
        assertThat(
                s.read(e.getKey().streamId(), e.getKey().partition(), sp.baseOffset(), 1 << 20)
                    .segment())
            .contains(sp);
      }
    }
    assertThat(java.nio.ByteBuffer.wrap(snap).getShort(4))
        .as("version")
        .isEqualTo((short) (dropped ? 2 : 1));
  }

  @Property(tries = 200)
  void everySingleByteChangeOfAVersion2SnapshotIsDetected(
      @ForAll("sealHeavy") List<Op> ops,
      @ForAll @IntRange(min = 0, max = 1 << 20) int where,
      @ForAll @IntRange(min = 1, max = 255) int flip) {
    everySingleByteChangeIsDetected(ops, where, flip);
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

  /** The same behind a version 2 header. */
  @Property(tries = 1000)
  void arbitraryVersion2BodiesWithAValidCrcOnlyEverFailAsCorruption(@ForAll byte[] body) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + body.length + 4);
    b.putInt(JournalSnapshotCodec.MAGIC).putShort((short) 2).putShort((short) 0).put(body);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    try {
      JournalState.restore(b.array(), MAX);
    } catch (CorruptionException expected) {
      // the only failure allowed
    }
  }

  /** A version 2 snapshot of a state that dropped no pointer is not the state's one encoding. */
  @Property(tries = 100)
  void version2WithEveryPointerListCompleteIsRefused(@ForAll("ops") List<Op> ops) {
    byte[] snap = build(ops).snapshot();
    java.nio.ByteBuffer.wrap(snap).putShort(4, (short) 2);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(snap, 0, snap.length - 4);
    java.nio.ByteBuffer.wrap(snap).putInt(snap.length - 4, (int) crc.getValue());
    assertThatThrownBy(() -> JournalState.restore(snap, MAX))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("version 2");
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
