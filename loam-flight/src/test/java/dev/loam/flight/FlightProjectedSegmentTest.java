package dev.loam.flight;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A projected Flight DoGet of an arrow stream whose batches are in segments reads only the
 * projected columns' byte ranges: Arrow Java's {@link FlightClient} gets 2 of 20 columns with the
 * same values as a full DoGet, while the store (counted by a wrapper) serves a fraction of the
 * bytes.
 */
class FlightProjectedSegmentTest {
  static final int APPENDS = 16;
  static final int PER_APPEND = 100;

  /** Counts the bytes GETs return from segment objects. */
  static final class CountingStore extends ForwardingObjectStore {
    final AtomicLong segmentBytes = new AtomicLong();

    CountingStore(ObjectStore d) {
      super(d);
    }

    @Override
    public CompletableFuture<byte[]> get(String key, long offset, int length) {
      return super.get(key, offset, length).thenApply(b -> count(key, b.length, b));
    }

    @Override
    public CompletableFuture<TailRead> getTail(String key, int length) {
      return super.getTail(key, length).thenApply(t -> count(key, t.bytes().length, t));
    }

    private <T> T count(String key, int n, T v) {
      if (key.startsWith("seg/")) {
        segmentBytes.addAndGet(n);
      }
      return v;
    }
  }

  static String schema() {
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
    return b.append("]}").toString();
  }

  static String value(int i) {
    StringBuilder b = new StringBuilder("{\"id\":").append(i);
    for (int c = 1; c < 20; c++) {
      b.append(",\"c").append(c).append("\":");
      if ((i + c) % 5 == 0) {
        b.append("null");
      } else if (c % 2 == 1) {
        b.append("\"v").append(i).append('-').append(c).append("-some-padding\"");
      } else {
        b.append((long) i * 1000 + c);
      }
    }
    return b.append('}').toString();
  }

  @TempDir Path dir;
  final InMemoryObjectStore mem = new InMemoryObjectStore(Clock.systemUTC());
  final CountingStore store = new CountingStore(mem);
  LoamNode node;
  Log log;
  LoamFlightServer server;
  BufferAllocator allocator;
  FlightClient client;

  @BeforeEach
  void start() {
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)).toBuilder()
            .maintenanceInterval(Duration.ofMillis(50))
            .segmentThresholdBytes(100_000L)
            .segmentMaxBytes(4_000_000L)
            .build();
    node =
        LoamNode.builder()
            .nodeId("flight-seg")
            .dataDir(dir)
            .objectStore(store)
            .settings(settings)
            .start();
    log = node.log();
    server = LoamFlightServer.builder().node(node).port(0).start();
    allocator = new RootAllocator();
    client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
    node.close();
  }

  /** Every row of a DoGet: each column's value as text, in the root's column order. */
  private List<List<String>> doGet(String ticket) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (FlightStream s = client.getStream(new Ticket(ticket.getBytes(StandardCharsets.UTF_8)))) {
      VectorSchemaRoot root = s.getRoot();
      while (s.next()) {
        for (int r = 0; r < root.getRowCount(); r++) {
          List<String> row = new ArrayList<>();
          for (var v : root.getFieldVectors()) {
            row.add(v.getName() + "=" + v.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  @Test
  void aProjectedDoGetReadsOnlyTheProjectedColumnsFromSegments() throws Exception {
    log.createArrowStream("default", "wide", StreamSpec.standard(1), schema()).join();
    for (int a = 0; a < APPENDS; a++) {
      List<AppendRecord> rs = new ArrayList<>();
      for (int j = 0; j < PER_APPEND; j++) {
        int i = a * PER_APPEND + j;
        rs.add(AppendRecord.of("k" + i, value(i)).toPartition(0).withTimestamp(5_000 + i));
      }
      log.append("default", "wide", rs).join();
    }
    int total = APPENDS * PER_APPEND;
    String full =
        "{\"namespace\":\"default\",\"stream\":\"wide\",\"partition\":0,\"from\":0,\"to\":"
            + total
            + "}";
    String two = full.replace("}", ",\"columns\":[\"c3\",\"c8\"]}");
    // Wait until the segmenter has moved (nearly) everything into segments: a full DoGet then
    // reads most of its bytes from segments.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    long fullBytes = 0;
    while (System.nanoTime() < deadline) {
      store.segmentBytes.set(0);
      doGet(full);
      fullBytes = store.segmentBytes.get();
      if (fullBytes > 400_000) {
        break;
      }
      Thread.sleep(50);
    }
    assertThat(fullBytes).as("segment bytes of a full DoGet").isGreaterThan(400_000);
    store.segmentBytes.set(0);
    List<List<String>> all = doGet(full);
    fullBytes = store.segmentBytes.get();
    store.segmentBytes.set(0);
    List<List<String>> projected = doGet(two);
    long projectedBytes = store.segmentBytes.get();
    assertThat(projectedBytes)
        .as("segment bytes: projected=%d full=%d", projectedBytes, fullBytes)
        .isPositive()
        .isLessThan(fullBytes / 4);
    assertThat(all).hasSize(total);
    assertThat(projected).hasSize(total);
    for (int i = 0; i < total; i++) {
      List<String> row = all.get(i);
      // Full rows: _key, _timestamp, id, c1.. ; c3 is column 5, c8 column 10.
      assertThat(projected.get(i)).as("row %d", i).containsExactly(row.get(5), row.get(10));
      assertThat(row.get(2)).isEqualTo("id=" + i);
    }
  }
}
