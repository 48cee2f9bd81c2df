package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.arrow.format.ColumnIndex;
import dev.loam.wal.batch.RecordData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Decodes the checked-in golden files of docs/formats/arrow-batch-v1.md; these must keep passing
 * forever. Arrow Java's IPC stream reader is the oracle for the stored IPC bytes. Run with {@code
 * -Dloam.arrow.golden.write=<dir>} to write the files anew (only when the format version changes).
 */
class ArrowGoldenFilesTest {
  static final String FRAME = "arrow-frame-v1.bin";
  static final String INDEX = "arrow-column-index-v1.bin";

  static final String SCHEMA =
      """
      {"fields":[
        {"name":"b","nullable":true,"type":{"name":"bool"},"children":[]},
        {"name":"i8","nullable":true,"type":{"name":"int","bitWidth":8,"isSigned":true},"children":[]},
        {"name":"i16","nullable":true,"type":{"name":"int","bitWidth":16,"isSigned":true},"children":[]},
        {"name":"i32","nullable":false,"type":{"name":"int","bitWidth":32,"isSigned":true},"children":[]},
        {"name":"i64","nullable":true,"type":{"name":"int","bitWidth":64,"isSigned":true},"children":[]},
        {"name":"f32","nullable":true,"type":{"name":"floatingpoint","precision":"SINGLE"},"children":[]},
        {"name":"f64","nullable":true,"type":{"name":"floatingpoint","precision":"DOUBLE"},"children":[]},
        {"name":"s","nullable":true,"type":{"name":"utf8"},"children":[]},
        {"name":"bin","nullable":true,"type":{"name":"binary"},"children":[]},
        {"name":"d","nullable":true,"type":{"name":"date","unit":"DAY"},"children":[]},
        {"name":"ts","nullable":true,"type":{"name":"timestamp","unit":"MICROSECOND","timezone":"UTC"},"children":[]}
      ]}""";

  static final List<String> VALUES =
      List.of(
          "{\"b\":true,\"i8\":-128,\"i16\":32767,\"i32\":1,\"i64\":-9223372036854775808,\"f32\":1.5,"
              + "\"f64\":-2.25E-300,\"s\":\"h\u00e9llo\",\"bin\":\"AAH/\",\"d\":\"2026-12-01\","
              + "\"ts\":1764547200000000}",
          "{\"b\":null,\"i8\":null,\"i16\":null,\"i32\":2,\"i64\":null,\"f32\":null,\"f64\":null,"
              + "\"s\":null,\"bin\":null,\"d\":null,\"ts\":null}",
          "{\"b\":false,\"i8\":127,\"i16\":-32768,\"i32\":-2147483648,\"i64\":9223372036854775807,"
              + "\"f32\":-0.0,\"f64\":1.0E300,\"s\":\"\",\"bin\":\"\",\"d\":\"1970-01-01\",\"ts\":-1}");

  static SchemaHistory history() {
    return SchemaHistory.of(StreamSchema.fromJson(SCHEMA));
  }

  static List<RecordData> records() {
    List<RecordData> out = new ArrayList<>();
    for (int i = 0; i < VALUES.size(); i++) {
      byte[] key = i == 1 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
      out.add(
          RecordData.of(
              1_718_000_000_000L + 125 * i, key, VALUES.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  static byte[] frameNow(BufferAllocator a) {
    return ArrowBatches.encode(history(), records(), a);
  }

  static byte[] golden(String name) throws IOException {
    try (InputStream in = ArrowGoldenFilesTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void writeWhenAsked() throws IOException {
    String dir = System.getProperty("loam.arrow.golden.write");
    if (dir == null) {
      return;
    }
    try (BufferAllocator a = new RootAllocator()) {
      byte[] f = frameNow(a);
      Files.write(Path.of(dir, FRAME), f);
      byte[] f2 = ArrowBatches.encode(history(), records().subList(0, 1), a);
      ArrowFrame.patchBaseOffset(f, 0, 100);
      List<ColumnIndex.Entry> entries =
          List.of(
              ColumnIndex.Entry.of(ArrowFrame.read(ByteBuffer.wrap(f))),
              ColumnIndex.Entry.of(ArrowFrame.read(ByteBuffer.wrap(f2))));
      Files.write(Path.of(dir, INDEX), new ColumnIndex(entries).encode());
    }
  }

  @Test
  void frameDecodes() throws Exception {
    byte[] bytes = golden(FRAME);
    try (BufferAllocator a = new RootAllocator()) {
      ArrowFrame f = ArrowFrame.read(ByteBuffer.wrap(bytes));
      assertThat(f.baseOffset()).isZero();
      assertThat(f.schemaVersion()).isEqualTo(1);
      assertThat(f.recordCount()).isEqualTo(3);
      assertThat(f.baseTimestamp()).isEqualTo(1_718_000_000_000L);
      assertThat(f.maxTimestamp()).isEqualTo(1_718_000_000_250L);
      assertThat(f.columnCount()).isEqualTo(13);
      List<RecordData> out = ArrowBatches.decode(f, history(), a);
      assertThat(out).isEqualTo(records());
      // The encoder is deterministic: today's output equals the stored bytes.
      assertThat(frameNow(a)).isEqualTo(bytes);
      try (VectorSchemaRoot oracle = IpcOracle.read(history().latest().batchSchema(), f, a)) {
        assertThat(oracle.getRowCount()).isEqualTo(3);
        assertThat(oracle.getVector("i32").getObject(2)).isEqualTo(Integer.MIN_VALUE);
        assertThat(oracle.getVector("s").getObject(0).toString()).isEqualTo("h\u00e9llo");
        assertThat(oracle.getVector("d").getObject(0))
            .isEqualTo((int) LocalDate.of(2026, 12, 1).toEpochDay());
        assertThat(oracle.getVector("ts").isNull(1)).isTrue();
        assertThat(oracle.getVector("_key").isNull(1)).isTrue();
        assertThat((byte[]) oracle.getVector("_key").getObject(2))
            .isEqualTo("key-2".getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  @Test
  void columnIndexDecodes() throws IOException {
    byte[] bytes = golden(INDEX);
    ColumnIndex index = ColumnIndex.parse(ByteBuffer.wrap(bytes), 2);
    byte[] frame = golden(FRAME);
    ArrowFrame f = ArrowFrame.read(ByteBuffer.wrap(frame));
    ColumnIndex.Entry e = index.entries().get(0);
    assertThat(e.schemaVersion()).isEqualTo(1);
    assertThat(e.prefixLength()).isEqualTo(f.prefixLength());
    assertThat(e.frameSize()).isEqualTo(frame.length);
    for (int i = 0; i < f.columnCount(); i++) {
      assertThat(e.columnStart(i)).isEqualTo((long) f.prefixLength() + f.columnOffset(i));
      assertThat(e.columnLength(i)).isEqualTo(f.columnLength(i));
    }
    assertThat(index.entries().get(1).columnCount()).isEqualTo(13);
    assertThat(Arrays.equals(index.encode(), bytes)).isTrue();
  }
}
