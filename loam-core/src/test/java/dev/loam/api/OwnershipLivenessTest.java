package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes on one metastore with a 1 s liveness timeout: renewing nodes stay live; owner-bound
 * calls on the non-owner fail with NotOwnerException naming the owner; a crashed owner is declared
 * dead and its stream is revived by the survivor; a graceful leave transfers streams first.
 */
class OwnershipLivenessTest {
  @TempDir Path dir;

  private static LoamNode start(TestCluster c, String id) {
    LoamNode n =
        LoamNode.builder()
            .nodeId(id)
            .settings(TestCluster.FAST)
            .objectStore(c.memoryStore)
            .metastore(c.embeddedMeta)
            .ownership(
                new OwnershipSettings(
                    Duration.ofSeconds(1), Duration.ofMillis(50), Duration.ofSeconds(5)))
            .start();
    c.adopt(n);
    return n;
  }

  private static List<String> live(LoamNode n) throws Exception {
    return n.log().listNodes(Optional.empty()).get(5, TimeUnit.SECONDS).stream()
        .map(NodeDescription::nodeId)
        .toList();
  }

  private static StreamOwner owner(LoamNode n, String s) throws Exception {
    return n.log().streamOwner("default", s).get(5, TimeUnit.SECONDS);
  }

  private static void await(String what, ThrowingCheck c) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!c.ok()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  interface ThrowingCheck {
    boolean ok() throws Exception;
  }

  @Test
  void renewingNodesStayLiveAndACrashedOwnersStreamsMoveToTheSurvivor() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode a = start(c, "a");
      LoamNode b = start(c, "b");
      a.log().createStream("default", "s", StreamSpec.standard(1)).get(5, TimeUnit.SECONDS);
      await("placed and opened", () -> owner(a, "s").state().equals("open"));
      // Three liveness timeouts later both are still live: they renew.
      Thread.sleep(3_000);
      assertThat(live(a)).containsExactly("a", "b");
      String ownerId = owner(a, "s").ownerNodeId();
      LoamNode owner = ownerId.equals("a") ? a : b;
      LoamNode other = owner == a ? b : a;
      assertThatThrownBy(
              () ->
                  other
                      .log()
                      .updateStream("default", "s", StreamUpdate.none().withRetentionMillis(60_000))
                      .get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(NotOwnerException.class)
          .hasMessageContaining("owner=" + ownerId);
      long epoch = owner(other, "s").streamEpoch();
      owner.crash();
      await("the crashed owner is declared dead", () -> !live(other).contains(ownerId));
      // Placed on the survivor first, then opened there (the open bumps the stream epoch).
      await(
          "the survivor took and opened the stream",
          () ->
              other.nodeId().equals(owner(other, "s").ownerNodeId())
                  && owner(other, "s").state().equals("open"));
      assertThat(owner(other, "s").streamEpoch()).isGreaterThan(epoch);
      assertThat(
              other
                  .log()
                  .updateStream("default", "s", StreamUpdate.none().withRetentionMillis(60_000))
                  .get(5, TimeUnit.SECONDS)
                  .spec()
                  .retentionMillis())
          .isEqualTo(60_000);
    }
  }

  @Test
  void aLeavingNodeTransfersItsStreamsBeforeDeregistering() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode a = start(c, "a");
      LoamNode b = start(c, "b");
      for (int i = 0; i < 4; i++) {
        a.log().createStream("default", "s" + i, StreamSpec.standard(1)).get(5, TimeUnit.SECONDS);
      }
      await(
          "all open",
          () -> {
            for (int i = 0; i < 4; i++) {
              if (!owner(a, "s" + i).state().equals("open")) {
                return false;
              }
            }
            return true;
          });
      int moved = a.leaveCluster();
      assertThat(moved).isEqualTo(2); // a held two of the four (1:1 slots)
      for (int i = 0; i < 4; i++) {
        assertThat(owner(b, "s" + i).ownerNodeId()).isEqualTo("b");
      }
      assertThat(live(b)).containsExactly("b");
    }
  }
}
