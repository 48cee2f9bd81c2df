package dev.loam.grpc;

import static dev.loam.grpc.GrpcTestSupport.failure;
import static dev.loam.grpc.GrpcTestSupport.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.ErrorInfo;
import dev.loam.grpc.v1.AcquireLeaseRequest;
import dev.loam.grpc.v1.AddPartitionsRequest;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.loam.grpc.v1.ClusterServiceGrpc;
import dev.loam.grpc.v1.CommitOffsetRequest;
import dev.loam.grpc.v1.ConsumerServiceGrpc;
import dev.loam.grpc.v1.ConsumerServiceGrpc.ConsumerServiceBlockingStub;
import dev.loam.grpc.v1.ConsumerState;
import dev.loam.grpc.v1.CreateNamespaceRequest;
import dev.loam.grpc.v1.CreateStreamRequest;
import dev.loam.grpc.v1.DeleteNamespaceRequest;
import dev.loam.grpc.v1.DeleteStreamRequest;
import dev.loam.grpc.v1.DescribeStreamRequest;
import dev.loam.grpc.v1.Durability;
import dev.loam.grpc.v1.FetchRequest;
import dev.loam.grpc.v1.FetchResponse;
import dev.loam.grpc.v1.GetConsumerRequest;
import dev.loam.grpc.v1.GetStreamOwnerRequest;
import dev.loam.grpc.v1.ListConsumerStatesRequest;
import dev.loam.grpc.v1.ListNamespacesRequest;
import dev.loam.grpc.v1.ListNodesRequest;
import dev.loam.grpc.v1.ListOffsetsRequest;
import dev.loam.grpc.v1.ListStreamsRequest;
import dev.loam.grpc.v1.Node;
import dev.loam.grpc.v1.OffsetQuery;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.ProduceResponse;
import dev.loam.grpc.v1.ProducerIdentity;
import dev.loam.grpc.v1.Record;
import dev.loam.grpc.v1.StreamDescription;
import dev.loam.grpc.v1.StreamOwner;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.StreamServiceGrpc.StreamServiceBlockingStub;
import dev.loam.grpc.v1.StreamSpec;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.SubscribeResponse;
import dev.loam.grpc.v1.UpdateStreamRequest;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every RPC of loam.v1 through the generated grpc-java stubs against a started server. */
class GrpcApiIT {
  @TempDir Path dir;
  GrpcTestSupport t;
  AdminServiceBlockingStub admin;
  StreamServiceBlockingStub streams;
  ConsumerServiceBlockingStub consumers;

  @BeforeEach
  void start() {
    t = new GrpcTestSupport(dir);
    admin = AdminServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    streams = StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    consumers = ConsumerServiceGrpc.newBlockingStub(t.client.channel(t.address()));
  }

  @AfterEach
  void stop() {
    t.close();
  }

  private StreamDescription createStream(String ns, String stream, int partitions) {
    return admin.createStream(
        CreateStreamRequest.newBuilder()
            .setNamespace(ns)
            .setStream(stream)
            .setSpec(StreamSpec.newBuilder().setPartitions(partitions))
            .build());
  }

  @Test
  void namespaceAndStreamAdmin() {
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("shop").build());
    failure(
        Status.Code.ALREADY_EXISTS,
        "already_exists",
        () ->
            admin.createNamespace(
                CreateNamespaceRequest.newBuilder().setNamespace("shop").build()));
    assertThat(admin.listNamespaces(ListNamespacesRequest.getDefaultInstance()).getNamespacesList())
        .contains("shop");

    StreamDescription d = createStream("shop", "orders", 3);
    assertThat(d.getName()).isEqualTo("orders");
    assertThat(d.getSpec().getPartitions()).isEqualTo(3);
    assertThat(d.getSpec().getDurability()).isEqualTo(Durability.DURABILITY_STANDARD);
    assertThat(d.getSpec().getRetentionMs()).isEqualTo(-1);
    assertThat(d.getPartitionsList()).hasSize(3);
    ErrorInfo dup =
        failure(
            Status.Code.ALREADY_EXISTS, "already_exists", () -> createStream("shop", "orders", 3));
    assertThat(dup.getMetadataMap())
        .containsEntry("namespace", "shop")
        .containsEntry("stream", "orders");

    StreamDescription described =
        admin.describeStream(
            DescribeStreamRequest.newBuilder().setNamespace("shop").setStream("orders").build());
    assertThat(described.getId()).isEqualTo(d.getId());
    assertThat(
            admin
                .listStreams(ListStreamsRequest.newBuilder().setNamespace("shop").build())
                .getStreamsList())
        .extracting(StreamDescription::getName)
        .containsExactly("orders");

    StreamDescription updated =
        admin.updateStream(
            UpdateStreamRequest.newBuilder()
                .setNamespace("shop")
                .setStream("orders")
                .setRetentionMs(3_600_000)
                .build());
    assertThat(updated.getSpec().getRetentionMs()).isEqualTo(3_600_000);
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () ->
            admin.updateStream(
                UpdateStreamRequest.newBuilder().setNamespace("shop").setStream("orders").build()));

    StreamDescription grown =
        admin.addPartitions(
            AddPartitionsRequest.newBuilder()
                .setNamespace("shop")
                .setStream("orders")
                .setPartitions(5)
                .build());
    assertThat(grown.getPartitionsList()).hasSize(5);

    failure(
        Status.Code.FAILED_PRECONDITION,
        "conflict",
        () ->
            admin.deleteNamespace(
                DeleteNamespaceRequest.newBuilder().setNamespace("shop").build()));
    admin.deleteStream(
        DeleteStreamRequest.newBuilder().setNamespace("shop").setStream("orders").build());
    ErrorInfo gone =
        failure(
            Status.Code.NOT_FOUND,
            "not_found",
            () ->
                admin.describeStream(
                    DescribeStreamRequest.newBuilder()
                        .setNamespace("shop")
                        .setStream("orders")
                        .build()));
    assertThat(gone.getMetadataMap()).containsEntry("stream", "orders");
    admin.deleteNamespace(DeleteNamespaceRequest.newBuilder().setNamespace("shop").build());
    assertThat(admin.listNamespaces(ListNamespacesRequest.getDefaultInstance()).getNamespacesList())
        .doesNotContain("shop");
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () -> admin.listStreams(ListStreamsRequest.getDefaultInstance()));
  }

  @Test
  void produceFetchAndOffsets() {
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    createStream("ns", "s", 2);
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(
          record(null, "v" + i).toBuilder().setPartition(1).setTimestampMs(1000 + i).build());
    }
    ProduceResponse p =
        streams.produce(
            ProduceRequest.newBuilder()
                .setNamespace("ns")
                .setStream("s")
                .addAllRecords(records)
                .build());
    assertThat(p.getPositionsList()).hasSize(10);
    assertThat(p.getPositions(9).getOffset()).isEqualTo(9);
    assertThat(p.getPositions(0).getPartition()).isEqualTo(1);
    assertThat(p.getConsistencyToken()).isPositive();

    FetchResponse f =
        streams.fetch(
            FetchRequest.newBuilder()
                .setNamespace("ns")
                .setStream("s")
                .setPartition(1)
                .setOffset(3)
                .setMinConsistencyToken(p.getConsistencyToken())
                .build());
    assertThat(f.getRecordsList()).extracting(r -> r.getValue().toStringUtf8()).startsWith("v3");
    assertThat(f.getRecords(0).getOffset()).isEqualTo(3);
    assertThat(f.getRecords(0).getTimestampMs()).isEqualTo(1003);
    assertThat(f.getRecords(0).hasKey()).isFalse();
    assertThat(f.getHighWatermark()).isEqualTo(10);

    assertThat(offset(OffsetQuery.OFFSET_QUERY_EARLIEST, 0)).isZero();
    assertThat(offset(OffsetQuery.OFFSET_QUERY_LATEST, 0)).isEqualTo(10);
    assertThat(offset(OffsetQuery.OFFSET_QUERY_TIMESTAMP, 1005)).isEqualTo(5);
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () -> offset(OffsetQuery.OFFSET_QUERY_UNSPECIFIED, 0));

    ErrorInfo range =
        failure(
            Status.Code.OUT_OF_RANGE,
            "offset_out_of_range",
            () ->
                streams.fetch(
                    FetchRequest.newBuilder()
                        .setNamespace("ns")
                        .setStream("s")
                        .setPartition(1)
                        .setOffset(99)
                        .build()));
    assertThat(range.getMetadataMap())
        .containsEntry("high_watermark", "10")
        .containsEntry("log_start_offset", "0")
        .containsEntry("partition", "1");
    failure(
        Status.Code.NOT_FOUND,
        "not_found",
        () ->
            streams.produce(
                ProduceRequest.newBuilder()
                    .setNamespace("ns")
                    .setStream("missing")
                    .addRecords(record("k", "v"))
                    .build()));
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () ->
            streams.produce(ProduceRequest.newBuilder().setNamespace("ns").setStream("s").build()));
  }

  private long offset(OffsetQuery q, long ts) {
    return streams
        .listOffsets(
            ListOffsetsRequest.newBuilder()
                .setNamespace("ns")
                .setStream("s")
                .setPartition(1)
                .setQuery(q)
                .setTimestampMs(ts)
                .build())
        .getOffset();
  }

  @Test
  void fetchAtTheHighWatermarkAnswersBeforeTheDeadline() {
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    createStream("ns", "s", 1);
    long start = System.nanoTime();
    FetchResponse f =
        streams
            .withDeadlineAfter(1500, TimeUnit.MILLISECONDS)
            .fetch(
                FetchRequest.newBuilder()
                    .setNamespace("ns")
                    .setStream("s")
                    .setPartition(0)
                    .setOffset(0)
                    .setMaxWaitMs(30_000)
                    .build());
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(f.getRecordsList()).isEmpty();
    assertThat(ms).as("waited about the deadline, not max_wait").isBetween(700L, 1500L);
  }

  @Test
  void idempotentProducer() {
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    createStream("ns", "s", 1);
    ProducerIdentity id =
        streams.allocateProducerId(dev.loam.grpc.v1.AllocateProducerIdRequest.getDefaultInstance());
    assertThat(id.getProducerId()).isNotNegative();
    assertThat(id.getBaseSequence()).isZero();
    ProduceRequest req =
        ProduceRequest.newBuilder()
            .setNamespace("ns")
            .setStream("s")
            .addRecords(record("a", "1").toBuilder().setPartition(0))
            .addRecords(record("a", "2").toBuilder().setPartition(0))
            .setProducer(id)
            .build();
    ProduceResponse first = streams.produce(req);
    ProduceResponse retry = streams.produce(req);
    assertThat(first.getDuplicate()).isFalse();
    assertThat(retry.getDuplicate()).isTrue();
    assertThat(retry.getPositionsList()).isEqualTo(first.getPositionsList());
    assertThat(offset0Latest()).isEqualTo(2);
    failure(
        Status.Code.FAILED_PRECONDITION,
        "conflict",
        () ->
            streams.produce(
                req.toBuilder().setProducer(id.toBuilder().setBaseSequence(7)).build()));
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () ->
            streams.produce(
                req.toBuilder().setProducer(id.toBuilder().setProducerEpoch(40_000)).build()));
  }

  private long offset0Latest() {
    return streams
        .listOffsets(
            ListOffsetsRequest.newBuilder()
                .setNamespace("ns")
                .setStream("s")
                .setPartition(0)
                .setQuery(OffsetQuery.OFFSET_QUERY_LATEST)
                .build())
        .getOffset();
  }

  @Test
  void namedConsumers() {
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    createStream("ns", "s", 2);
    streams.produce(
        ProduceRequest.newBuilder()
            .setNamespace("ns")
            .setStream("s")
            .addRecords(record(null, "x").toBuilder().setPartition(0))
            .addRecords(record(null, "y").toBuilder().setPartition(0))
            .build());
    assertThat(
            consumers
                .getConsumer(
                    GetConsumerRequest.newBuilder()
                        .setNamespace("ns")
                        .setConsumer("billing")
                        .setStream("s")
                        .setPartition(0)
                        .build())
                .hasState())
        .isFalse();
    AcquireLeaseRequest lease =
        AcquireLeaseRequest.newBuilder()
            .setNamespace("ns")
            .setConsumer("billing")
            .setStream("s")
            .setPartition(0)
            .setHolder("worker-1")
            .setLeaseMs(60_000)
            .build();
    ConsumerState s = consumers.acquireLease(lease);
    assertThat(s.getGeneration()).isEqualTo(1);
    assertThat(s.getHolder()).isEqualTo("worker-1");
    assertThat(s.hasCommittedOffset()).isFalse();
    failure(
        Status.Code.FAILED_PRECONDITION,
        "conflict",
        () -> consumers.acquireLease(lease.toBuilder().setHolder("worker-2").build()));

    CommitOffsetRequest commit =
        CommitOffsetRequest.newBuilder()
            .setNamespace("ns")
            .setConsumer("billing")
            .setStream("s")
            .setPartition(0)
            .setGeneration(1)
            .setOffset(2)
            .build();
    assertThat(consumers.commitOffset(commit).getCommittedOffset()).isEqualTo(2);
    failure(
        Status.Code.FAILED_PRECONDITION,
        "fenced",
        () -> consumers.commitOffset(commit.toBuilder().setGeneration(5).build()));
    failure(
        Status.Code.OUT_OF_RANGE,
        "offset_out_of_range",
        () -> consumers.commitOffset(commit.toBuilder().setOffset(50).build()));

    ConsumerState read =
        consumers
            .getConsumer(
                GetConsumerRequest.newBuilder()
                    .setNamespace("ns")
                    .setConsumer("billing")
                    .setStream("s")
                    .setPartition(0)
                    .build())
            .getState();
    assertThat(read.getCommittedOffset()).isEqualTo(2);
    assertThat(
            consumers
                .listConsumerStates(
                    ListConsumerStatesRequest.newBuilder()
                        .setNamespace("ns")
                        .setConsumer("billing")
                        .setStream("s")
                        .build())
                .getStatesList())
        .extracting(ConsumerState::getPartition)
        .containsExactly(0);
  }

  @Test
  void clusterNodesAndOwner() throws InterruptedException {
    var cluster = ClusterServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    List<Node> nodes = cluster.listNodes(ListNodesRequest.getDefaultInstance()).getNodesList();
    assertThat(nodes).extracting(Node::getNodeId).containsExactly("n1");
    assertThat(nodes.get(0).getEndpointsMap()).containsEntry("grpc", t.address());
    assertThat(
            cluster
                .listNodes(ListNodesRequest.newBuilder().setZone("nowhere").build())
                .getNodesList())
        .isEmpty();
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    createStream("ns", "s", 1);
    // Placement runs in the background: the stream gets its owner a moment after it is created.
    StreamOwner o;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    do {
      o =
          cluster.getStreamOwner(
              GetStreamOwnerRequest.newBuilder().setNamespace("ns").setStream("s").build());
      if (o.getState().equals("open") || System.nanoTime() > end) {
        break;
      }
      Thread.sleep(20);
    } while (true);
    assertThat(o.getState()).isEqualTo("open");
    assertThat(o.getOwnerNodeId()).isEqualTo("n1");
    assertThat(o.getOwnerGrpcAddress()).isEqualTo(t.address());
  }

  @Test
  void subscribeDeliversWhatCommittedAndWhatCommitsLater() throws Exception {
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("ns").build());
    createStream("ns", "s", 1);
    for (int i = 0; i < 5; i++) {
      streams.produce(
          ProduceRequest.newBuilder()
              .setNamespace("ns")
              .setStream("s")
              .addRecords(record(null, "r" + i).toBuilder().setPartition(0))
              .build());
    }
    Iterator<SubscribeResponse> it =
        StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()))
            .withDeadlineAfter(20, TimeUnit.SECONDS)
            .subscribe(
                SubscribeRequest.newBuilder()
                    .setNamespace("ns")
                    .setStream("s")
                    .setPartition(0)
                    .setOffset(2)
                    .build());
    List<String> seen = new ArrayList<>();
    CompletableFuture<Void> later =
        CompletableFuture.runAsync(
            () -> {
              for (int i = 5; i < 8; i++) {
                streams.produce(
                    ProduceRequest.newBuilder()
                        .setNamespace("ns")
                        .setStream("s")
                        .addRecords(record(null, "r" + i).toBuilder().setPartition(0))
                        .build());
              }
            });
    long expect = 2;
    while (seen.size() < 6) {
      SubscribeResponse m = it.next();
      for (var r : m.getRecordsList()) {
        assertThat(r.getOffset()).isEqualTo(expect++);
        seen.add(r.getValue().toStringUtf8());
      }
      assertThat(m.getNextOffset()).isEqualTo(expect);
    }
    later.get(10, TimeUnit.SECONDS);
    assertThat(seen).containsExactly("r2", "r3", "r4", "r5", "r6", "r7");
  }

  @Test
  void healthAndReflection() throws Exception {
    var health = HealthGrpc.newBlockingStub(t.client.channel(t.address()));
    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(
            health
                .check(HealthCheckRequest.newBuilder().setService("loam.v1.StreamService").build())
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

    CompletableFuture<List<String>> names = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> req =
        ServerReflectionGrpc.newStub(t.client.channel(t.address()))
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse r) {
                    names.complete(
                        r.getListServicesResponse().getServiceList().stream()
                            .map(ServiceResponse::getName)
                            .toList());
                  }

                  @Override
                  public void onError(Throwable e) {
                    names.completeExceptionally(e);
                  }

                  @Override
                  public void onCompleted() {}
                });
    req.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    assertThat(names.get(10, TimeUnit.SECONDS))
        .contains(
            "loam.v1.AdminService",
            "loam.v1.StreamService",
            "loam.v1.ConsumerService",
            "loam.v1.ClusterService",
            "grpc.health.v1.Health");
    req.onCompleted();
  }
}
