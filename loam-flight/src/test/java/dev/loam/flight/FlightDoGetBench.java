package dev.loam.flight;

import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.ReadStats;
import dev.loam.api.StreamSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * DoGet throughput, and a 2-of-20-column projected DoGet against the full one, on one local node
 * (not part of the suite). Writes {@code rows} rows of a 20-column schema (10 int64, 5 float64, 5
 * short utf8) in appends of 1000 to an in-memory object store, waits until the segmenter has moved
 * them into arrow segments (8 MiB threshold), restarts the node so that every read goes to the
 * object store, then times each DoGet three times and reports the Arrow buffer bytes received, MB/s
 * and the object-store bytes the node read (a projected DoGet reads only the projected columns'
 * byte ranges of segments).
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "target/test-classes:target/classes:$(cat cp.txt)" \
 *   dev.loam.flight.FlightDoGetBench [rows]
 * </pre>
 */
public final class FlightDoGetBench {
  private FlightDoGetBench() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    Path dir = Files.createTempDirectory("flight-bench");
    StringBuilder schema = new StringBuilder("{\"fields\":[");
    for (int i = 0; i < 20; i++) {
      String type =
          i < 10
              ? "{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true}"
              : i < 15
                  ? "{\"name\":\"floatingpoint\",\"precision\":\"DOUBLE\"}"
                  : "{\"name\":\"utf8\"}";
      schema
          .append(i == 0 ? "" : ",")
          .append("{\"name\":\"c")
          .append(i)
          .append("\",\"nullable\":true,\"type\":")
          .append(type)
          .append(",\"children\":[]}");
    }
    schema.append("]}");
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)).toBuilder()
            .maintenanceInterval(Duration.ofMillis(500))
            .segmentThresholdBytes(8L << 20)
            .build();
    Random r = new Random(1);
    dev.loam.store.memory.InMemoryObjectStore store =
        new dev.loam.store.memory.InMemoryObjectStore(java.time.Clock.systemUTC());
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("bench")
            .dataDir(dir)
            .objectStore(
                new dev.loam.store.ForwardingObjectStore(store) {
                  @Override
                  public void close() {}
                })
            .settings(settings)
            .start()) {
      node.log()
          .createArrowStream("default", "wide", StreamSpec.standard(1), schema.toString())
          .join();
      long t0 = System.nanoTime();
      for (int done = 0; done < rows; done += 1000) {
        List<AppendRecord> batch = new ArrayList<>(1000);
        for (int j = 0; j < 1000; j++) {
          StringBuilder v = new StringBuilder("{");
          for (int i = 0; i < 20; i++) {
            v.append(i == 0 ? "" : ",").append("\"c").append(i).append("\":");
            if (i < 10) {
              v.append(r.nextLong());
            } else if (i < 15) {
              v.append(r.nextDouble());
            } else {
              v.append("\"s").append(r.nextInt(100_000)).append('"');
            }
          }
          batch.add(AppendRecord.of(null, v.append('}').toString()).toPartition(0));
        }
        node.log().append("default", "wide", batch).join();
      }
      System.out.printf("appended %d rows in %.2f s%n", rows, (System.nanoTime() - t0) / 1e9);
      // Segments: wait until their total stops growing (the WAL tail under the threshold stays).
      long last = -1;
      long segBytes = 0;
      for (int stable = 0; stable < 6; ) {
        Thread.sleep(500);
        segBytes = 0;
        for (var o : store.list("seg/", "", 1000).join().objects()) {
          segBytes += o.size();
        }
        stable = segBytes == last && segBytes > 0 ? stable + 1 : 0;
        last = segBytes;
      }
      System.out.printf("segments hold %d bytes%n", segBytes);
    }
    // A fresh node: no tail cache, so every byte read comes from the object store.
    try (LoamNode node =
            LoamNode.builder()
                .nodeId("bench")
                .dataDir(dir)
                .objectStore(store)
                .settings(settings)
                .start();
        LoamFlightServer server = LoamFlightServer.builder().node(node).port(0).start();
        BufferAllocator a = new RootAllocator();
        FlightClient client =
            FlightClient.builder(a, Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      Ticket full = new Ticket(new FlightTicket("default", "wide", 0, 0, rows, List.of()).encode());
      Ticket two =
          new Ticket(
              new FlightTicket("default", "wide", 0, 0, rows, List.of("c0", "c15")).encode());
      for (int round = 0; round < 3; round++) {
        run("full (20 columns)", node, client, full, rows);
        run("projected (2 of 20)", node, client, two, rows);
      }
      rangedBytes(node, rows);
    }
  }

  /**
   * What the column table of each stored frame says a ranged read of columns c0 and c15 needs (each
   * frame's prefix, then the two columns: user columns 0 and 15 are frame columns 2 and 17) against
   * the whole frames, computed from the stored frames themselves.
   */
  private static void rangedBytes(LoamNode node, int rows) {
    long whole = 0;
    long ranged = 0;
    long next = 0;
    while (next < rows) {
      var r =
          node.log().fetchArrowBatches("default", "wide", 0, next, 4 << 20, Duration.ZERO).join();
      java.nio.ByteBuffer b = r.batches();
      while (b.hasRemaining()) {
        dev.loam.arrow.format.ArrowFrame f = dev.loam.arrow.format.ArrowFrame.read(b);
        whole += f.size();
        ranged += f.prefixLength() + f.columnLength(2) + f.columnLength(17);
      }
      next = r.nextOffset();
    }
    System.out.printf(
        "column table: whole frames=%d bytes, prefix + 2 projected columns=%d bytes (%.1f%%)%n",
        whole, ranged, 100.0 * ranged / whole);
  }

  private static void run(String what, LoamNode node, FlightClient client, Ticket t, int rows)
      throws Exception {
    ReadStats before = node.readStats();
    long bytes = 0;
    long got = 0;
    long t0 = System.nanoTime();
    try (FlightStream s = client.getStream(t)) {
      while (s.next()) {
        got += s.getRoot().getRowCount();
        for (FieldVector v : s.getRoot().getFieldVectors()) {
          bytes += v.getBufferSize();
        }
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    ReadStats after = node.readStats();
    if (got != rows) {
      throw new IllegalStateException("rows " + got + " expected " + rows);
    }
    System.out.printf(
        "%-20s rows=%d arrowBytes=%d (%.1f MB) time=%.3f s -> %.1f MB/s; store GETs=%d"
            + " bytes=%d, tail-cache hits=%d%n",
        what,
        got,
        bytes,
        bytes / 1e6,
        secs,
        bytes / 1e6 / secs,
        after.objectGets() - before.objectGets(),
        after.objectGetBytes() - before.objectGetBytes(),
        after.tailHits() - before.tailHits());
  }
}
