package dev.loam.grpc.internal;

import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.ClusterServiceGrpc;
import dev.loam.grpc.v1.GetStreamOwnerRequest;
import dev.loam.grpc.v1.ListNodesRequest;
import dev.loam.grpc.v1.ListNodesResponse;
import dev.loam.grpc.v1.StreamOwner;
import io.grpc.stub.StreamObserver;
import java.util.Optional;

/** {@code loam.v1.ClusterService}: the live nodes by zone and a stream's owner. */
public final class ClusterServiceImpl extends ClusterServiceGrpc.ClusterServiceImplBase {
  private final Calls calls;

  public ClusterServiceImpl(Calls calls) {
    this.calls = calls;
  }

  @Override
  public void listNodes(ListNodesRequest req, StreamObserver<ListNodesResponse> out) {
    calls.unary(
        out,
        Need.AUTHENTICATED,
        null,
        ns -> Subject.NONE,
        c ->
            calls
                .log
                .listNodes(req.getZone().isEmpty() ? Optional.empty() : Optional.of(req.getZone()))
                .thenApply(
                    l ->
                        ListNodesResponse.newBuilder()
                            .addAllNodes(l.stream().map(Convert::node).toList())
                            .build()));
  }

  @Override
  public void getStreamOwner(GetStreamOwnerRequest req, StreamObserver<StreamOwner> out) {
    calls.unary(
        out,
        Need.NAMESPACE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c ->
            calls
                .log
                .streamOwner(c.namespace(), Convert.required("stream", req.getStream()))
                .thenCompose(
                    o ->
                        (o.ownerNodeId().isEmpty()
                                ? java.util.concurrent.CompletableFuture.completedFuture("")
                                : calls.ownerGrpcAddress(o.ownerNodeId()))
                            .thenApply(
                                grpc ->
                                    StreamOwner.newBuilder()
                                        .setState(o.state())
                                        .setOwnerNodeId(o.ownerNodeId())
                                        .setOwnerGrpcAddress(grpc)
                                        .setOwnerHttpAddress(o.ownerAddress())
                                        .setStreamEpoch(o.streamEpoch())
                                        .setTransferTarget(o.transferTarget())
                                        .build())));
  }
}
