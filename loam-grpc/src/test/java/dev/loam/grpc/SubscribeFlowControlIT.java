package dev.loam.grpc;

import static dev.loam.grpc.GrpcTestSupport.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.CreateNamespaceRequest;
import dev.loam.grpc.v1.CreateStreamRequest;
import dev.loam.grpc.v1.FetchedRecord;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.StreamSpec;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.SubscribeResponse;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Subscribe's flow control: many open subscriptions cost no thread each and bounded memory, and a
 * subscriber that does not read holds the server at what gRPC's window allows.
 */
class SubscribeFlowControlIT {
  @TempDir Path dir;
  GrpcTestSupport t;

  @AfterEach
  void stop() {
    if (t != null) {
      t.close();
    }
  }

  private void stream(String name, int partitions) {
    var admin = AdminServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    admin.createStream(
        CreateStreamRequest.newBuilder()
            .setNamespace("ns")
            .setStream(name)
            .setSpec(StreamSpec.newBuilder().setPartitions(partitions))
            .build());
  }

  /** Counts what one subscription received, checking order. */
  static final class Counting
      implements ClientResponseObserver<SubscribeRequest, SubscribeResponse> {
    final AtomicLong next = new AtomicLong();
    final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    final CountDownLatch done;
    final long expected;
    final int initialRequests;
    ClientCallStreamObserver<SubscribeRequest> call;

    Counting(long expected, CountDownLatch done, int initialRequests) {
      this.expected = expected;
      this.done = done;
      this.initialRequests = initialRequests;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<SubscribeRequest> c) {
      call = c;
      if (initialRequests >= 0) {
        c.disableAutoRequestWithInitial(initialRequests);
      }
    }

    @Override
    public void onNext(SubscribeResponse m) {
      for (FetchedRecord r : m.getRecordsList()) {
        if (r.getOffset() != next.get()) {
          errors.add("expected offset " + next.get() + " got " + r.getOffset());
        }
        next.set(r.getOffset() + 1);
      }
      if (next.get() >= expected && done != null) {
        done.countDown();
      }
    }

    @Override
    public void onError(Throwable e) {
      if (!(e instanceof io.grpc.StatusRuntimeException s
          && s.getStatus().getCode() == io.grpc.Status.Code.CANCELLED)) {
        errors.add(String.valueOf(e));
      }
    }

    @Override
    public void onCompleted() {
      errors.add("the server completed the stream");
    }
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  private static void await(BooleanSupplier cond, Duration max, String what) throws Exception {
    long end = System.nanoTime() + max.toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  void thousandSubscriptionsOnOneNodeHoldNoThreadEachAndBoundedMemory() throws Exception {
    t = new GrpcTestSupport(dir);
    int partitions = 10;
    int subscriptions = 1000;
    int perPartition = 5;
    stream("wide", partitions);
    var async = StreamServiceGrpc.newStub(t.client.channel(t.address()));
    long threadsBefore = Thread.getAllStackTraces().size();
    long heapBefore = usedHeap();
    CountDownLatch done = new CountDownLatch(subscriptions);
    List<Counting> subs = new ArrayList<>();
    for (int i = 0; i < subscriptions; i++) {
      Counting c = new Counting(perPartition, done, -1);
      subs.add(c);
      async.subscribe(
          SubscribeRequest.newBuilder()
              .setNamespace("ns")
              .setStream("wide")
              .setPartition(i % partitions)
              .setOffset(0)
              .build(),
          c);
    }
    await(
        () -> t.server.stats().openSubscriptions() == subscriptions,
        Duration.ofSeconds(30),
        "every subscription to open");
    long threadsOpen = Thread.getAllStackTraces().size();
    long heapOpen = usedHeap();
    System.out.printf(
        "1000 subscriptions: threads %d -> %d, used heap after GC %d -> %d KiB%n",
        threadsBefore, threadsOpen, heapBefore >> 10, heapOpen >> 10);
    // A thread per subscription would be +1000; the process (client included) stays flat.
    assertThat(threadsOpen - threadsBefore)
        .as("threads added by 1000 subscriptions")
        .isLessThan(40);
    assertThat(heapOpen - heapBefore)
        .as("heap held by 1000 open subscriptions (client and server)")
        .isLessThan(128L << 20);

    var produce = StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    for (int p = 0; p < partitions; p++) {
      ProduceRequest.Builder b = ProduceRequest.newBuilder().setNamespace("ns").setStream("wide");
      for (int i = 0; i < perPartition; i++) {
        b.addRecords(record(null, "p" + p + "-" + i).toBuilder().setPartition(p));
      }
      produce.produce(b.build());
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).as("every subscriber got its partition").isTrue();
    for (Counting c : subs) {
      assertThat(c.errors).isEmpty();
      assertThat(c.next.get()).isEqualTo(perPartition);
    }
    assertThat(t.server.stats().subscribeRecords()).isEqualTo((long) subscriptions * perPartition);
    for (Counting c : subs) {
      c.call.cancel("done", null);
    }
    await(
        () -> t.server.stats().openSubscriptions() == 0,
        Duration.ofSeconds(30),
        "cancelled subscriptions to be released");
  }

  @Test
  void aSubscriberThatDoesNotReadHoldsTheServerAtItsWindow() throws Exception {
    int subscribeBytes = 64 << 10;
    t = new GrpcTestSupport(dir, b -> b.subscribeBytes(subscribeBytes));
    stream("big", 1);
    var produce = StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    ByteString value = ByteString.copyFrom(new byte[10_000]);
    int batches = 80;
    int perBatch = 10;
    for (int i = 0; i < batches; i++) {
      ProduceRequest.Builder b = ProduceRequest.newBuilder().setNamespace("ns").setStream("big");
      for (int j = 0; j < perBatch; j++) {
        b.addRecords(dev.loam.grpc.v1.Record.newBuilder().setValue(value).setPartition(0));
      }
      produce.produce(b.build());
    }
    long total = (long) batches * perBatch; // 8 MB of values
    Counting slow = new Counting(total, null, 1);
    StreamServiceGrpc.newStub(t.client.channel(t.address()))
        .subscribe(
            SubscribeRequest.newBuilder()
                .setNamespace("ns")
                .setStream("big")
                .setPartition(0)
                .setOffset(0)
                .build(),
            slow);
    await(() -> slow.next.get() > 0, Duration.ofSeconds(10), "the first message");
    Thread.sleep(1500);
    GrpcStats s = t.server.stats();
    // gRPC's default window is 1 MiB per stream; at 64 KiB per message the server may get about
    // 17 messages onto the wire, and holds at most one more: never the 8 MB of the partition.
    assertThat(s.subscribeMessages())
        .as("messages handed to gRPC while the client reads none")
        .isLessThanOrEqualTo(24);
    assertThat(s.subscribeHeldBytes())
        .as("bytes the server holds for the subscription")
        // One message: max_bytes, or one stored batch when a batch is larger (fetch's rule).
        .isLessThanOrEqualTo(Math.max(subscribeBytes, perBatch * 10_000) + 16_384);
    assertThat(slow.next.get()).isLessThan(total);

    slow.call.request(Integer.MAX_VALUE);
    await(() -> slow.next.get() == total, Duration.ofSeconds(30), "the rest of the partition");
    assertThat(slow.errors).isEmpty();
    assertThat(t.server.stats().subscribeRecords()).isEqualTo(total);
    slow.call.cancel("done", null);
  }

  @Test
  void aStoredBatchLargerThanMaxBytesIsCutIntoMessagesAClientAccepts() throws Exception {
    t = new GrpcTestSupport(dir);
    stream("one", 1);
    // One produce of 6 MB: one stored batch, larger than gRPC's default 4 MiB message limit.
    int count = 6000;
    ProduceRequest.Builder b = ProduceRequest.newBuilder().setNamespace("ns").setStream("one");
    ByteString value = ByteString.copyFrom(new byte[1000]);
    for (int i = 0; i < count; i++) {
      b.addRecords(dev.loam.grpc.v1.Record.newBuilder().setValue(value).setPartition(0));
    }
    StreamServiceGrpc.newBlockingStub(t.client.channel(t.address())).produce(b.build());

    int maxBytes = 64 << 10;
    var it =
        StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()))
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .subscribe(
                SubscribeRequest.newBuilder()
                    .setNamespace("ns")
                    .setStream("one")
                    .setPartition(0)
                    .setMaxBytes(maxBytes)
                    .build());
    long next = 0;
    while (next < count) {
      SubscribeResponse m = it.next();
      assertThat(m.getSerializedSize()).isLessThanOrEqualTo(maxBytes + 64);
      for (FetchedRecord r : m.getRecordsList()) {
        assertThat(r.getOffset()).isEqualTo(next++);
      }
      assertThat(m.getNextOffset()).isEqualTo(next);
    }

    var fetch = StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    long offset = 0;
    long seen = 0;
    while (offset < count) {
      var f =
          fetch.fetch(
              dev.loam.grpc.v1.FetchRequest.newBuilder()
                  .setNamespace("ns")
                  .setStream("one")
                  .setPartition(0)
                  .setOffset(offset)
                  .setMaxBytes(maxBytes)
                  .build());
      assertThat(f.getSerializedSize()).isLessThanOrEqualTo(maxBytes + 64);
      for (FetchedRecord r : f.getRecordsList()) {
        assertThat(r.getOffset()).isEqualTo(offset + (seen - (offset)));
        seen++;
      }
      assertThat(f.getNextOffset()).isEqualTo(seen);
      offset = f.getNextOffset();
    }
    assertThat(seen).isEqualTo(count);
  }
}
