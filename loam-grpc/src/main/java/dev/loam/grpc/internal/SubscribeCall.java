package dev.loam.grpc.internal;

import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.grpc.internal.Calls.Caller;
import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.SubscribeResponse;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One open {@code Subscribe}: the long-poll fetch loop held open (stream-engine.txt §6), paced by
 * gRPC's readiness. The loop has at most one fetch in flight, or one fetch's records waiting for
 * the call to become ready, cut into messages of at most {@code max_bytes} (a fetch answers whole
 * stored batches, which can be larger than a client accepts in one message). It fetches again only
 * once every message of the previous fetch was handed to gRPC, and it hands a message to gRPC only
 * while {@link ServerCallStreamObserver#isReady()} says the transport's window has room. A slow
 * client therefore holds its subscription at one fetch (at most {@code max_bytes}, or one stored
 * batch when a batch is larger), and a waiting subscription parks no thread (the fetch's long-poll
 * is a future). Transient failures (UNAVAILABLE, as while a stream's ownership moves) are retried
 * with a growing delay before the call ends.
 */
final class SubscribeCall {
  /** Transient failures in a row before the call ends UNAVAILABLE (about 15 s of retries). */
  static final int MAX_RETRIES = 20;

  private final Calls calls;
  private final ServerCallStreamObserver<SubscribeResponse> out;
  private final Deadline deadline;
  private String namespace;
  private String stream;
  private int partition;
  private int maxBytes;
  private OptionalLong token = OptionalLong.empty();
  private Subject subject = Subject.NONE;

  // Guarded by this.
  private long next;
  private final ArrayDeque<SubscribeResponse> pending = new ArrayDeque<>();
  private long pendingBytes;
  private boolean fetching;
  private boolean started;
  private boolean done;
  private int failures;

  private SubscribeCall(
      Calls calls, ServerCallStreamObserver<SubscribeResponse> out, Deadline deadline) {
    this.calls = calls;
    this.out = out;
    this.deadline = deadline;
  }

  /** Starts a subscription for {@code req}; answers {@code observer} until the call ends. */
  static void start(Calls calls, SubscribeRequest req, StreamObserver<SubscribeResponse> observer) {
    calls.calls.increment();
    ServerCallStreamObserver<SubscribeResponse> out =
        (ServerCallStreamObserver<SubscribeResponse>) observer;
    SubscribeCall s = new SubscribeCall(calls, out, Context.current().getDeadline());
    // Both handlers must be set before this method returns.
    out.setOnCancelHandler(s::cancelled);
    out.setOnReadyHandler(s::ready);
    try {
      calls
          .principal()
          .whenComplete(
              (p, err) -> {
                if (err != null) {
                  s.finish(err);
                  return;
                }
                try {
                  String ns = Calls.namespace(req.getNamespace(), p);
                  s.subject = Subject.of(ns, req.getStream(), req.getPartition());
                  Calls.check(Need.CONSUME, ns, p);
                  s.begin(new Caller(p, ns, s.deadline), req);
                } catch (RuntimeException e) {
                  s.finish(e);
                }
              });
    } catch (RuntimeException e) {
      s.finish(e);
    }
  }

  private void begin(Caller c, SubscribeRequest req) {
    stream = Convert.required("stream", req.getStream());
    partition = Convert.partition(req.getPartition());
    maxBytes = StreamServiceImpl.maxBytes(req.getMaxBytes(), calls.settings.subscribeBytes());
    if (req.getOffset() < 0) {
      throw GrpcErrors.invalid("offset must be >= 0 field=offset value=" + req.getOffset());
    }
    namespace = c.namespace();
    if (req.hasMinConsistencyToken()) {
      token = OptionalLong.of(req.getMinConsistencyToken());
    }
    synchronized (this) {
      if (done) {
        return;
      }
      next = req.getOffset();
      started = true;
      calls.openSubscriptions.incrementAndGet();
    }
    fetchSoon(0);
  }

  /** Runs the next fetch on the server's executor (never inline, so no recursion builds up). */
  private void fetchSoon(long delayMillis) {
    try {
      if (delayMillis == 0) {
        calls.executor.execute(this::fetch);
      } else {
        calls.scheduler.schedule(
            () -> {
              try {
                calls.executor.execute(this::fetch);
              } catch (RejectedExecutionException e) {
                finish(new LoamException(Kind.UNAVAILABLE, "the gRPC server is stopping"));
              }
            },
            delayMillis,
            TimeUnit.MILLISECONDS);
      }
    } catch (RejectedExecutionException e) {
      finish(new LoamException(Kind.UNAVAILABLE, "the gRPC server is stopping"));
    }
  }

  private void fetch() {
    long from;
    OptionalLong t;
    synchronized (this) {
      if (done || fetching || !pending.isEmpty()) {
        return;
      }
      fetching = true;
      from = next;
      t = token;
    }
    calls.subscribeFetches.increment();
    long wait = calls.settings.subscribeWait().toMillis();
    if (deadline != null) {
      wait = Math.max(0, Math.min(wait, deadline.timeRemaining(TimeUnit.MILLISECONDS)));
    }
    calls
        .log
        .fetch(namespace, stream, partition, from, maxBytes, Duration.ofMillis(wait), t)
        .whenComplete(this::fetched);
  }

  private void fetched(FetchResult r, Throwable err) {
    boolean again = false;
    long delay = 0;
    Throwable end = null;
    synchronized (this) {
      fetching = false;
      if (done) {
        return;
      }
      if (err != null) {
        Throwable c = GrpcErrors.unwrap(err);
        if (c instanceof LoamException le
            && le.kind() == Kind.UNAVAILABLE
            && failures < MAX_RETRIES) {
          failures++;
          again = true;
          delay = Math.min(1000, 25L << Math.min(failures, 6));
        } else {
          end = c;
        }
      } else {
        failures = 0;
        token = OptionalLong.empty();
        SubscribeResponse.Builder b = SubscribeResponse.newBuilder();
        long bytes = 0;
        for (FetchedRecord x : r.records()) {
          // A fetch answers whole batches: skip what was delivered already.
          if (x.offset() < next) {
            continue;
          }
          dev.loam.grpc.v1.FetchedRecord m = Convert.record(x);
          int size = m.getSerializedSize() + 8;
          if (b.getRecordsCount() > 0 && bytes + size > maxBytes) {
            queue(b, r.highWatermark());
            b = SubscribeResponse.newBuilder();
            bytes = 0;
          }
          b.addRecords(m);
          bytes += size;
          next = x.offset() + 1;
        }
        if (b.getRecordsCount() > 0) {
          queue(b, r.highWatermark());
        }
        if (pending.isEmpty()) {
          next = Math.max(next, r.nextOffset());
        }
        again = drain();
      }
    }
    if (end != null) {
      finish(end);
    } else if (again) {
      fetchSoon(delay);
    }
  }

  // Holds this.
  private void queue(SubscribeResponse.Builder b, long highWatermark) {
    long last = b.getRecords(b.getRecordsCount() - 1).getOffset();
    SubscribeResponse m = b.setNextOffset(last + 1).setHighWatermark(highWatermark).build();
    pending.add(m);
    long size = m.getSerializedSize();
    pendingBytes += size;
    calls.subscribeHeldBytes.addAndGet(size);
  }

  /**
   * Hands waiting messages to gRPC while the call is ready; true when none is left (fetch on).
   * Holds this.
   */
  private boolean drain() {
    while (!pending.isEmpty() && out.isReady()) {
      SubscribeResponse m = pending.poll();
      long size = m.getSerializedSize();
      pendingBytes -= size;
      calls.subscribeHeldBytes.addAndGet(-size);
      send(m);
    }
    return pending.isEmpty();
  }

  /** The call's transport has room again: hand over the waiting messages and fetch on. */
  private void ready() {
    synchronized (this) {
      if (done || pending.isEmpty() || !drain()) {
        return;
      }
    }
    fetchSoon(0);
  }

  // Holds this.
  private void send(SubscribeResponse m) {
    out.onNext(m);
    calls.subscribeMessages.increment();
    calls.subscribeRecords.add(m.getRecordsCount());
  }

  private void cancelled() {
    synchronized (this) {
      if (done) {
        return;
      }
      release();
    }
  }

  private void finish(Throwable err) {
    synchronized (this) {
      if (done) {
        return;
      }
      release();
    }
    calls.fail(out, err, subject);
  }

  // Holds this.
  private void release() {
    done = true;
    pending.clear();
    calls.subscribeHeldBytes.addAndGet(-pendingBytes);
    pendingBytes = 0;
    if (started) {
      calls.openSubscriptions.decrementAndGet();
    }
  }
}
