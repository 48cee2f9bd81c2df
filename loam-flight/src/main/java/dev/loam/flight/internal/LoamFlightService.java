package dev.loam.flight.internal;

import com.google.protobuf.ByteString;
import dev.loam.api.BatchFetchResult;
import dev.loam.api.Log;
import dev.loam.api.StreamDescription;
import dev.loam.arrow.ArrowBatches;
import dev.loam.arrow.LoamArrowCodec;
import dev.loam.arrow.SchemaHistory;
import dev.loam.arrow.format.ArrowFrame;
import dev.loam.error.LoamException;
import dev.loam.flight.FlightTicket;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Flight RPCs Loam serves for arrow streams (docs/reference/arrow.md "Arrow Flight"), written
 * against Flight's protobuf service so that DoGet can send stored IPC messages as they are: each
 * stored batch whose schema version is the newest, fetched whole and not projected, goes out as one
 * {@code FlightData} whose header and body are the stored bytes. Batches of older versions,
 * projections and batches cut by the ticket's offset range are loaded with Arrow and re-serialized.
 * Every batch carries its first record's offset in {@code app_metadata} (8 bytes, big-endian).
 */
public final class LoamFlightService extends FlightServiceGrpc.FlightServiceImplBase {
  /** Bytes fetched from the log per read while serving DoGet. */
  static final int FETCH_BYTES = 4 << 20;

  private final Log log;
  private final FlightAccess access;
  private final LoamArrowCodec codec = new LoamArrowCodec();
  private final BufferAllocator allocator;

  /** The service for {@code log}'s arrow streams, checking each call with {@code access}. */
  public LoamFlightService(Log log, FlightAccess access, BufferAllocator allocator) {
    this.log = log;
    this.access = access;
    this.allocator = allocator;
  }

  private static RuntimeException status(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    if (c instanceof io.grpc.StatusRuntimeException s) {
      return s;
    }
    if (c instanceof LoamException le) {
      Status s =
          switch (le.kind()) {
            case INVALID -> Status.INVALID_ARGUMENT;
            case NOT_FOUND -> Status.NOT_FOUND;
            case UNAVAILABLE, NOT_OWNER -> Status.UNAVAILABLE;
            case CONFLICT -> Status.ABORTED;
            case FENCED -> Status.PERMISSION_DENIED;
            case CORRUPTION -> Status.DATA_LOSS;
            default -> Status.INTERNAL;
          };
      return s.withDescription(le.getMessage()).asRuntimeException();
    }
    return Status.INTERNAL.withDescription(String.valueOf(c.getMessage())).asRuntimeException();
  }

  private SchemaHistory history(String ns, String stream) {
    List<String> versions = log.streamSchemas(ns, stream).join();
    if (versions.isEmpty()) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "not an arrow stream: Flight serves arrow streams only stream=" + ns + "/" + stream);
    }
    return codec.history(versions);
  }

  /** The FlightInfo of a stream: its newest batch schema and one endpoint per partition. */
  private Flight.FlightInfo info(String ns, String stream) throws Exception {
    SchemaHistory h = history(ns, stream);
    StreamDescription d = log.describeStream(ns, stream).join();
    List<FlightEndpoint> endpoints = new ArrayList<>();
    long records = 0;
    for (StreamDescription.PartitionBounds b : d.partitions()) {
      FlightTicket t =
          new FlightTicket(
              ns, stream, b.partition(), b.logStartOffset(), b.highWatermark(), List.of());
      endpoints.add(new FlightEndpoint(new Ticket(t.encode())));
      records += b.highWatermark() - b.logStartOffset();
    }
    FlightInfo info =
        new FlightInfo(
            h.latest().batchSchema(), FlightDescriptor.path(ns, stream), endpoints, -1, records);
    return Flight.FlightInfo.parseFrom(info.serialize());
  }

  private static String[] path(Flight.FlightDescriptor d) {
    if (d.getType() != Flight.FlightDescriptor.DescriptorType.PATH || d.getPathCount() != 2) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "a flight descriptor is the path [namespace, stream] path=" + d.getPathList());
    }
    return new String[] {d.getPath(0), d.getPath(1)};
  }

  @Override
  public void getFlightInfo(
      Flight.FlightDescriptor request, StreamObserver<Flight.FlightInfo> out) {
    try {
      String[] p = path(request);
      access.check(p[0]);
      out.onNext(info(p[0], p[1]));
      out.onCompleted();
    } catch (Exception e) {
      out.onError(status(e));
    }
  }

  @Override
  public void getSchema(Flight.FlightDescriptor request, StreamObserver<Flight.SchemaResult> out) {
    try {
      String[] p = path(request);
      access.check(p[0]);
      Flight.FlightInfo info = info(p[0], p[1]);
      out.onNext(Flight.SchemaResult.newBuilder().setSchema(info.getSchema()).build());
      out.onCompleted();
    } catch (Exception e) {
      out.onError(status(e));
    }
  }

  /**
   * ListFlights: the arrow streams of the namespace named by the criteria's expression (UTF-8), or
   * of every namespace when it is empty; kafka-encoded streams are not listed.
   */
  @Override
  public void listFlights(Flight.Criteria request, StreamObserver<Flight.FlightInfo> out) {
    try {
      String ns = request.getExpression().toString(StandardCharsets.UTF_8);
      List<String> namespaces = ns.isEmpty() ? log.listNamespaces().join() : List.of(ns);
      for (String n : namespaces) {
        if (!access.allows(n)) {
          continue;
        }
        for (StreamDescription d : log.listStreams(n).join()) {
          if (!log.streamSchemas(n, d.name()).join().isEmpty()) {
            out.onNext(info(n, d.name()));
          }
        }
      }
      out.onCompleted();
    } catch (Exception e) {
      out.onError(status(e));
    }
  }

  @Override
  public void doGet(Flight.Ticket request, StreamObserver<Flight.FlightData> observer) {
    ServerCallStreamObserver<Flight.FlightData> out =
        (ServerCallStreamObserver<Flight.FlightData>) observer;
    try {
      FlightTicket t = FlightTicket.parse(request.getTicket().toByteArray());
      access.check(t.namespace());
      SchemaHistory h = history(t.namespace(), t.stream());
      Schema schema = new Schema(ArrowBatches.fields(h.latest().batchSchema(), t.columns()));
      ByteBuffer header = MessageSerializer.serializeMetadata(schema, IpcOption.DEFAULT);
      out.onNext(Flight.FlightData.newBuilder().setDataHeader(ByteString.copyFrom(header)).build());
      long next = t.from();
      // A projected ticket reads frames in part: only the prefix and the needed columns' bytes
      // (from a segment, only those byte ranges are read from the store).
      boolean projected = !t.columns().isEmpty();
      while (next < t.to() && !out.isCancelled()) {
        BatchFetchResult r =
            projected
                ? log.fetchArrowColumns(
                        t.namespace(),
                        t.stream(),
                        t.partition(),
                        next,
                        FETCH_BYTES,
                        Duration.ZERO,
                        t.columns())
                    .join()
                : log.fetchArrowBatches(
                        t.namespace(), t.stream(), t.partition(), next, FETCH_BYTES, Duration.ZERO)
                    .join();
        ByteBuffer frames = r.batches();
        if (!frames.hasRemaining()) {
          break;
        }
        while (frames.hasRemaining() && next < t.to()) {
          ArrowFrame f;
          int[] cols = null;
          ByteBuffer[] data = null;
          if (projected) {
            f = ArrowFrame.readPrefix(frames, false);
            cols = ArrowBatches.fetchedColumns(h, f.schemaVersion(), t.columns());
            data = new ByteBuffer[cols.length];
            int at = frames.position() + f.prefixLength();
            for (int i = 0; i < cols.length; i++) {
              int len = f.columnLength(cols[i]);
              if (at + len > frames.limit()) {
                throw new dev.loam.error.CorruptionException(
                    "arrow frame in part truncated: column " + cols[i] + " needs " + len);
              }
              data[i] = frames.slice(at, len);
              at += len;
            }
            frames.position(at);
          } else {
            f = ArrowFrame.read(frames);
          }
          long base = f.baseOffset();
          long end = base + f.recordCount();
          if (end <= next) {
            continue;
          }
          awaitReady(out);
          send(out, f, cols, data, h, t, Math.max(next, base), Math.min(end, t.to()));
          next = Math.min(end, t.to());
        }
        next = Math.max(next, Math.min(r.nextOffset(), t.to()));
      }
      out.onCompleted();
    } catch (Exception e) {
      out.onError(status(e));
    }
  }

  /** Flow control: holds the serving thread while the client's window is full. */
  private static void awaitReady(ServerCallStreamObserver<?> out) {
    while (!out.isReady() && !out.isCancelled()) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
      }
    }
  }

  /**
   * Sends rows [from, to) of frame {@code f}: its stored bytes when they are exactly that. A frame
   * read in part ({@code cols} non-null: only its prefix and those columns' bytes) is always
   * projected.
   */
  private void send(
      StreamObserver<Flight.FlightData> out,
      ArrowFrame f,
      int[] cols,
      ByteBuffer[] data,
      SchemaHistory h,
      FlightTicket t,
      long from,
      long to) {
    long base = f.baseOffset();
    boolean whole = from == base && to == base + f.recordCount();
    ArrowFrame message;
    if (whole && t.columns().isEmpty() && f.schemaVersion() == h.latestVersion()) {
      message = f;
    } else {
      try (VectorSchemaRoot view =
          cols == null
              ? ArrowBatches.loadView(f, h, t.columns(), allocator)
              : ArrowBatches.loadView(f, cols, data, h, t.columns(), allocator)) {
        if (whole) {
          message = ArrowBatches.message(view, h.latestVersion());
        } else {
          try (VectorSchemaRoot part = view.slice((int) (from - base), (int) (to - from))) {
            message = ArrowBatches.message(part, h.latestVersion());
          }
        }
      }
    }
    ByteBuffer meta = message.ipcMetadata();
    // The IPC metadata is the continuation marker, the flatbuffer length (little-endian), then
    // the flatbuffer; Flight's data_header is the flatbuffer alone.
    int length = Integer.reverseBytes(meta.getInt(4));
    ByteString headerBytes = ByteString.copyFrom(meta.slice(8, length));
    out.onNext(
        Flight.FlightData.newBuilder()
            .setDataHeader(headerBytes)
            .setDataBody(ByteString.copyFrom(message.body()))
            .setAppMetadata(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(0, from)))
            .build());
  }
}
