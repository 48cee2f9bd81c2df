package dev.loam.journal.entry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.journal.Batches;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Round trip, corruption and truncation of the journal entry format (journal-entry-v1.md). */
class JournalEntryCodecPropertyTest {
  @Provide
  static Arbitrary<JournalEntry> entries() {
    Arbitrary<Long> stream = Arbitraries.longs().between(0, Long.MAX_VALUE);
    Arbitrary<Integer> partition = Arbitraries.integers().between(0, Integer.MAX_VALUE);
    Arbitrary<JournalEntry> host =
        Combinators.combine(stream, partition, Arbitraries.longs().between(0, Long.MAX_VALUE))
            .as(JournalEntry.Host::new);
    Arbitrary<JournalEntry> append =
        Combinators.combine(
                stream,
                partition,
                Arbitraries.longs().between(-1, 1000),
                Arbitraries.integers().between(1, 20),
                Arbitraries.strings().ofMaxLength(10))
            .as(
                (s, p, pid, n, tag) ->
                    new JournalEntry.Append(
                        s,
                        p,
                        pid < 0
                            ? Batches.plain(tag, n)
                            : Batches.batch(pid, (short) 0, 0, tag, n)));
    Arbitrary<JournalEntry> seal =
        Combinators.combine(
                stream,
                partition,
                Arbitraries.longs().between(0, 1L << 40),
                Arbitraries.longs().between(1, 1L << 20),
                Arbitraries.strings().ofMinLength(1).ofMaxLength(200))
            .as(
                (s, p, base, len, key) ->
                    new JournalEntry.Seal(s, p, new SegmentPointer(base, base + len, key)));
    Arbitrary<JournalEntry> release =
        Combinators.combine(stream, partition, Arbitraries.longs().between(0, Long.MAX_VALUE))
            .as(JournalEntry.Release::new);
    return Arbitraries.oneOf(host, append, seal, release);
  }

  @Property(tries = 300)
  void roundTrips(@ForAll("entries") JournalEntry e) {
    byte[] bytes = JournalEntryCodec.encode(e);
    JournalEntry back = JournalEntryCodec.decode(bytes);
    assertThat(JournalEntryCodec.encode(back)).isEqualTo(bytes);
    assertThat(back.streamId()).isEqualTo(e.streamId());
    assertThat(back.partition()).isEqualTo(e.partition());
    if (e instanceof JournalEntry.Append a) {
      assertThat(((JournalEntry.Append) back).batch()).isEqualTo(a.batch());
    } else {
      assertThat(back).isEqualTo(e);
    }
  }

  @Property(tries = 300)
  void everySingleByteChangeIsDetected(
      @ForAll("entries") JournalEntry e,
      @ForAll @IntRange(min = 0, max = 1 << 20) int where,
      @ForAll @IntRange(min = 1, max = 255) int flip) {
    byte[] bytes = JournalEntryCodec.encode(e);
    bytes[where % bytes.length] ^= (byte) flip;
    assertThatThrownBy(() -> JournalEntryCodec.decode(bytes))
        .isInstanceOf(CorruptionException.class)
        .hasMessageStartingWith("journal entry:");
  }

  @Property(tries = 200)
  void truncationIsDetected(
      @ForAll("entries") JournalEntry e, @ForAll @IntRange(min = 0, max = 1 << 20) int cut) {
    byte[] bytes = JournalEntryCodec.encode(e);
    byte[] shorter = Arrays.copyOf(bytes, cut % bytes.length);
    assertThatThrownBy(() -> JournalEntryCodec.decode(shorter))
        .isInstanceOf(CorruptionException.class);
  }

  /** Random bodies behind a valid header and CRC reach every body check. */
  @Property(tries = 1000)
  void arbitraryBodiesWithAValidCrcOnlyEverFailAsCorruption(
      @ForAll @IntRange(min = 0, max = 5) int type, @ForAll byte[] body) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(JournalEntryCodec.OVERHEAD + body.length);
    b.putInt(JournalEntryCodec.MAGIC)
        .putShort((short) 1)
        .put((byte) type)
        .put((byte) 0)
        .putLong(3)
        .putInt(0)
        .putInt(body.length)
        .put(body);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    try {
      JournalEntryCodec.decode(b.array());
    } catch (CorruptionException expected) {
      // the only failure allowed
    }
  }

  @Property(tries = 500)
  void arbitraryBytesOnlyEverFailAsCorruption(@ForAll byte[] bytes) {
    try {
      JournalEntryCodec.decode(bytes);
    } catch (CorruptionException expected) {
      // the only failure allowed
    }
  }
}
