package dev.loam.grpc.internal;

import dev.loam.api.AppendRecord;
import dev.loam.api.ProducerIdentity;
import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.AllocateProducerIdRequest;
import dev.loam.grpc.v1.FetchRequest;
import dev.loam.grpc.v1.FetchResponse;
import dev.loam.grpc.v1.ListOffsetsRequest;
import dev.loam.grpc.v1.ListOffsetsResponse;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.ProduceResponse;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.SubscribeResponse;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/** {@code loam.v1.StreamService}: produce, fetch, Subscribe, offsets and producer ids. */
public final class StreamServiceImpl extends StreamServiceGrpc.StreamServiceImplBase {
  private final Calls calls;

  public StreamServiceImpl(Calls calls) {
    this.calls = calls;
  }

  @Override
  public void produce(ProduceRequest req, StreamObserver<ProduceResponse> out) {
    calls.unary(
        out,
        Need.PRODUCE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1),
        c -> {
          String stream = Convert.required("stream", req.getStream());
          List<AppendRecord> records = Convert.records(req.getRecordsList());
          ProducerIdentity producer =
              req.hasProducer() ? Convert.producer(req.getProducer()) : null;
          c.requireTimeLeft();
          long bytes = Convert.bytes(records);
          Runnable admission = () -> calls.quotas.charge(c.namespace(), bytes);
          return calls
              .log
              .append(c.namespace(), stream, records, producer, admission)
              .thenApply(Convert::produced);
        });
  }

  @Override
  public void fetch(FetchRequest req, StreamObserver<FetchResponse> out) {
    calls.unary(
        out,
        Need.CONSUME,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c -> {
          int maxBytes = maxBytes(req.getMaxBytes(), calls.settings.maxFetchBytes());
          if (req.getMaxWaitMs() < 0) {
            throw GrpcErrors.invalid(
                "max_wait_ms must be >= 0 field=max_wait_ms value=" + req.getMaxWaitMs());
          }
          long wait = c.boundedWait(req.getMaxWaitMs());
          return calls
              .log
              .fetch(
                  c.namespace(),
                  Convert.required("stream", req.getStream()),
                  Convert.partition(req.getPartition()),
                  req.getOffset(),
                  maxBytes,
                  Duration.ofMillis(wait),
                  req.hasMinConsistencyToken()
                      ? OptionalLong.of(req.getMinConsistencyToken())
                      : OptionalLong.empty())
              .thenApply(
                  r -> {
                    // A fetch answers whole stored batches, which may be larger than max_bytes
                    // (and than a client accepts in one message): answer at most max_bytes of
                    // records (at least one), and where to fetch on.
                    FetchResponse.Builder b =
                        FetchResponse.newBuilder()
                            .setNextOffset(r.nextOffset())
                            .setHighWatermark(r.highWatermark())
                            .setLogStartOffset(r.logStartOffset());
                    long bytes = 0;
                    for (dev.loam.api.FetchedRecord x : r.records()) {
                      if (x.offset() < req.getOffset()) {
                        continue;
                      }
                      dev.loam.grpc.v1.FetchedRecord m = Convert.record(x);
                      int size = m.getSerializedSize() + 8;
                      if (b.getRecordsCount() > 0 && bytes + size > maxBytes) {
                        b.setNextOffset(x.offset());
                        break;
                      }
                      b.addRecords(m);
                      bytes += size;
                    }
                    return b.build();
                  });
        });
  }

  @Override
  public void subscribe(SubscribeRequest req, StreamObserver<SubscribeResponse> out) {
    SubscribeCall.start(calls, req, out);
  }

  @Override
  public void listOffsets(ListOffsetsRequest req, StreamObserver<ListOffsetsResponse> out) {
    calls.unary(
        out,
        Need.CONSUME,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c ->
            calls
                .log
                .listOffset(
                    c.namespace(),
                    Convert.required("stream", req.getStream()),
                    Convert.partition(req.getPartition()),
                    Convert.offsetSpec(req))
                .thenApply(o -> ListOffsetsResponse.newBuilder().setOffset(o).build()));
  }

  @Override
  public void allocateProducerId(
      AllocateProducerIdRequest req, StreamObserver<dev.loam.grpc.v1.ProducerIdentity> out) {
    calls.unary(
        out,
        Need.PRODUCE_ANYWHERE,
        null,
        ns -> Subject.NONE,
        c -> calls.log.allocateProducerId().thenApply(Convert::producer));
  }

  /** A request's max_bytes: 0 for {@code limit}, else within 1..limit. */
  static int maxBytes(int requested, int limit) {
    if (requested == 0) {
      return limit;
    }
    if (requested < 0 || requested > limit) {
      throw GrpcErrors.invalid(
          "max_bytes must be within 0.." + limit + " field=max_bytes value=" + requested);
    }
    return requested;
  }
}
