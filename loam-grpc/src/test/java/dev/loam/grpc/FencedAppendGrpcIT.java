package dev.loam.grpc;

import static dev.loam.grpc.GrpcTestSupport.failure;
import static dev.loam.grpc.GrpcTestSupport.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.grpc.v1.AcquireWriterLeaseRequest;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.AppendFencedRequest;
import dev.loam.grpc.v1.AppendFencedResponse;
import dev.loam.grpc.v1.CreateNamespaceRequest;
import dev.loam.grpc.v1.CreateStreamRequest;
import dev.loam.grpc.v1.FetchRequest;
import dev.loam.grpc.v1.GetWriterLeaseRequest;
import dev.loam.grpc.v1.GroupStatus;
import dev.loam.grpc.v1.SourceGroup;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.StreamSpec;
import dev.loam.grpc.v1.WriterLease;
import dev.loam.grpc.v1.WriterServiceGrpc;
import dev.loam.grpc.v1.WriterServiceGrpc.WriterServiceBlockingStub;
import io.grpc.Status;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam.v1.WriterService} through the generated grpc-java stubs against a started server: an
 * overlapping retry appends only the new part, a stale epoch is FAILED_PRECONDITION fenced, another
 * holder's live lease is conflict, a bad group is INVALID_ARGUMENT.
 */
class FencedAppendGrpcIT {
  @TempDir Path dir;
  GrpcTestSupport t;
  WriterServiceBlockingStub writers;

  @BeforeEach
  void start() {
    t = new GrpcTestSupport(dir);
    var admin = AdminServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    admin.createNamespace(CreateNamespaceRequest.newBuilder().setNamespace("shop").build());
    admin.createStream(
        CreateStreamRequest.newBuilder()
            .setNamespace("shop")
            .setStream("totals")
            .setSpec(StreamSpec.newBuilder().setPartitions(1))
            .build());
    writers = WriterServiceGrpc.newBlockingStub(t.client.channel(t.address()));
  }

  @AfterEach
  void stop() {
    if (t != null) {
      t.close();
    }
  }

  private static SourceGroup group(long from, long to) {
    SourceGroup.Builder b = SourceGroup.newBuilder().setSourceFrom(from).setSourceTo(to);
    for (long i = from; i <= to; i++) {
      b.addRecords(record("k" + i, "v" + i));
    }
    return b.build();
  }

  private AppendFencedResponse append(long epoch, SourceGroup... groups) {
    AppendFencedRequest.Builder b =
        AppendFencedRequest.newBuilder()
            .setNamespace("shop")
            .setStream("totals")
            .setPartition(0)
            .setSource("orders-0")
            .setLeaseEpoch(epoch);
    for (SourceGroup g : groups) {
      b.addGroups(g);
    }
    return writers.appendFenced(b.build());
  }

  private AcquireWriterLeaseRequest lease(String holder) {
    return AcquireWriterLeaseRequest.newBuilder()
        .setNamespace("shop")
        .setStream("totals")
        .setPartition(0)
        .setSource("orders-0")
        .setHolder(holder)
        .setLeaseMs(60_000)
        .build();
  }

  @Test
  void anOverlappingRetryAppendsOnlyTheNewPartAndAStaleEpochIsFenced() {
    GetWriterLeaseRequest get =
        GetWriterLeaseRequest.newBuilder()
            .setNamespace("shop")
            .setStream("totals")
            .setPartition(0)
            .setSource("orders-0")
            .build();
    assertThat(writers.getWriterLease(get).hasLease()).isFalse();
    WriterLease l = writers.acquireWriterLease(lease("job-1"));
    assertThat(l.getEpoch()).isEqualTo(1);
    assertThat(l.hasSourceUpto()).isFalse();

    AppendFencedResponse first = append(1, group(0, 1));
    assertThat(first.getGroups(0).getStatus()).isEqualTo(GroupStatus.APPENDED);
    assertThat(first.getGroups(0).getOffset()).isZero();
    AppendFencedResponse retry = append(1, group(0, 1), group(2, 3));
    assertThat(retry.getGroups(0).getStatus()).isEqualTo(GroupStatus.ALREADY_APPENDED);
    assertThat(retry.getGroups(0).hasOffset()).isFalse();
    assertThat(retry.getGroups(1).getStatus()).isEqualTo(GroupStatus.APPENDED);
    assertThat(retry.getGroups(1).getOffset()).isEqualTo(2);
    assertThat(retry.getSourceUpto()).isEqualTo(3);
    assertThat(retry.getConsistencyToken()).isPositive();
    assertThat(writers.getWriterLease(get).getLease().getSourceUpto()).isEqualTo(3);

    var fetched =
        StreamServiceGrpc.newBlockingStub(t.client.channel(t.address()))
            .fetch(
                FetchRequest.newBuilder()
                    .setNamespace("shop")
                    .setStream("totals")
                    .setPartition(0)
                    .setOffset(0)
                    .build());
    assertThat(fetched.getRecordsCount()).isEqualTo(4);

    failure(Status.Code.FAILED_PRECONDITION, "fenced", () -> append(2, group(4, 4)));
    failure(
        Status.Code.FAILED_PRECONDITION,
        "conflict",
        () -> writers.acquireWriterLease(lease("job-2")));
    failure(Status.Code.INVALID_ARGUMENT, "invalid", () -> append(1, group(4, 4), group(6, 6)));
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () -> append(1, SourceGroup.newBuilder().setSourceFrom(4).setSourceTo(4).build()));
  }

  @Test
  void aChangelogIsCreatedOnlyForACompactedSource() {
    var admin = AdminServiceGrpc.newBlockingStub(t.client.channel(t.address()));
    admin.createStream(
        CreateStreamRequest.newBuilder()
            .setNamespace("shop")
            .setStream("rows")
            .setSpec(StreamSpec.newBuilder().setPartitions(2).setCompacted(true))
            .build());
    var d =
        writers.createChangelog(
            dev.loam.grpc.v1.CreateChangelogRequest.newBuilder()
                .setNamespace("shop")
                .setStream("rows-changes")
                .setSourceStream("rows")
                .setMode(dev.loam.grpc.v1.ChangelogMode.CHANGELOG_MODE_UPSERT)
                .build());
    assertThat(d.getPartitionsCount()).isEqualTo(2);
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () ->
            writers.createChangelog(
                dev.loam.grpc.v1.CreateChangelogRequest.newBuilder()
                    .setNamespace("shop")
                    .setStream("totals-changes")
                    .setSourceStream("totals")
                    .setMode(dev.loam.grpc.v1.ChangelogMode.CHANGELOG_MODE_FULL)
                    .build()));
    failure(
        Status.Code.INVALID_ARGUMENT,
        "invalid",
        () ->
            writers.createChangelog(
                dev.loam.grpc.v1.CreateChangelogRequest.newBuilder()
                    .setNamespace("shop")
                    .setStream("x")
                    .setSourceStream("rows")
                    .build()));
  }
}
