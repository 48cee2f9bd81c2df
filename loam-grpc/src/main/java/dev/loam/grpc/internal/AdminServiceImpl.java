package dev.loam.grpc.internal;

import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.AddPartitionsRequest;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.CreateNamespaceRequest;
import dev.loam.grpc.v1.CreateNamespaceResponse;
import dev.loam.grpc.v1.CreateStreamRequest;
import dev.loam.grpc.v1.DeleteNamespaceRequest;
import dev.loam.grpc.v1.DeleteNamespaceResponse;
import dev.loam.grpc.v1.DeleteStreamRequest;
import dev.loam.grpc.v1.DeleteStreamResponse;
import dev.loam.grpc.v1.DescribeStreamRequest;
import dev.loam.grpc.v1.ListNamespacesRequest;
import dev.loam.grpc.v1.ListNamespacesResponse;
import dev.loam.grpc.v1.ListStreamsRequest;
import dev.loam.grpc.v1.ListStreamsResponse;
import dev.loam.grpc.v1.StreamDescription;
import dev.loam.grpc.v1.UpdateStreamRequest;
import io.grpc.stub.StreamObserver;

/** {@code loam.v1.AdminService}: namespaces and streams, through the node's {@code Log}. */
public final class AdminServiceImpl extends AdminServiceGrpc.AdminServiceImplBase {
  private final Calls calls;

  public AdminServiceImpl(Calls calls) {
    this.calls = calls;
  }

  @Override
  public void createNamespace(
      CreateNamespaceRequest req, StreamObserver<CreateNamespaceResponse> out) {
    calls.unary(
        out,
        Need.CLUSTER_ADMIN,
        null,
        ns -> Subject.of(req.getNamespace(), "", -1).creating(),
        c ->
            calls
                .log
                .createNamespace(Convert.required("namespace", req.getNamespace()))
                .thenApply(v -> CreateNamespaceResponse.getDefaultInstance()));
  }

  @Override
  public void listNamespaces(
      ListNamespacesRequest req, StreamObserver<ListNamespacesResponse> out) {
    calls.unary(
        out,
        Need.AUTHENTICATED,
        null,
        ns -> Subject.NONE,
        c ->
            calls
                .log
                .listNamespaces()
                .thenApply(
                    names ->
                        ListNamespacesResponse.newBuilder()
                            .addAllNamespaces(
                                c.principal() == null
                                    ? names
                                    : names.stream()
                                        .filter(n -> c.principal().coversNamespace(n))
                                        .toList())
                            .build()));
  }

  @Override
  public void deleteNamespace(
      DeleteNamespaceRequest req, StreamObserver<DeleteNamespaceResponse> out) {
    calls.unary(
        out,
        Need.CLUSTER_ADMIN,
        null,
        ns -> Subject.of(req.getNamespace(), "", -1),
        c ->
            calls
                .log
                .deleteNamespace(Convert.required("namespace", req.getNamespace()))
                .thenApply(v -> DeleteNamespaceResponse.getDefaultInstance()));
  }

  @Override
  public void createStream(CreateStreamRequest req, StreamObserver<StreamDescription> out) {
    calls.unary(
        out,
        Need.ADMIN,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1).creating(),
        c ->
            calls
                .log
                .createStream(
                    c.namespace(),
                    Convert.required("stream", req.getStream()),
                    Convert.spec(req.getSpec()))
                .thenApply(Convert::stream));
  }

  @Override
  public void describeStream(DescribeStreamRequest req, StreamObserver<StreamDescription> out) {
    calls.unary(
        out,
        Need.NAMESPACE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c ->
            calls
                .log
                .describeStream(c.namespace(), Convert.required("stream", req.getStream()))
                .thenApply(Convert::stream));
  }

  @Override
  public void listStreams(ListStreamsRequest req, StreamObserver<ListStreamsResponse> out) {
    calls.unary(
        out,
        Need.NAMESPACE,
        req.getNamespace(),
        ns -> Subject.of(ns, "", -1),
        c ->
            calls
                .log
                .listStreams(c.namespace())
                .thenApply(
                    l ->
                        ListStreamsResponse.newBuilder()
                            .addAllStreams(l.stream().map(Convert::stream).toList())
                            .build()));
  }

  @Override
  public void updateStream(UpdateStreamRequest req, StreamObserver<StreamDescription> out) {
    calls.unary(
        out,
        Need.ADMIN,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c ->
            calls
                .log
                .updateStream(
                    c.namespace(), Convert.required("stream", req.getStream()), Convert.update(req))
                .thenApply(Convert::stream));
  }

  @Override
  public void addPartitions(AddPartitionsRequest req, StreamObserver<StreamDescription> out) {
    calls.unary(
        out,
        Need.ADMIN,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c ->
            calls
                .log
                .addPartitions(
                    c.namespace(), Convert.required("stream", req.getStream()), req.getPartitions())
                .thenApply(Convert::stream));
  }

  @Override
  public void deleteStream(DeleteStreamRequest req, StreamObserver<DeleteStreamResponse> out) {
    calls.unary(
        out,
        Need.ADMIN,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c ->
            calls
                .log
                .deleteStream(c.namespace(), Convert.required("stream", req.getStream()))
                .thenApply(v -> DeleteStreamResponse.getDefaultInstance()));
  }
}
