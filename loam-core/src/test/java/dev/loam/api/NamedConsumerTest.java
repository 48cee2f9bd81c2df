package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Producer ids and named consumers through {@link Log} (stream-engine.txt §7), on the embedded
 * metastore; the lease rules themselves are in the metastore kit (MetastoreContractTest).
 */
class NamedConsumerTest {
  @TempDir Path dir;

  private LoamNode open() {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir)
        .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
        .start();
  }

  private static void append(Log log, int n) throws Exception {
    List<AppendRecord> recs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      recs.add(AppendRecord.of("k", "v" + i).toPartition(0));
    }
    await(log.append("ns", "s", recs));
  }

  @Test
  void producerIdsAreFreshAndUsableForIdempotentAppends() throws Exception {
    try (LoamNode node = open()) {
      Log log = node.log();
      await(log.createNamespace("ns"));
      await(log.createStream("ns", "s", StreamSpec.standard(1)));
      ProducerIdentity a = await(log.allocateProducerId());
      ProducerIdentity b = await(log.allocateProducerId());
      assertThat(b.producerId()).isGreaterThan(a.producerId());
      assertThat(a.producerEpoch()).isZero();
      assertThat(a.baseSequence()).isZero();
      List<AppendRecord> recs = List.of(AppendRecord.of("k", "v").toPartition(0));
      AppendResult first = await(log.append("ns", "s", recs, a));
      AppendResult retry = await(log.append("ns", "s", recs, a));
      assertThat(retry.duplicate()).isTrue();
      assertThat(retry.positions()).isEqualTo(first.positions());
    }
    // The counter survives a restart: no id is handed out twice.
    try (LoamNode again = open()) {
      assertThat(await(again.log().allocateProducerId()).producerId()).isEqualTo(2);
    }
  }

  @Test
  void aConsumerResumesFromItsCommittedOffsetAfterARestart() throws Exception {
    long generation;
    try (LoamNode node = open()) {
      Log log = node.log();
      await(log.createNamespace("ns"));
      await(log.createStream("ns", "s", StreamSpec.standard(2)));
      append(log, 10);
      assertThat(await(log.committedOffset("ns", "app", "s", 0))).isEmpty();
      ConsumerState lease =
          await(log.acquireConsumerLease("ns", "app", "s", 0, "worker-1", Duration.ofMinutes(5)));
      generation = lease.generation();
      assertThat(generation).isEqualTo(1);
      assertThat(lease.committedOffset()).isEmpty();
      // Read 4 records and commit the next offset.
      FetchResult got = await(log.fetch("ns", "s", 0, 0, 1, Duration.ZERO));
      assertThat(got.records()).isNotEmpty();
      ConsumerState committed = await(log.commitConsumerOffset("ns", "app", "s", 0, generation, 4));
      assertThat(committed.committedOffset()).hasValue(4);
    }
    try (LoamNode again = open()) {
      Log log = again.log();
      assertThat(await(log.committedOffset("ns", "app", "s", 0))).isEqualTo(OptionalLong.of(4));
      FetchResult resumed = await(log.fetch("ns", "s", 0, 4, 1 << 20, Duration.ZERO));
      assertThat(resumed.records().get(0).offset()).isEqualTo(4);
      assertThat(resumed.records().get(0).valueAsString()).isEqualTo("v4");
      // The lease outlived the restart (5 minutes): its holder keeps committing.
      assertThat(await(log.commitConsumerOffset("ns", "app", "s", 0, generation, 10)))
          .extracting(ConsumerState::committedOffset)
          .isEqualTo(OptionalLong.of(10));
      assertThat(await(log.consumerStates("ns", "app", "s")))
          .extracting(ConsumerState::partition)
          .containsExactly(0);
    }
  }

  @Test
  void staleGenerationsOutOfRangeOffsetsAndUnknownPartitionsAreRefused() throws Exception {
    try (LoamNode node = open()) {
      Log log = node.log();
      await(log.createNamespace("ns"));
      await(log.createStream("ns", "s", StreamSpec.standard(1)));
      append(log, 3);
      ConsumerState lease =
          await(log.acquireConsumerLease("ns", "app", "s", 0, "w1", Duration.ofMinutes(1)));
      assertThat(
              failure(log.acquireConsumerLease("ns", "app", "s", 0, "w2", Duration.ofMinutes(1)))
                  .kind())
          .isEqualTo(Kind.CONFLICT);
      LoamException stale =
          failure(log.commitConsumerOffset("ns", "app", "s", 0, lease.generation() + 1, 1));
      assertThat(stale.kind()).isEqualTo(Kind.FENCED);
      assertThat(stale.getMessage()).contains("consumer=app", "generation=2");
      LoamException range =
          failure(log.commitConsumerOffset("ns", "app", "s", 0, lease.generation(), 4));
      assertThat(range).isInstanceOf(OffsetOutOfRangeException.class);
      assertThat(((OffsetOutOfRangeException) range).highWatermark()).isEqualTo(3);
      assertThat(failure(log.consumerState("ns", "app", "s", 1)).kind()).isEqualTo(Kind.NOT_FOUND);
      assertThat(failure(log.consumerState("ns", "app", "nope", 0)).kind())
          .isEqualTo(Kind.NOT_FOUND);
      assertThat(
              failure(
                      log.acquireConsumerLease(
                          "ns", "bad name", "s", 0, "w", Duration.ofSeconds(1)))
                  .kind())
          .isEqualTo(Kind.INVALID);
      assertThat(await(log.consumerState("ns", "other", "s", 0))).isEqualTo(Optional.empty());
    }
  }

  @Test
  void nodesAreListedWithTheirZone() throws Exception {
    try (LoamNode node = open()) {
      List<NodeDescription> all = await(node.log().listNodes(Optional.empty()));
      assertThat(all).extracting(NodeDescription::nodeId).containsExactly("n1");
      String zone = all.get(0).zone();
      assertThat(await(node.log().listNodes(Optional.of(zone)))).hasSize(1);
      assertThat(await(node.log().listNodes(Optional.of(zone + "-elsewhere")))).isEmpty();
    }
  }
}
