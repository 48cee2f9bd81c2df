package dev.loam.bench.load;

import com.google.protobuf.ByteString;
import dev.loam.api.AppendRecord;
import dev.loam.grpc.v1.FetchedRecord;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.ProduceResponse;
import dev.loam.grpc.v1.Record;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.SubscribeResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC transport of the load generator ({@code --transport grpc}): Produce as unary calls, and
 * consumption through {@code Subscribe}, one server stream per partition held open for the run. The
 * bench's pull loop asks for the next batch of a partition; this transport answers it with the
 * stream's next message and requests one more message only when none is waiting, so the stream is
 * paced by the consumer exactly as gRPC flow control paces any subscriber.
 */
final class GrpcTransport implements BenchTransport, AutoCloseable {
  private final ManagedChannel channel;
  private final StreamServiceGrpc.StreamServiceStub stub;
  private final ScheduledExecutorService timer;
  private final Map<String, Sub> subs = new ConcurrentHashMap<>();

  GrpcTransport(String address) {
    this.channel = Grpc.newChannelBuilder(address, InsecureChannelCredentials.create()).build();
    this.stub = StreamServiceGrpc.newStub(channel);
    this.timer =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "loam-bench-grpc-timer");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public CompletableFuture<Void> append(String ns, String stream, List<AppendRecord> records) {
    ProduceRequest.Builder b = ProduceRequest.newBuilder().setNamespace(ns).setStream(stream);
    for (AppendRecord r : records) {
      Record.Builder rb = Record.newBuilder().setValue(ByteString.copyFrom(r.value()));
      if (r.key() != null) {
        rb.setKey(ByteString.copyFrom(r.key()));
      }
      b.addRecords(rb);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    stub.produce(
        b.build(),
        new StreamObserver<ProduceResponse>() {
          @Override
          public void onNext(ProduceResponse value) {}

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            done.complete(null);
          }
        });
    return done;
  }

  @Override
  public CompletableFuture<Fetched> fetch(
      String ns, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
    Sub s =
        subs.computeIfAbsent(
            ns + "/" + stream + "/" + partition, k -> new Sub(ns, stream, partition));
    return s.next(offset, maxBytes, maxWait);
  }

  @Override
  public void close() {
    for (Sub s : subs.values()) {
      s.cancel();
    }
    timer.shutdownNow();
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One partition's Subscribe stream and the pull loop's waiting request. */
  private final class Sub implements ClientResponseObserver<SubscribeRequest, SubscribeResponse> {
    private final String ns;
    private final String stream;
    private final int partition;
    // Guarded by this.
    private ClientCallStreamObserver<SubscribeRequest> call;
    private long handedOut = -1;
    private final ArrayDeque<SubscribeResponse> ready = new ArrayDeque<>();
    private CompletableFuture<Fetched> waiting;
    private boolean requested;

    Sub(String ns, String stream, int partition) {
      this.ns = ns;
      this.stream = stream;
      this.partition = partition;
    }

    synchronized CompletableFuture<Fetched> next(long offset, int maxBytes, Duration maxWait) {
      if (call == null || offset != handedOut) {
        // First use, or the loop restarts elsewhere (after an error): a new stream from offset.
        cancel();
        ready.clear();
        requested = false;
        handedOut = offset;
        stub.subscribe(
            SubscribeRequest.newBuilder()
                .setNamespace(ns)
                .setStream(stream)
                .setPartition(partition)
                .setOffset(offset)
                .setMaxBytes(maxBytes)
                .build(),
            this);
      }
      SubscribeResponse m = ready.poll();
      if (m != null) {
        return CompletableFuture.completedFuture(handOut(m));
      }
      CompletableFuture<Fetched> f = new CompletableFuture<>();
      waiting = f;
      if (!requested) {
        requested = true;
        call.request(1);
      }
      long start = offset;
      timer.schedule(
          () -> {
            synchronized (this) {
              if (waiting == f) {
                waiting = null;
              }
            }
            f.complete(new Fetched(List.of(), start));
          },
          maxWait.toMillis(),
          TimeUnit.MILLISECONDS);
      return f;
    }

    // Holds this.
    private Fetched handOut(SubscribeResponse m) {
      List<byte[]> values = new ArrayList<>(m.getRecordsCount());
      for (FetchedRecord r : m.getRecordsList()) {
        values.add(r.getValue().toByteArray());
      }
      handedOut = m.getNextOffset();
      return new Fetched(values, m.getNextOffset());
    }

    @Override
    public synchronized void beforeStart(ClientCallStreamObserver<SubscribeRequest> c) {
      call = c;
      c.disableAutoRequestWithInitial(0);
    }

    @Override
    public void onNext(SubscribeResponse m) {
      CompletableFuture<Fetched> f;
      Fetched out = null;
      synchronized (this) {
        requested = false;
        f = waiting;
        waiting = null;
        if (f == null) {
          ready.add(m);
        } else {
          out = handOut(m);
        }
      }
      if (f != null) {
        f.complete(out);
      }
    }

    @Override
    public void onError(Throwable t) {
      CompletableFuture<Fetched> f;
      synchronized (this) {
        call = null;
        f = waiting;
        waiting = null;
      }
      if (f != null) {
        f.completeExceptionally(t);
      }
    }

    @Override
    public void onCompleted() {
      onError(new IllegalStateException("the server ended the subscription"));
    }

    synchronized void cancel() {
      if (call != null) {
        call.cancel("bench done", null);
        call = null;
      }
    }
  }
}
