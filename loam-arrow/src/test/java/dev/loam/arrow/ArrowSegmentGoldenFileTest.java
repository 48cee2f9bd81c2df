package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.arrow.format.ColumnIndex;
import dev.loam.core.arrow.ArrowCodec;
import dev.loam.error.CorruptionException;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentBuilder;
import dev.loam.wal.segment.SegmentReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checked-in golden arrow segment of docs/formats/arrow-batch-v1.md ("Column index"): segment
 * v1 with encoding 1 ARROW holding the golden frame twice (stream 7, partition 0, offsets 100 and
 * 103), its batch index followed by the column index. Must keep decoding forever; today's builder
 * must write the same bytes. Run with {@code -Dloam.arrow.golden.write=<dir>} to write it anew.
 */
class ArrowSegmentGoldenFileTest {
  static final String SEGMENT = "arrow-segment-v1.bin";

  static byte[] segmentNow() throws IOException {
    byte[] frame = ArrowGoldenFilesTest.golden(ArrowGoldenFilesTest.FRAME);
    LoamArrowCodec codec = new LoamArrowCodec();
    SegmentBuilder b = SegmentBuilder.arrow(7, 0, 100);
    for (long base : new long[] {100, 103}) {
      List<SegmentBuilder.Frame> frames = new ArrayList<>();
      for (ArrowCodec.FrameSummary f : codec.frames(ByteBuffer.wrap(frame))) {
        frames.add(new SegmentBuilder.Frame(f.size(), f.recordCount(), f.maxTimestamp()));
      }
      b.addFrames(base, frame, frames);
    }
    return b.build(codec.columnIndex(b.dataRegion())).bytes();
  }

  @Test
  void writeWhenAsked() throws IOException {
    String dir = System.getProperty("loam.arrow.golden.write");
    if (dir != null) {
      Files.write(Path.of(dir, SEGMENT), segmentNow());
    }
  }

  @Test
  void goldenSegmentDecodes() throws IOException {
    byte[] seg = ArrowGoldenFilesTest.golden(SEGMENT);
    assertThat(segmentNow()).isEqualTo(seg);
    Segment s = SegmentReader.parse(seg);
    assertThat(s.streamId()).isEqualTo(7);
    assertThat(s.baseOffset()).isEqualTo(100);
    assertThat(s.endOffset()).isEqualTo(106);
    assertThat(seg[6]).isEqualTo((byte) 1);
    byte[] frame = ArrowGoldenFilesTest.golden(ArrowGoldenFilesTest.FRAME);
    SegmentReader.IndexRegion region = SegmentReader.parseIndexRegion(seg, seg.length);
    assertThat(region.columnIndex()).hasSize(8 + 2 * (8 + 4 * 13));
    ColumnIndex ci = ColumnIndex.parse(ByteBuffer.wrap(region.columnIndex()), 2);
    List<RecordData> want = ArrowGoldenFilesTest.records();
    for (int k = 0; k < 2; k++) {
      SegmentBatch b = s.batches().get(k);
      assertThat(b.position()).isEqualTo(32L + (long) k * frame.length);
      assertThat(b.length()).isEqualTo(frame.length);
      ArrowFrame f = ArrowFrame.read(ByteBuffer.wrap(seg, (int) b.position(), b.length()).slice());
      assertThat(f.baseOffset()).isEqualTo(100 + 3L * k);
      ColumnIndex.Entry e = ci.entries().get(k);
      assertThat(e).isEqualTo(ColumnIndex.Entry.of(f));
      // The frame is the WAL's byte for byte except base_offset (bytes 0-7).
      assertThat(ByteBuffer.wrap(seg, (int) b.position() + 8, frame.length - 8))
          .isEqualTo(ByteBuffer.wrap(frame, 8, frame.length - 8));
      // A projected read from the golden bytes: the prefix and columns _key, _timestamp and s
      // (position 9), located by the column index alone.
      int[] cols = {0, 1, 9};
      ByteBuffer[] bytes = new ByteBuffer[cols.length];
      for (int i = 0; i < cols.length; i++) {
        bytes[i] =
            ByteBuffer.wrap(
                    seg, (int) (b.position() + e.columnStart(cols[i])), e.columnLength(cols[i]))
                .slice();
      }
      List<RecordData> got =
          new LoamArrowCodec()
              .decodeProjected(
                  List.of(StreamSchema.fromJson(ArrowGoldenFilesTest.SCHEMA).toJson()),
                  ByteBuffer.wrap(seg, (int) b.position(), e.prefixLength()).slice(),
                  cols,
                  bytes,
                  List.of("s"));
      assertThat(got).hasSize(3);
      for (int r = 0; r < 3; r++) {
        assertThat(got.get(r).timestamp()).isEqualTo(want.get(r).timestamp());
        assertThat(got.get(r).key()).isEqualTo(want.get(r).key());
      }
      assertThat(new String(got.get(0).value(), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo("{\"s\":\"h\u00e9llo\"}");
    }
  }

  @Test
  void everyFlippedByteOfTheIndexRegionOrAFrameIsDetected() throws IOException {
    byte[] seg = ArrowGoldenFilesTest.golden(SEGMENT);
    for (int at = 0; at < seg.length; at++) {
      byte[] bad = seg.clone();
      bad[at] ^= 0x04;
      int i = at;
      assertThatThrownBy(() -> SegmentReader.parse(bad))
          .as("flipped byte at %d", i)
          .isInstanceOfAny(CorruptionException.class, dev.loam.error.LoamException.class);
    }
  }
}
