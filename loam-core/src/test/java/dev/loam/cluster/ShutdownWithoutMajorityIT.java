package dev.loam.cluster;

import static dev.loam.cluster.RatisCluster.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.CommitUnknownException;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeHealth;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node of a 3-replica Ratis cluster whose two other replicas are stopped: its readiness names the
 * metastore, {@link LoamNode#leaveCluster()} fails at once, and {@link LoamNode#close()} returns
 * within its documented bound (docs/operations/running-a-cluster.md "Stopping") with every pending
 * append answered: {@link CommitUnknownException} for those whose commit was handed to the
 * metastore before the majority was seen lost, UNAVAILABLE for those never proposed. Then the
 * node's own threads end.
 */
class ShutdownWithoutMajorityIT {
  /**
   * How long a close without a majority may take: a flush, the one-second grace for an election,
   * one check, and stopping the node.
   */
  static final Duration CLOSE_BOUND = Duration.ofSeconds(3);

  @TempDir Path dir;

  @Test
  void closeWithoutAMajorityIsBoundedAndAnswersEveryPendingAppend() throws Exception {
    // Election timeouts of 1-2 s: the survivor takes a second or more to notice the majority is
    // gone, which leaves time for appends whose commits are proposed before it does.
    try (RatisCluster c =
        RatisCluster.start(
            dir,
            3,
            RatisCluster.FAST,
            b -> b.electionTimeout(Duration.ofSeconds(1), Duration.ofSeconds(2)))) {
      String survivor = c.leaderId();
      LoamNode node = c.node(survivor);
      get(node.log().createNamespace("ns"));
      get(node.log().createStream("ns", "s", StreamSpec.standard(1)));
      get(node.log().append("ns", "s", List.of(AppendRecord.of("k", "before"))));
      assertThat(node.health().ready()).isTrue();

      for (String id : c.ids()) {
        if (!id.equals(survivor)) {
          c.kill(id);
        }
      }
      // Proposed while the survivor still believes it leads: no majority can answer them.
      List<CompletableFuture<AppendResult>> proposed = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        proposed.add(node.log().append("ns", "s", List.of(AppendRecord.of("k", "a" + i))));
      }
      NodeHealth unready = awaitUnready(node, Duration.ofSeconds(20));
      assertThat(unready.reasons())
          .extracting(NodeHealth.Reason::check)
          .containsExactly(NodeHealth.METASTORE);
      assertThat(proposed).noneMatch(CompletableFuture::isDone);

      // Appended once the majority is known lost: never proposed.
      List<CompletableFuture<AppendResult>> neverProposed = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        neverProposed.add(node.log().append("ns", "s", List.of(AppendRecord.of("k", "b" + i))));
      }

      long t0 = System.nanoTime();
      assertThatThrownBy(node::leaveCluster)
          .isInstanceOf(LoamException.class)
          .hasMessageContaining("metastore")
          .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.UNAVAILABLE));
      long leaveMillis = (System.nanoTime() - t0) / 1_000_000;
      assertThat(leaveMillis).as("leaveCluster without a majority, ms").isLessThan(2000);

      long t1 = System.nanoTime();
      node.close();
      Duration closed = Duration.ofNanos(System.nanoTime() - t1);
      assertThat(closed).as("close without a majority").isLessThan(CLOSE_BOUND);
      assertThat(node.health().reasons())
          .extracting(NodeHealth.Reason::check)
          .contains(NodeHealth.STOPPING);

      for (CompletableFuture<AppendResult> f : proposed) {
        assertThat(failure(f)).isInstanceOf(CommitUnknownException.class);
      }
      for (CompletableFuture<AppendResult> f : neverProposed) {
        Throwable t = failure(f);
        assertThat(t).isNotInstanceOf(CommitUnknownException.class);
        assertThat(((LoamException) t).kind()).as(t.toString()).isEqualTo(Kind.UNAVAILABLE);
      }
      awaitNoThreadNamed("loam-" + survivor, Duration.ofSeconds(5));

      // The host then closes its replica (as ./loam node does): bounded too, majority or not.
      long t2 = System.nanoTime();
      c.meta(survivor).close();
      Duration metaClosed = Duration.ofNanos(System.nanoTime() - t2);
      assertThat(metaClosed).as("replica close without a majority").isLessThan(CLOSE_BOUND);
      System.out.println(
          "close without a majority: close_ms="
              + closed.toMillis()
              + " leave_ms="
              + leaveMillis
              + " replica_close_ms="
              + metaClosed.toMillis());
    }
  }

  private static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(1, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable t = e.getCause();
      while (t instanceof CompletionException && t.getCause() != null) {
        t = t.getCause();
      }
      return t;
    } catch (Exception e) {
      throw new AssertionError("append not answered after close: " + e, e);
    }
    throw new AssertionError("append succeeded without a majority");
  }

  /** Polls the node's readiness, which is a momentary view with no event to wait on. */
  private static NodeHealth awaitUnready(LoamNode node, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      NodeHealth h = node.health();
      if (!h.ready()) {
        return h;
      }
      LockSupport.parkNanos(10_000_000);
    }
    throw new AssertionError("still ready after " + timeout + " without a majority");
  }

  private static void awaitNoThreadNamed(String prefix, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> alive = List.of();
    while (System.nanoTime() < deadline) {
      alive =
          Thread.getAllStackTraces().keySet().stream()
              .filter(Thread::isAlive)
              .map(Thread::getName)
              .filter(n -> n.startsWith(prefix + "-") || n.equals(prefix))
              .toList();
      if (alive.isEmpty()) {
        return;
      }
      LockSupport.parkNanos(10_000_000);
    }
    throw new AssertionError("threads still alive after close: " + alive);
  }
}
