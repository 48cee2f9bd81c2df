package dev.loam.grpc.internal;

import dev.loam.api.AppendRecord;
import dev.loam.api.FencedAppendResult;
import dev.loam.api.SourceGroup;
import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.AcquireWriterLeaseRequest;
import dev.loam.grpc.v1.AppendFencedRequest;
import dev.loam.grpc.v1.AppendFencedResponse;
import dev.loam.grpc.v1.GetWriterLeaseRequest;
import dev.loam.grpc.v1.GetWriterLeaseResponse;
import dev.loam.grpc.v1.GroupResult;
import dev.loam.grpc.v1.GroupStatus;
import dev.loam.grpc.v1.WriterLease;
import dev.loam.grpc.v1.WriterServiceGrpc;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code loam.v1.WriterService}: writer leases and fenced appends (docs/design/changelog.md).
 * Served by any node: the lease epoch, checked by the sequencer, fences a writer.
 */
public final class WriterServiceImpl extends WriterServiceGrpc.WriterServiceImplBase {
  private final Calls calls;

  public WriterServiceImpl(Calls calls) {
    this.calls = calls;
  }

  @Override
  public void acquireWriterLease(AcquireWriterLeaseRequest req, StreamObserver<WriterLease> out) {
    calls.unary(
        out,
        Need.PRODUCE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c -> {
          if (req.getLeaseMs() <= 0) {
            throw GrpcErrors.invalid(
                "lease_ms must be positive field=lease_ms value=" + req.getLeaseMs());
          }
          return calls
              .log
              .acquireWriterLease(
                  c.namespace(),
                  Convert.required("stream", req.getStream()),
                  Convert.partition(req.getPartition()),
                  Convert.required("source", req.getSource()),
                  req.getHolder(),
                  Duration.ofMillis(req.getLeaseMs()))
              .thenApply(WriterServiceImpl::lease);
        });
  }

  @Override
  public void appendFenced(AppendFencedRequest req, StreamObserver<AppendFencedResponse> out) {
    calls.unary(
        out,
        Need.PRODUCE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c -> {
          if (req.getGroupsCount() == 0) {
            throw GrpcErrors.invalid("a fenced append needs at least one group field=groups");
          }
          List<SourceGroup> groups = new ArrayList<>(req.getGroupsCount());
          long bytes = 0;
          for (int i = 0; i < req.getGroupsCount(); i++) {
            dev.loam.grpc.v1.SourceGroup g = req.getGroups(i);
            if (g.getRecordsCount() == 0) {
              throw GrpcErrors.invalid(
                  "a source group needs at least one record field=groups[" + i + "].records");
            }
            List<AppendRecord> recs = Convert.records(g.getRecordsList());
            bytes += Convert.bytes(recs);
            groups.add(new SourceGroup(g.getSourceFrom(), g.getSourceTo(), recs));
          }
          // Charged once the request is read, before anything is buffered; a fenced append has no
          // admission step of its own.
          calls.quotas.charge(c.namespace(), bytes);
          return calls
              .log
              .appendFenced(
                  c.namespace(),
                  Convert.required("stream", req.getStream()),
                  Convert.partition(req.getPartition()),
                  Convert.required("source", req.getSource()),
                  req.getLeaseEpoch(),
                  groups)
              .thenApply(WriterServiceImpl::answer);
        });
  }

  @Override
  public void getWriterLease(
      GetWriterLeaseRequest req, StreamObserver<GetWriterLeaseResponse> out) {
    calls.unary(
        out,
        Need.PRODUCE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.getPartition()),
        c ->
            calls
                .log
                .writerLease(
                    c.namespace(),
                    Convert.required("stream", req.getStream()),
                    Convert.partition(req.getPartition()),
                    Convert.required("source", req.getSource()))
                .thenApply(
                    l -> {
                      GetWriterLeaseResponse.Builder b = GetWriterLeaseResponse.newBuilder();
                      l.ifPresent(v -> b.setLease(lease(v)));
                      return b.build();
                    }));
  }

  @Override
  public void createChangelog(
      dev.loam.grpc.v1.CreateChangelogRequest req,
      StreamObserver<dev.loam.grpc.v1.StreamDescription> out) {
    calls.unary(
        out,
        Need.ADMIN,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), -1).creating(),
        c -> {
          dev.loam.api.ChangelogMode mode =
              switch (req.getMode()) {
                case CHANGELOG_MODE_FULL -> dev.loam.api.ChangelogMode.FULL;
                case CHANGELOG_MODE_UPSERT -> dev.loam.api.ChangelogMode.UPSERT;
                default ->
                    throw GrpcErrors.invalid(
                        "mode must be CHANGELOG_MODE_FULL or CHANGELOG_MODE_UPSERT field=mode value="
                            + req.getModeValue());
              };
          return calls
              .log
              .createChangelog(
                  c.namespace(),
                  Convert.required("stream", req.getStream()),
                  Convert.required("source_stream", req.getSourceStream()),
                  mode)
              .thenApply(Convert::stream);
        });
  }

  static WriterLease lease(dev.loam.api.WriterLease l) {
    WriterLease.Builder b =
        WriterLease.newBuilder()
            .setNamespace(l.namespace())
            .setStream(l.stream())
            .setPartition(l.partition())
            .setSource(l.source())
            .setEpoch(l.epoch())
            .setHolder(l.holder())
            .setLeaseExpiresAtMs(l.leaseExpiresAtMillis());
    l.sourceUpto().ifPresent(b::setSourceUpto);
    return b.build();
  }

  static AppendFencedResponse answer(FencedAppendResult r) {
    AppendFencedResponse.Builder b =
        AppendFencedResponse.newBuilder()
            .setSourceUpto(r.sourceUpto())
            .setConsistencyToken(r.consistencyToken());
    for (FencedAppendResult.Group g : r.groups()) {
      GroupResult.Builder gb =
          GroupResult.newBuilder().setSourceFrom(g.sourceFrom()).setSourceTo(g.sourceTo());
      if (g.status() == FencedAppendResult.Status.APPENDED) {
        gb.setStatus(GroupStatus.APPENDED).setOffset(g.baseOffset());
      } else {
        gb.setStatus(GroupStatus.ALREADY_APPENDED);
      }
      b.addGroups(gb);
    }
    return b.build();
  }
}
