package dev.loam.grpc;

import static dev.loam.grpc.GrpcTestSupport.failure;
import static dev.loam.grpc.GrpcTestSupport.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.loam.api.ApiKeySpec;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.CreateNamespaceRequest;
import dev.loam.grpc.v1.DescribeStreamRequest;
import dev.loam.grpc.v1.ListNamespacesRequest;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.ProduceResponse;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.tls.TestPki;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** API keys, roles and scopes, the ingest quota and TLS on the gRPC listener. */
class GrpcSecurityIT {
  @TempDir Path dir;

  @Test
  void keysRolesAndScopes() {
    try (GrpcTestSupport t =
        new GrpcTestSupport(dir, b -> b.authentication(Authentication.REQUIRED))) {
      t.node.log().createNamespace("shop").join();
      t.node.log().createNamespace("other").join();
      t.node.log().createStream("shop", "orders", StreamSpec.standard(1)).join();
      String producer =
          t.node.log().createApiKey(ApiKeySpec.inNamespace("shop", Role.PRODUCE)).join().token();
      String consumer =
          t.node.log().createApiKey(ApiKeySpec.inNamespace("shop", Role.CONSUME)).join().token();
      String admin =
          t.node.log().createApiKey(ApiKeySpec.clusterWide(Role.CLUSTER_ADMIN)).join().token();

      var anonymous = StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()));
      failure(
          Status.Code.UNAUTHENTICATED,
          "unauthenticated",
          () -> anonymous.produce(produce("shop").build()));
      // The health service needs no key: a load balancer probes without one.
      assertThat(
              HealthGrpc.newBlockingStub(t.client.channel(t.address()))
                  .check(HealthCheckRequest.getDefaultInstance())
                  .getStatus())
          .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);

      try (LoamGrpcClient p = client(t, producer);
          LoamGrpcClient c = client(t, consumer);
          LoamGrpcClient a = client(t, admin);
          LoamGrpcClient wrong = client(t, producer.substring(0, producer.length() - 2) + "xx")) {
        // A namespace-scoped key implies its namespace.
        ProduceResponse r =
            p.call(ch -> StreamServiceGrpc.newBlockingStub(ch).produce(produce("").build()));
        assertThat(r.getPositions(0).getOffset()).isZero();
        failure(
            Status.Code.PERMISSION_DENIED,
            "forbidden",
            () ->
                p.call(
                    ch -> StreamServiceGrpc.newBlockingStub(ch).produce(produce("other").build())));
        failure(
            Status.Code.PERMISSION_DENIED,
            "forbidden",
            () ->
                c.call(
                    ch -> StreamServiceGrpc.newBlockingStub(ch).produce(produce("shop").build())));
        failure(
            Status.Code.PERMISSION_DENIED,
            "forbidden",
            () ->
                p.call(
                    ch ->
                        AdminServiceGrpc.newBlockingStub(ch)
                            .createNamespace(
                                CreateNamespaceRequest.newBuilder().setNamespace("x").build())));
        failure(
            Status.Code.UNAUTHENTICATED,
            "unauthenticated",
            () ->
                wrong.call(
                    ch -> StreamServiceGrpc.newBlockingStub(ch).produce(produce("shop").build())));
        assertThat(
                c.call(
                        ch ->
                            AdminServiceGrpc.newBlockingStub(ch)
                                .describeStream(
                                    DescribeStreamRequest.newBuilder().setStream("orders").build()))
                    .getNamespace())
            .isEqualTo("shop");
        assertThat(
                c.call(
                        ch ->
                            AdminServiceGrpc.newBlockingStub(ch)
                                .listNamespaces(ListNamespacesRequest.getDefaultInstance()))
                    .getNamespacesList())
            .containsExactly("shop");
        a.call(
            ch ->
                AdminServiceGrpc.newBlockingStub(ch)
                    .createNamespace(
                        CreateNamespaceRequest.newBuilder().setNamespace("x").build()));
        assertThat(t.node.log().listNamespaces().join()).contains("x");
      }
    }
  }

  private static LoamGrpcClient client(GrpcTestSupport t, String key) {
    return LoamGrpcClient.builder().addresses(List.of(t.address())).apiKey(key).build();
  }

  private static ProduceRequest.Builder produce(String ns) {
    return ProduceRequest.newBuilder()
        .setNamespace(ns)
        .setStream("orders")
        .addRecords(record("k", "v"));
  }

  @Test
  void overQuotaIsResourceExhaustedWithRetryInfoAndAppendsNothing() {
    try (GrpcTestSupport t =
        new GrpcTestSupport(dir, b -> b.ingestQuota(IngestQuota.of(1000, 1000)))) {
      t.node.log().createNamespace("shop").join();
      t.node.log().createStream("shop", "orders", StreamSpec.standard(1)).join();
      var s = StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()));
      ProduceRequest big =
          ProduceRequest.newBuilder()
              .setNamespace("shop")
              .setStream("orders")
              .addRecords(record(null, "x".repeat(900)))
              .build();
      s.produce(big);
      StatusRuntimeException e =
          org.assertj.core.api.Assertions.catchThrowableOfType(
              StatusRuntimeException.class, () -> s.produce(big));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      ErrorInfo info = LoamGrpcClient.errorInfo(e).orElseThrow();
      assertThat(info.getReason()).isEqualTo("quota_exceeded");
      assertThat(info.getMetadataMap())
          .containsEntry("namespace", "shop")
          .containsEntry("limit_bytes_per_sec", "1000")
          .containsEntry("request_bytes", "900");
      RetryInfo retry = null;
      for (Any a : StatusProto.fromThrowable(e).getDetailsList()) {
        if (a.is(RetryInfo.class)) {
          retry = unpack(a);
        }
      }
      assertThat(retry).as("RetryInfo").isNotNull();
      assertThat(retry.getRetryDelay().getSeconds()).isPositive();
      assertThat(
              t.node
                  .log()
                  .describeStream("shop", "orders")
                  .join()
                  .partitions()
                  .get(0)
                  .highWatermark())
          .as("the refused produce appended nothing")
          .isEqualTo(1);
    }
  }

  private static RetryInfo unpack(Any a) {
    try {
      return a.unpack(RetryInfo.class);
    } catch (com.google.protobuf.InvalidProtocolBufferException x) {
      throw new AssertionError(x);
    }
  }

  @Test
  void tlsOnly() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "grpc");
    TestPki.Issued cert = ca.issue("localhost");
    try (GrpcTestSupport t =
        new GrpcTestSupport(dir.resolve("node"), b -> b.tls(cert.settings()))) {
      t.node.log().createNamespace("shop").join();
      t.node.log().createStream("shop", "orders", StreamSpec.standard(1)).join();
      ManagedChannel tls =
          Grpc.newChannelBuilder(
                  "localhost:" + t.server.port(),
                  TlsChannelCredentials.newBuilder()
                      .trustManager(ca.caCertificate().toFile())
                      .build())
              .build();
      try {
        ProduceResponse r = StreamServiceGrpc.newBlockingStub(tls).produce(produce("shop").build());
        assertThat(r.getPositionsCount()).isEqualTo(1);
      } finally {
        tls.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      // Plaintext reaches no service.
      StatusRuntimeException e =
          org.assertj.core.api.Assertions.catchThrowableOfType(
              StatusRuntimeException.class,
              () ->
                  StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()))
                      .withDeadlineAfter(5, TimeUnit.SECONDS)
                      .produce(produce("shop").build()));
      assertThat(e.getStatus().getCode())
          .isIn(Status.Code.UNAVAILABLE, Status.Code.INTERNAL, Status.Code.UNKNOWN);
      assertThat(
              t.node
                  .log()
                  .describeStream("shop", "orders")
                  .join()
                  .partitions()
                  .get(0)
                  .highWatermark())
          .isEqualTo(1);
    }
  }
}
