package dev.loam.grpc.internal;

import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.AcquireLeaseRequest;
import dev.loam.grpc.v1.CommitOffsetRequest;
import dev.loam.grpc.v1.ConsumerServiceGrpc;
import dev.loam.grpc.v1.ConsumerState;
import dev.loam.grpc.v1.GetConsumerRequest;
import dev.loam.grpc.v1.GetConsumerResponse;
import dev.loam.grpc.v1.ListConsumerStatesRequest;
import dev.loam.grpc.v1.ListConsumerStatesResponse;
import io.grpc.stub.StreamObserver;
import java.time.Duration;

/** {@code loam.v1.ConsumerService}: named consumers' leases, commits and state. */
public final class ConsumerServiceImpl extends ConsumerServiceGrpc.ConsumerServiceImplBase {
  private final Calls calls;

  public ConsumerServiceImpl(Calls calls) {
    this.calls = calls;
  }

  @Override
  public void acquireLease(AcquireLeaseRequest req, StreamObserver<ConsumerState> out) {
    calls.unary(
        out,
        Need.CONSUME,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c -> {
          if (req.getLeaseMs() <= 0) {
            throw GrpcErrors.invalid(
                "lease_ms must be positive field=lease_ms value=" + req.getLeaseMs());
          }
          return calls
              .log
              .acquireConsumerLease(
                  c.namespace(),
                  Convert.required("consumer", req.getConsumer()),
                  Convert.required("stream", req.getStream()),
                  Convert.partition(req.getPartition()),
                  req.getHolder(),
                  Duration.ofMillis(req.getLeaseMs()))
              .thenApply(Convert::consumer);
        });
  }

  @Override
  public void commitOffset(CommitOffsetRequest req, StreamObserver<ConsumerState> out) {
    calls.unary(
        out,
        Need.CONSUME,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c ->
            calls
                .log
                .commitConsumerOffset(
                    c.namespace(),
                    Convert.required("consumer", req.getConsumer()),
                    Convert.required("stream", req.getStream()),
                    Convert.partition(req.getPartition()),
                    req.getGeneration(),
                    req.getOffset())
                .thenApply(Convert::consumer));
  }

  @Override
  public void getConsumer(GetConsumerRequest req, StreamObserver<GetConsumerResponse> out) {
    calls.unary(
        out,
        Need.CONSUME,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c ->
            calls
                .log
                .consumerState(
                    c.namespace(),
                    Convert.required("consumer", req.getConsumer()),
                    Convert.required("stream", req.getStream()),
                    Convert.partition(req.getPartition()))
                .thenApply(
                    s -> {
                      GetConsumerResponse.Builder b = GetConsumerResponse.newBuilder();
                      s.ifPresent(v -> b.setState(Convert.consumer(v)));
                      return b.build();
                    }));
  }

  @Override
  public void listConsumerStates(
      ListConsumerStatesRequest req, StreamObserver<ListConsumerStatesResponse> out) {
    calls.unary(
        out,
        Need.CONSUME,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c ->
            calls
                .log
                .consumerStates(
                    c.namespace(),
                    Convert.required("consumer", req.getConsumer()),
                    Convert.required("stream", req.getStream()))
                .thenApply(
                    l ->
                        ListConsumerStatesResponse.newBuilder()
                            .addAllStates(l.stream().map(Convert::consumer).toList())
                            .build()));
  }
}
