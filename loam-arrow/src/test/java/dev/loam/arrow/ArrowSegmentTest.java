package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.BatchFetchResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.arrow.format.ArrowFrame;
import dev.loam.arrow.format.ColumnIndex;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arrow segments through a real embedded node (docs/formats/arrow-batch-v1.md): the segmenter
 * rewrites an arrow stream's WAL frames into a segment whose frames are the WAL's verbatim (only
 * base_offset patched) and whose index region ends with a column index; record reads and stored
 * frame reads answer the same from the segment as they did from the WAL, across schema versions.
 */
class ArrowSegmentTest {
  /** Where segments live (docs/formats/bucket-layout.md). */
  static final String SEGMENT_PREFIX = "seg/";

  /** A wide stream: id plus 19 columns, utf8 and int64 alternating. */
  static String wideSchema(boolean extra) {
    StringBuilder b = new StringBuilder("{\"fields\":[");
    b.append(
        "{\"name\":\"id\",\"nullable\":false,\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]}");
    for (int c = 1; c < 20; c++) {
      b.append(",{\"name\":\"c").append(c).append("\",\"nullable\":true,\"type\":");
      b.append(
          c % 2 == 1
              ? "{\"name\":\"utf8\"}"
              : "{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true}");
      b.append(",\"children\":[]}");
    }
    if (extra) {
      b.append(
          ",{\"name\":\"extra\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}");
    }
    return b.append("]}").toString();
  }

  /** Record {@code i}'s JSON value: every fourth value null, strings long enough to weigh. */
  static String value(int i, boolean extra) {
    StringBuilder b = new StringBuilder("{\"id\":").append(i);
    for (int c = 1; c < 20; c++) {
      b.append(",\"c").append(c).append("\":");
      if ((i + c) % 4 == 0) {
        b.append("null");
      } else if (c % 2 == 1) {
        b.append("\"v").append(i).append('-').append(c).append("-padding-padding\"");
      } else {
        b.append((long) i * 1000 + c);
      }
    }
    if (extra) {
      b.append(",\"extra\":\"x").append(i).append('"');
    }
    return b.append('}').toString();
  }

  /** Counts the bytes GETs return from segment objects. */
  static final class CountingStore extends ForwardingObjectStore {
    final AtomicLong segmentBytes = new AtomicLong();
    final AtomicLong segmentGets = new AtomicLong();

    CountingStore(ObjectStore d) {
      super(d);
    }

    @Override
    public CompletableFuture<byte[]> get(String key, long offset, int length) {
      return super.get(key, offset, length)
          .thenApply(
              b -> {
                if (key.startsWith(SEGMENT_PREFIX)) {
                  segmentBytes.addAndGet(b.length);
                  segmentGets.incrementAndGet();
                }
                return b;
              });
    }

    @Override
    public CompletableFuture<TailRead> getTail(String key, int length) {
      return super.getTail(key, length)
          .thenApply(
              t -> {
                if (key.startsWith(SEGMENT_PREFIX)) {
                  segmentBytes.addAndGet(t.bytes().length);
                  segmentGets.incrementAndGet();
                }
                return t;
              });
    }

    void reset() {
      segmentBytes.set(0);
      segmentGets.set(0);
    }
  }

  static final int APPENDS = 16;
  static final int PER_APPEND = 100;

  @TempDir Path dir;
  final InMemoryObjectStore mem = new InMemoryObjectStore(Clock.systemUTC());
  final CountingStore store = new CountingStore(mem);
  LoamNode node;
  Log log;

  @BeforeEach
  void start() {
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)).toBuilder()
            .maintenanceInterval(Duration.ofMillis(50))
            .segmentThresholdBytes(200_000L)
            .segmentMaxBytes(4_000_000L)
            .build();
    node =
        LoamNode.builder()
            .nodeId("arrow-seg")
            .dataDir(dir)
            .objectStore(store)
            .settings(settings)
            .start();
    log = node.log();
  }

  @AfterEach
  void stop() throws Exception {
    node.close();
  }

  /** Appends the test's records (version 2 from the middle on); returns the segment's key. */
  String appendAndSegment(String stream) throws Exception {
    log.createArrowStream("default", stream, StreamSpec.standard(1), wideSchema(false)).join();
    for (int a = 0; a < APPENDS; a++) {
      if (a == APPENDS / 2) {
        assertThat(log.addStreamSchema("default", stream, wideSchema(true)).join()).isEqualTo(2);
      }
      List<AppendRecord> rs = new ArrayList<>();
      for (int j = 0; j < PER_APPEND; j++) {
        int i = a * PER_APPEND + j;
        rs.add(
            AppendRecord.of("k" + i, value(i, a >= APPENDS / 2))
                .toPartition(0)
                .withTimestamp(1_000 + i));
      }
      log.append("default", stream, rs).join();
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      List<String> keys = segmentKeys();
      if (!keys.isEmpty() && readsFromSegment(stream)) {
        return keys.get(0);
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no arrow segment was made and read within 30 s");
  }

  List<String> segmentKeys() {
    List<String> out = new ArrayList<>();
    for (var o : mem.list(SEGMENT_PREFIX, "", 1000).join().objects()) {
      out.add(o.key());
    }
    return out;
  }

  private boolean readsFromSegment(String stream) {
    store.reset();
    log.fetch("default", stream, 0, 0, 1, Duration.ZERO).join();
    return store.segmentGets.get() > 0;
  }

  List<FetchedRecord> readAll(String stream, List<String> columns) {
    List<FetchedRecord> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      FetchResult r =
          columns == null
              ? log.fetch("default", stream, 0, offset, 1 << 16, Duration.ZERO).join()
              : log.fetchColumns("default", stream, 0, offset, 1 << 16, Duration.ZERO, columns)
                  .join();
      out.addAll(r.records());
      if (r.nextOffset() >= r.highWatermark()) {
        return out;
      }
      offset = r.nextOffset();
    }
  }

  static List<String> summary(List<FetchedRecord> rs) {
    return rs.stream()
        .map(r -> r.offset() + " " + r.timestamp() + " " + text(r.key()) + " " + text(r.value()))
        .toList();
  }

  static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void segmentedFramesReadBackAsTheyWereAndTheSegmentHoldsAColumnIndex() throws Exception {
    String key = appendAndSegment("wide");
    List<FetchedRecord> all = readAll("wide", null);
    assertThat(all).hasSize(APPENDS * PER_APPEND);
    for (int i = 0; i < all.size(); i++) {
      FetchedRecord r = all.get(i);
      assertThat(r.offset()).isEqualTo(i);
      assertThat(r.timestamp()).isEqualTo(1_000 + i);
      assertThat(text(r.key())).isEqualTo("k" + i);
      // Version 1 records read under version 2: the added column is null.
      String expected = value(i, true);
      if (i < APPENDS / 2 * PER_APPEND) {
        expected = expected.replace("\"extra\":\"x" + i + "\"", "\"extra\":null");
      }
      assertThat(text(r.value())).as("offset %d", i).isEqualTo(expected);
    }

    // Every segment: a full parse passes, every frame verifies, the column index matches them;
    // the segmenter goes on until frames of both schema versions are in segments.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    List<Integer> versions = new ArrayList<>();
    while (!versions.contains(2) && System.nanoTime() < deadline) {
      versions.clear();
      for (String k : segmentKeys()) {
        versions.addAll(checkSegment(mem.get(k).join()));
      }
      Thread.sleep(20);
    }
    assertThat(versions).contains(1, 2);
    assertThat(summary(readAll("wide", null))).isEqualTo(summary(all));

    // Stored frames read from the segment: whole frames, Arrow's IPC reader the oracle.
    BatchFetchResult frames =
        log.fetchArrowBatches("default", "wide", 0, 0, 1 << 24, Duration.ZERO).join();
    List<ArrowFrame> fs = ArrowFrame.readAll(frames.batches());
    long next = 0;
    for (ArrowFrame f : fs) {
      assertThat(f.baseOffset()).isEqualTo(next);
      StreamSchema own = StreamSchema.fromJson(wideSchema(f.schemaVersion() == 2));
      try (var a = new org.apache.arrow.memory.RootAllocator();
          var root = IpcOracle.read(own.batchSchema(), f, a)) {
        assertThat(root.getRowCount()).isEqualTo(f.recordCount());
        assertThat(root.getSchema().getFields()).hasSize(f.columnCount());
      }
      next += f.recordCount();
    }
    assertThat(next).isGreaterThan(0);
  }

  /** Checks one arrow segment's bytes; returns its frames' schema versions. */
  static List<Integer> checkSegment(byte[] seg) {
    Segment parsed = SegmentReader.parse(seg);
    assertThat(seg[6]).as("header encoding ARROW").isEqualTo((byte) 1);
    SegmentReader.IndexRegion region = SegmentReader.parseIndexRegion(seg, seg.length);
    ColumnIndex ci =
        ColumnIndex.parse(ByteBuffer.wrap(region.columnIndex()), parsed.batches().size());
    List<Integer> versions = new ArrayList<>();
    for (int k = 0; k < parsed.batches().size(); k++) {
      SegmentBatch b = parsed.batches().get(k);
      ArrowFrame f = ArrowFrame.read(ByteBuffer.wrap(seg, (int) b.position(), b.length()).slice());
      assertThat(f.baseOffset()).isEqualTo(b.baseOffset());
      assertThat(f.recordCount()).isEqualTo(b.recordCount());
      assertThat(f.maxTimestamp()).isEqualTo(b.maxTimestamp());
      assertThat(ci.entries().get(k)).isEqualTo(ColumnIndex.Entry.of(f));
      assertThat(ci.entries().get(k).frameSize()).isEqualTo(b.length());
      versions.add(f.schemaVersion());
    }
    return versions;
  }

  @Test
  void aDamagedColumnIndexIsDetected() throws Exception {
    String key = appendAndSegment("damaged");
    byte[] seg = mem.get(key).join();
    SegmentReader.IndexRegion region = SegmentReader.parseIndexRegion(seg, seg.length);
    int columnIndexAt = seg.length - 32 - region.columnIndex().length;
    for (int at : new int[] {columnIndexAt, columnIndexAt + 9, seg.length - 33}) {
      byte[] bad = seg.clone();
      bad[at] ^= 0x10;
      assertThatThrownBy(() -> SegmentReader.parse(bad))
          .as("flipped byte at %d", at)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("segment index crc mismatch");
    }
  }

  /** {@code full}'s JSON object cut to {@code columns}, in that order. */
  static String project(String full, List<String> columns) throws Exception {
    ObjectMapper m = new ObjectMapper();
    JsonNode all = m.readTree(full);
    ObjectNode out = m.createObjectNode();
    for (String c : columns) {
      out.set(c, all.get(c));
    }
    return m.writeValueAsString(out);
  }

  @Test
  void aProjectedScanOfTwoOfTwentyColumnsReadsFewerBytesFromTheStoreAndTheSameValues()
      throws Exception {
    appendAndSegment("proj");
    List<String> two = List.of("c8", "c3");
    List<FetchedRecord> full;
    List<FetchedRecord> projected;
    long fullBytes;
    long projectedBytes;
    for (int attempt = 1; ; attempt++) {
      // Both scans below find the segments' indexes already cached: they count data reads only.
      // Maintenance runs every 50 ms and may rewrite the segments meanwhile (a new segment's index
      // is read again), so the measurement counts only when the segments stayed the same.
      List<String> before = segmentKeys();
      readAll("proj", List.of("c3"));
      store.reset();
      full = readAll("proj", null);
      fullBytes = store.segmentBytes.get();
      store.reset();
      projected = readAll("proj", two);
      projectedBytes = store.segmentBytes.get();
      if (segmentKeys().equals(before) || attempt == 5) {
        break;
      }
    }
    assertThat(fullBytes).isPositive();
    assertThat(projectedBytes)
        .as("segment bytes read: projected=%d full=%d", projectedBytes, fullBytes)
        .isPositive()
        .isLessThan(fullBytes / 4);
    assertThat(projected).hasSameSizeAs(full).hasSize(APPENDS * PER_APPEND);
    for (int i = 0; i < full.size(); i++) {
      FetchedRecord f = full.get(i);
      FetchedRecord p = projected.get(i);
      assertThat(p.offset()).isEqualTo(f.offset());
      assertThat(p.timestamp()).isEqualTo(f.timestamp());
      assertThat(text(p.key())).isEqualTo(text(f.key()));
      assertThat(text(p.value())).as("offset %d", i).isEqualTo(project(text(f.value()), two));
    }

    // A column version 1 lacks reads as null in version 1 batches; a read from the middle of the
    // segment starts at the offset asked for.
    List<FetchedRecord> extra =
        log.fetchColumns("default", "proj", 0, 5, 1 << 20, Duration.ZERO, List.of("extra", "id"))
            .join()
            .records();
    assertThat(extra.get(0).offset()).isEqualTo(5);
    assertThat(text(extra.get(0).value())).isEqualTo("{\"extra\":null,\"id\":5}");

    LoamException unknown =
        (LoamException)
            catchThrowable(
                    () ->
                        log.fetchColumns(
                                "default", "proj", 0, 0, 1 << 20, Duration.ZERO, List.of("nope"))
                            .join())
                .getCause();
    assertThat(unknown.kind()).isEqualTo(LoamException.Kind.INVALID);
    assertThat(unknown.getMessage()).contains("no such column column=nope");
    log.createStream("default", "plain", StreamSpec.standard(1)).join();
    assertThat(
            catchThrowable(
                    () ->
                        log.fetchColumns(
                                "default", "plain", 0, 0, 1 << 20, Duration.ZERO, List.of("id"))
                            .join())
                .getCause())
        .hasMessageContaining("not an arrow stream");
  }

  @Test
  void aProjectedReadChecksTheColumnsItReadsAndNeverReadsTheOthers() throws Exception {
    String key = appendAndSegment("crc");
    byte[] seg = mem.get(key).join();
    Segment parsed = SegmentReader.parse(seg);
    ColumnIndex ci =
        ColumnIndex.parse(
            ByteBuffer.wrap(SegmentReader.parseIndexRegion(seg, seg.length).columnIndex()),
            parsed.batches().size());
    long frame0 = parsed.batches().get(0).position();
    // Batch schema positions: _key 0, _timestamp 1, id 2, c1 3, ... so c3 is 5, c5 is 7.
    int inC5 = (int) (frame0 + ci.entries().get(0).columnStart(7) + 1);
    int inC3 = (int) (frame0 + ci.entries().get(0).columnStart(5) + 1);

    byte[] otherColumn = seg.clone();
    otherColumn[inC5] ^= 0x01;
    mem.put(key, otherColumn).join();
    assertThat(readAll("crc", List.of("c3"))).hasSize(APPENDS * PER_APPEND);

    byte[] readColumn = seg.clone();
    readColumn[inC3] ^= 0x01;
    mem.put(key, readColumn).join();
    Throwable t =
        catchThrowable(
            () ->
                log.fetchColumns("default", "crc", 0, 0, 1 << 20, Duration.ZERO, List.of("c3"))
                    .join());
    assertThat(t.getCause())
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("arrow frame column 5 crc32c")
        .hasMessageContaining(key);
  }
}
