package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups through {@link Log} (docs/design/consumer-groups.md) on one embedded node: the
 * coordination, generations, fenced commits, deletes, and offsets surviving a restart. The rules
 * one by one are in loam-meta's GroupTableTest; the Kafka protocol is loam-kafka's.
 */
class ConsumerGroupLogTest {
  @TempDir Path dir;

  private LoamNode open() {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir)
        .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
        .start();
  }

  @Test
  void aGroupCommitsUnderItsGenerationAndResumesAfterARestart() throws Exception {
    try (LoamNode node = open()) {
      Log log = node.log();
      await(log.createStream("default", "orders", StreamSpec.standard(3)));
      GroupCoordination c = await(log.acquireGroupCoordinator("default", "billing"));
      assertThat(c.generation()).isZero();
      // Acquiring again at the same epoch is the same coordination.
      assertThat(await(log.acquireGroupCoordinator("default", "billing"))).isEqualTo(c);
      await(log.advanceGroupGeneration(c, 1));
      await(
          log.commitGroupOffsets(
              c,
              1,
              List.of(
                  new CommittedOffset("orders", 0, 10, 0, "m"),
                  new CommittedOffset("orders", 2, 3, -1, ""))));
      GroupDescription d = await(log.describeGroup("default", "billing")).orElseThrow();
      assertThat(d.generation()).isEqualTo(1);
      assertThat(d.offsets())
          .containsExactly(
              new CommittedOffset("orders", 0, 10, 0, "m"),
              new CommittedOffset("orders", 2, 3, -1, ""));

      // A rebalance to generation 2 fences every commit of generation 1.
      await(log.advanceGroupGeneration(c, 2));
      Throwable stale =
          failure(
              log.commitGroupOffsets(c, 1, List.of(new CommittedOffset("orders", 0, 11, 0, ""))));
      assertThat(stale).isInstanceOf(GroupFencedException.class);
      assertThat(stale.getMessage()).contains("group=billing").contains("currentGeneration=2");
      assertThat(failure(log.advanceGroupGeneration(c, 2)))
          .isInstanceOf(GroupFencedException.class);
      // A partition the topic does not have refuses the whole commit.
      Throwable missing =
          failure(
              log.commitGroupOffsets(
                  c,
                  2,
                  List.of(
                      new CommittedOffset("orders", 0, 12, 0, ""),
                      new CommittedOffset("orders", 7, 1, 0, ""))));
      assertThat(((LoamException) missing).kind()).isEqualTo(Kind.NOT_FOUND);
      assertThat(
              ((LoamException)
                      failure(
                          log.commitGroupOffsets(
                              c, 2, List.of(new CommittedOffset("nope", 0, 1, 0, "")))))
                  .kind())
          .isEqualTo(Kind.NOT_FOUND);
      assertThat(await(log.describeGroup("default", "billing")).orElseThrow().offsets())
          .first()
          .isEqualTo(new CommittedOffset("orders", 0, 10, 0, "m"));

      await(log.deleteGroupOffsets(c, false, List.of(new CommittedOffset("orders", 2, 0, -1, ""))));
      assertThat(await(log.listGroups("default")))
          .singleElement()
          .satisfies(g -> assertThat(g.offsets()).hasSize(1));
      assertThat(((LoamException) failure(log.acquireGroupCoordinator("default", ""))).kind())
          .isEqualTo(Kind.INVALID);
      assertThat(((LoamException) failure(log.acquireGroupCoordinator("missing-ns", "g"))).kind())
          .isEqualTo(Kind.NOT_FOUND);
    }
    try (LoamNode again = open()) {
      Log log = again.log();
      GroupDescription d = await(log.describeGroup("default", "billing")).orElseThrow();
      assertThat(d.generation()).isEqualTo(2);
      assertThat(d.offsets()).containsExactly(new CommittedOffset("orders", 0, 10, 0, "m"));
      // The restarted process reopens the coordinator stream: a new epoch, the stored generation.
      GroupCoordination c = await(log.acquireGroupCoordinator("default", "billing"));
      assertThat(c.generation()).isEqualTo(2);
      await(log.advanceGroupGeneration(c, 3));
      await(log.commitGroupOffsets(c, 3, List.of(new CommittedOffset("orders", 1, 5, 0, ""))));
      await(log.deleteGroupOffsets(c, true, List.of()));
      assertThat(await(log.describeGroup("default", "billing"))).isEmpty();
    }
  }

  @Test
  void aCoordinationFromBeforeAReopenCommitsNothing() throws Exception {
    GroupCoordination old;
    try (LoamNode node = open()) {
      await(node.log().createStream("default", "orders", StreamSpec.standard(1)));
      old = await(node.log().acquireGroupCoordinator("default", "g"));
    }
    try (LoamNode again = open()) {
      Log log = again.log();
      GroupCoordination now = await(log.acquireGroupCoordinator("default", "g"));
      assertThat(now.coordinatorEpoch()).isGreaterThan(old.coordinatorEpoch());
      // The old epoch (a coordinator's state from before the reopen) is refused.
      Throwable t =
          failure(
              log.commitGroupOffsets(
                  old, -1, List.of(new CommittedOffset("orders", 0, 1, -1, ""))));
      assertThat(t).isInstanceOf(NotOwnerException.class);
      await(log.commitGroupOffsets(now, -1, List.of(new CommittedOffset("orders", 0, 1, -1, ""))));
    }
  }
}
