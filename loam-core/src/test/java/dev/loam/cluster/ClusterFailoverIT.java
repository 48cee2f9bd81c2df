package dev.loam.cluster;

import static dev.loam.cluster.RatisCluster.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Continuous appends through all three nodes of a Ratis cluster while the metastore leader's node
 * is killed (its LoamNode crashes, its replica closes): no acknowledged append is lost, offsets
 * stay dense and each writer's records stay in order per partition, and a record appears twice only
 * where an attempt to append it was never acknowledged (the writer retried it through a survivor).
 */
class ClusterFailoverIT {
  private static final int LANES_PER_NODE = 2;
  private static final int PARTITIONS = 3;
  private static final int ACKS_BEFORE = 15;
  private static final int ACKS_AFTER = 15;

  @TempDir Path dir;

  /**
   * One writer: appends {@code <name>-<seq>} to its partition, one append at a time, through its
   * current node; after a failure it moves to another live node and retries the same record.
   */
  private static final class Lane {
    final String name;
    final int partition;
    final Set<Integer> acked = ConcurrentHashMap.newKeySet();
    final Set<Integer> unacked = ConcurrentHashMap.newKeySet();
    final List<String> failures = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    volatile String node;
    private int seq;
    private int target = Integer.MAX_VALUE;
    private CompletableFuture<Void> reached = new CompletableFuture<>();

    Lane(String name, int partition, String node) {
      this.name = name;
      this.partition = partition;
      this.node = node;
    }

    /** Completes once this lane has {@code more} acknowledgements beyond the current count. */
    synchronized CompletableFuture<Void> more(int more) {
      if (done.isCompletedExceptionally()) {
        return done;
      }
      target = acked.size() + more;
      reached = new CompletableFuture<>();
      return reached;
    }

    synchronized void fail(Throwable t) {
      reached.completeExceptionally(t);
      done.completeExceptionally(t);
    }

    synchronized void onAck() {
      if (acked.size() >= target) {
        reached.complete(null);
      }
    }
  }

  @Test
  void noAcknowledgedAppendIsLostWhenTheLeaderNodeIsKilled() throws Exception {
    ExecutorService laneExec = Executors.newFixedThreadPool(2);
    try (RatisCluster c = RatisCluster.start(dir, 3)) {
      get(c.log("n1").createNamespace("ns"));
      get(c.log("n1").createStream("ns", "s", StreamSpec.standard(PARTITIONS)));
      c.awaitInSync();
      Map<String, Log> logs = new ConcurrentHashMap<>();
      c.ids().forEach(id -> logs.put(id, c.log(id)));
      List<String> live = new CopyOnWriteArrayList<>(c.ids());
      AtomicBoolean stop = new AtomicBoolean();
      List<Lane> lanes = new ArrayList<>();
      for (String id : c.ids()) {
        for (int k = 0; k < LANES_PER_NODE; k++) {
          lanes.add(new Lane(id + "-w" + k, lanes.size() % PARTITIONS, id));
        }
      }

      lanes.forEach(l -> step(l, logs, live, stop, laneExec));
      awaitAll(lanes.stream().map(l -> l.more(ACKS_BEFORE)).toList());

      String leader = c.leaderId();
      live.remove(leader);
      c.kill(leader);
      awaitAll(lanes.stream().map(l -> l.more(ACKS_AFTER)).toList());
      stop.set(true);
      awaitAll(lanes.stream().map(l -> l.done).toList());
      c.awaitInSync();

      Map<String, List<FetchedRecord>> first = null;
      for (String id : live) {
        Map<String, List<FetchedRecord>> byPartition = new LinkedHashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
          List<FetchedRecord> records = RatisCluster.readAll(c.log(id), "ns", "s", p);
          for (int i = 0; i < records.size(); i++) {
            assertThat(records.get(i).offset()).as("dense offsets on %s p%d", id, p).isEqualTo(i);
          }
          byPartition.put("p" + p, records);
        }
        for (Lane l : lanes) {
          verifyLane(l, byPartition.get("p" + l.partition), id);
        }
        if (first == null) {
          first = byPartition;
        } else {
          for (String p : first.keySet()) {
            assertThat(values(byPartition.get(p)))
                .as("survivors serve the same records")
                .isEqualTo(values(first.get(p)));
          }
        }
      }
      // The killed node's writers saw failures; every lane acknowledged appends after the kill.
      assertThat(lanes.stream().mapToInt(l -> l.acked.size()).sum())
          .isGreaterThanOrEqualTo(lanes.size() * (ACKS_BEFORE + ACKS_AFTER));
    } finally {
      laneExec.shutdownNow();
    }
  }

  private static void step(
      Lane l, Map<String, Log> logs, List<String> live, AtomicBoolean stop, ExecutorService exec) {
    if (stop.get()) {
      l.done.complete(null);
      return;
    }
    String node = l.node;
    int seq;
    synchronized (l) {
      seq = l.seq;
    }
    CompletableFuture<AppendResult> f;
    try {
      f =
          logs.get(node)
              .append(
                  "ns",
                  "s",
                  List.of(AppendRecord.of(l.name, l.name + "-" + seq).toPartition(l.partition)));
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.orTimeout(RatisCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .whenCompleteAsync(
            (r, e) -> {
              try {
                onResult(l, node, seq, r, e, live);
              } catch (Throwable t) {
                // A failed check stops the lane and fails the test's wait with it.
                l.fail(t);
                return;
              }
              step(l, logs, live, stop, exec);
            },
            exec);
  }

  private static void onResult(
      Lane l, String node, int seq, AppendResult r, Throwable e, List<String> live) {
    if (e == null) {
      assertThat(r.positions()).hasSize(1);
      assertThat(r.positions().get(0).partition()).isEqualTo(l.partition);
      l.acked.add(seq);
      synchronized (l) {
        l.seq++;
      }
      l.onAck();
    } else {
      // Never acknowledged: it may or may not have been committed. Retry elsewhere.
      l.unacked.add(seq);
      l.failures.add(node + ": " + e);
      List<String> others = live.stream().filter(id -> !id.equals(node)).toList();
      l.node = others.isEmpty() ? node : others.get(seq % others.size());
    }
  }

  private static void verifyLane(Lane l, List<FetchedRecord> records, String reader) {
    List<Integer> seqs = new ArrayList<>();
    for (FetchedRecord r : records) {
      if (r.keyAsString().equals(l.name)) {
        String v = r.valueAsString();
        seqs.add(Integer.parseInt(v.substring(v.lastIndexOf('-') + 1)));
      }
    }
    for (int s : l.acked) {
      assertThat(seqs).as("acknowledged %s-%d on %s", l.name, s, reader).contains(s);
    }
    for (int i = 0; i < seqs.size(); i++) {
      int s = seqs.get(i);
      assertThat(l.acked.contains(s) || l.unacked.contains(s))
          .as("%s-%d on %s was appended by its writer", l.name, s, reader)
          .isTrue();
      if (i > 0) {
        int prev = seqs.get(i - 1);
        if (prev == s) {
          assertThat(l.unacked)
              .as("%s-%d is duplicated on %s but was acknowledged at once", l.name, s, reader)
              .contains(s);
        } else {
          assertThat(s).as("order of %s on %s", l.name, reader).isGreaterThan(prev);
        }
      }
    }
  }

  private static List<String> values(List<FetchedRecord> records) {
    return records.stream().map(r -> r.offset() + ":" + r.valueAsString()).toList();
  }

  private static void awaitAll(List<CompletableFuture<Void>> fs) throws Exception {
    CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
  }
}
