package dev.loam.grpc;

import static dev.loam.grpc.GrpcTestSupport.failure;
import static dev.loam.grpc.GrpcTestSupport.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.ErrorInfo;
import dev.loam.api.StreamOwner;
import dev.loam.api.StreamSpec;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.AcquireLeaseRequest;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.ConsumerServiceGrpc;
import dev.loam.grpc.v1.FetchRequest;
import dev.loam.grpc.v1.FetchResponse;
import dev.loam.grpc.v1.FetchedRecord;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.ProduceResponse;
import dev.loam.grpc.v1.ProducerIdentity;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.UpdateStreamRequest;
import dev.loam.test.LoamTestCluster;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes on one log, each with a gRPC server: owner redirects, a subscription across a
 * reconnect and an owner change, and an idempotent producer retried through another node.
 */
class ThreeNodeIT {
  @TempDir Path dir;
  LoamTestCluster cluster;
  final List<LoamGrpcServer> servers = new ArrayList<>();

  @BeforeEach
  void start() {
    cluster =
        LoamTestCluster.builder()
            .nodes(3)
            .mode(LoamTestCluster.Mode.SHARED_METASTORE)
            .dataDirectory(dir)
            .start();
    for (int i = 0; i < 3; i++) {
      servers.add(LoamGrpcServer.start(cluster.node(i), GrpcSettings.builder().port(0).build()));
    }
    cluster.await(cluster.log(0).createNamespace("ns"), "namespace");
    cluster.await(cluster.log(0).createStream("ns", "s", StreamSpec.standard(2)), "stream");
    cluster.awaitVisible("ns", "s");
  }

  @AfterEach
  void stop() {
    for (LoamGrpcServer s : servers) {
      s.close();
    }
    cluster.close();
  }

  private String address(int i) {
    return servers.get(i).address();
  }

  private int indexOf(String nodeId) {
    for (int i = 0; i < 3; i++) {
      if (cluster.nodeId(i).equals(nodeId)) {
        return i;
      }
    }
    throw new AssertionError("no node " + nodeId);
  }

  /** The owner's index, once the stream has one (placement runs in the background). */
  private int owner() {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      StreamOwner o = cluster.await(cluster.log(0).streamOwner("ns", "s"), "owner");
      if (o.state().equals("open") && !o.ownerNodeId().isEmpty()) {
        return indexOf(o.ownerNodeId());
      }
      if (System.nanoTime() > end) {
        throw new AssertionError("the stream got no owner: " + o);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void aNonOwnerNamesTheOwnersGrpcAddressAndTheClientFollowsIt() {
    int owner = owner();
    int other = (owner + 1) % 3;
    LoamGrpcClient raw = LoamGrpcClient.builder().addresses(List.of(address(other))).build();
    try (raw) {
      ErrorInfo info =
          failure(
              Status.Code.FAILED_PRECONDITION,
              "not_owner",
              () ->
                  AdminServiceGrpc.newBlockingStub(raw.channel(address(other)))
                      .updateStream(
                          UpdateStreamRequest.newBuilder()
                              .setNamespace("ns")
                              .setStream("s")
                              .setRetentionMs(60_000)
                              .build()));
      assertThat(info.getMetadataMap())
          .containsEntry("owner", cluster.nodeId(owner))
          .containsEntry("owner_grpc_address", address(owner));

      var updated =
          raw.call(
              ch ->
                  AdminServiceGrpc.newBlockingStub(ch)
                      .updateStream(
                          UpdateStreamRequest.newBuilder()
                              .setNamespace("ns")
                              .setStream("s")
                              .setRetentionMs(60_000)
                              .build()));
      assertThat(updated.getSpec().getRetentionMs()).isEqualTo(60_000);
      var lease =
          raw.call(
              ch ->
                  ConsumerServiceGrpc.newBlockingStub(ch)
                      .acquireLease(
                          AcquireLeaseRequest.newBuilder()
                              .setNamespace("ns")
                              .setConsumer("c")
                              .setStream("s")
                              .setPartition(0)
                              .setHolder("h")
                              .setLeaseMs(30_000)
                              .build()));
      assertThat(lease.getGeneration()).isEqualTo(1);
    }
  }

  @Test
  void aSubscriptionDeliversEveryRecordOnceInOrderAcrossAReconnectAndAnOwnerChange()
      throws Exception {
    int total = 300;
    List<FetchedRecord> got = Collections.synchronizedList(new ArrayList<>());
    int owner = owner();
    // Subscribe through a node that is not the owner, so closing it is a reconnect and moving
    // the ownership is a separate event.
    int first = (owner + 1) % 3;
    List<String> order =
        List.of(address(first), address((first + 1) % 3), address((first + 2) % 3));
    try (LoamGrpcClient client = LoamGrpcClient.builder().addresses(order).build()) {
      LoamGrpcClient.Subscription sub =
          client.subscribe(
              SubscribeRequest.newBuilder()
                  .setNamespace("ns")
                  .setStream("s")
                  .setPartition(1)
                  .setOffset(0)
                  .build(),
              got::add);
      var producer = StreamServiceGrpc.newBlockingStub(client.channel(address(owner)));
      for (int i = 0; i < total; i++) {
        producer.produce(
            ProduceRequest.newBuilder()
                .setNamespace("ns")
                .setStream("s")
                .addRecords(record(null, "r" + i).toBuilder().setPartition(1))
                .build());
        if (i == 100) {
          waitFor(() -> got.size() > 50, "records before the reconnect");
          servers.get(first).close(); // the subscription's node stops serving gRPC
        }
        if (i == 200) {
          int target = (owner + 2) % 3;
          cluster.await(
              cluster.log(owner).transferStream("ns", "s", cluster.nodeId(target)), "transfer");
          waitFor(() -> owner() == target, "the owner change");
        }
      }
      waitFor(() -> got.size() >= total, "every record");
      Thread.sleep(300); // nothing more may arrive
      sub.close();
      assertThat(sub.resumes()).as("the subscription resumed").isPositive();
    }
    assertThat(got).hasSize(total);
    for (int i = 0; i < total; i++) {
      assertThat(got.get(i).getOffset()).isEqualTo(i);
      assertThat(got.get(i).getValue().toStringUtf8()).isEqualTo("r" + i);
    }
  }

  @Test
  void anIdempotentProducerRetriedThroughAnotherNodeWritesNoDuplicate() throws Exception {
    try (LoamGrpcClient client =
        LoamGrpcClient.builder().addresses(List.of(address(0), address(1), address(2))).build()) {
      var n0 = StreamServiceGrpc.newBlockingStub(client.channel(address(0)));
      var n1 = StreamServiceGrpc.newBlockingStub(client.channel(address(1)));
      ProducerIdentity id =
          n0.allocateProducerId(dev.loam.grpc.v1.AllocateProducerIdRequest.getDefaultInstance());
      int appends = 20;
      int perAppend = 3;
      List<Long> firstOffsets = new ArrayList<>();
      for (int a = 0; a < appends; a++) {
        ProduceRequest.Builder b =
            ProduceRequest.newBuilder()
                .setNamespace("ns")
                .setStream("s")
                .setProducer(id.toBuilder().setBaseSequence(a * perAppend));
        for (int j = 0; j < perAppend; j++) {
          b.addRecords(record(null, "a" + a + "-" + j).toBuilder().setPartition(0));
        }
        ProduceRequest req = b.build();
        // The first attempt's answer is lost: on odd appends the client gives up before it can
        // arrive (the append may or may not have happened), on even ones it arrives and is
        // dropped. The retry goes through another node.
        try {
          if (a % 2 == 1) {
            n0.withDeadlineAfter(1, TimeUnit.MILLISECONDS).produce(req);
          } else {
            n0.produce(req);
          }
        } catch (StatusRuntimeException e) {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        }
        ProduceResponse retry = null;
        for (int attempt = 0; retry == null; attempt++) {
          try {
            retry = n1.withDeadlineAfter(20, TimeUnit.SECONDS).produce(req);
          } catch (StatusRuntimeException e) {
            // The first attempt may still be in flight: the sequencer answers a conflict until
            // it lands, then the duplicate.
            if (attempt > 50) {
              throw e;
            }
            Thread.sleep(50);
          }
        }
        if (a % 2 == 0) {
          assertThat(retry.getDuplicate()).as("the retry of a delivered append").isTrue();
        }
        firstOffsets.add(retry.getPositions(0).getOffset());
      }
      FetchResponse all =
          n1.fetch(
              FetchRequest.newBuilder()
                  .setNamespace("ns")
                  .setStream("s")
                  .setPartition(0)
                  .setOffset(0)
                  .build());
      List<String> values =
          all.getRecordsList().stream().map(r -> r.getValue().toStringUtf8()).toList();
      List<String> expected = new ArrayList<>();
      for (int a = 0; a < appends; a++) {
        for (int j = 0; j < perAppend; j++) {
          expected.add("a" + a + "-" + j);
        }
      }
      assertThat(values).as("each record once, in order").containsExactlyElementsOf(expected);
      assertThat(all.getHighWatermark()).isEqualTo((long) appends * perAppend);
      for (int a = 0; a < appends; a++) {
        assertThat(firstOffsets.get(a)).isEqualTo((long) a * perAppend);
      }
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier cond, String what)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
