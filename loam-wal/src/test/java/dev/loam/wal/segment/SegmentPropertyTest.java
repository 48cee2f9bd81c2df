package dev.loam.wal.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import dev.loam.wal.batch.BatchArbitraries;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class SegmentPropertyTest {
  /** One index entry: one or more batches, each a list of records. */
  record Entry(List<List<RecordData>> batches) {}

  record Input(long streamId, int partition, long baseOffset, List<Entry> entries) {}

  static Arbitrary<Input> inputs(int maxEntries, int maxRecords) {
    Arbitrary<Entry> entry =
        BatchArbitraries.recordLists(maxRecords).list().ofMinSize(1).ofMaxSize(3).map(Entry::new);
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.integers().between(0, 10_000),
            Arbitraries.longs().between(0, Long.MAX_VALUE / 4),
            entry.list().ofMinSize(1).ofMaxSize(maxEntries))
        .as(Input::new);
  }

  /** Encodes an entry's batches with a bogus stored baseOffset the builder must overwrite. */
  static byte[] entryBytes(Entry e) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (List<RecordData> records : e.batches()) {
      out.writeBytes(RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), records));
    }
    return out.toByteArray();
  }

  static Segment build(Input in) {
    SegmentBuilder b = new SegmentBuilder(in.streamId(), in.partition(), in.baseOffset());
    long offset = in.baseOffset();
    for (Entry e : in.entries()) {
      b.addEntry(offset, entryBytes(e));
      for (List<RecordData> r : e.batches()) {
        offset += r.size();
      }
    }
    return b.build();
  }

  @Provide
  Arbitrary<Input> segments() {
    return inputs(8, 5);
  }

  @Provide
  Arbitrary<Input> smallSegments() {
    return inputs(2, 2);
  }

  @Property(tries = 200)
  void roundTrip(@ForAll("segments") Input in) {
    Segment s = build(in);
    Segment p = SegmentReader.parse(s.bytes());
    assertThat(p.streamId()).isEqualTo(in.streamId());
    assertThat(p.partition()).isEqualTo(in.partition());
    assertThat(p.baseOffset()).isEqualTo(in.baseOffset());
    assertThat(p.batches()).isEqualTo(s.batches());
    // Every batch decodes to its original records at its assigned offsets.
    List<List<RecordData>> expected = new ArrayList<>();
    in.entries().forEach(e -> expected.addAll(e.batches()));
    assertThat(p.batches()).hasSize(expected.size());
    long offset = in.baseOffset();
    for (int i = 0; i < expected.size(); i++) {
      SegmentBatch b = p.batches().get(i);
      RecordBatch rb =
          RecordBatch.readFrom(ByteBuffer.wrap(s.bytes(), (int) b.position(), b.length()).slice());
      assertThat(rb.baseOffset()).isEqualTo(offset);
      assertThat(rb.records().stream().map(r -> r.toData()).toList()).isEqualTo(expected.get(i));
      offset += expected.get(i).size();
    }
    assertThat(p.endOffset()).isEqualTo(offset);
    // A tail read of exactly the required length gives the same index.
    SegmentReader.SegmentFooter f = SegmentReader.parseFooter(s.bytes(), s.size());
    int need = (int) SegmentReader.requiredTailLength(f, s.size());
    byte[] tail = Arrays.copyOfRange(s.bytes(), s.size() - need, s.size());
    assertThat(SegmentReader.parseIndex(tail, s.size())).isEqualTo(s.batches());
  }

  @Property(tries = 30)
  void everySingleByteCorruptionIsDetected(@ForAll("smallSegments") Input in, @ForAll byte mask) {
    byte flip = mask == 0 ? (byte) 0x80 : mask;
    byte[] bytes = build(in).bytes();
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= flip;
      int at = i;
      Throwable t = catchThrowable(() -> SegmentReader.parse(bad));
      assertThat(t)
          .as("flip at byte %d of %d", at, bytes.length)
          .isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 30)
  void everyTruncationIsDetected(@ForAll("smallSegments") Input in) {
    byte[] bytes = build(in).bytes();
    for (int len = 0; len < bytes.length; len++) {
      byte[] prefix = Arrays.copyOf(bytes, len);
      int at = len;
      Throwable t = catchThrowable(() -> SegmentReader.parse(prefix));
      assertThat(t).as("prefix %d", at).isInstanceOf(CorruptionException.class);
    }
  }
}
