package dev.loam.examples.process;

import static dev.loam.examples.process.ChaosRun.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.examples.process.ChaosChecker.Rec;
import dev.loam.examples.process.ChaosHttp.Answer;
import dev.loam.examples.process.ChaosHttp.CallFailed;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The readers of a chaos run's quorum stream over HTTP: one per partition that fetches in offset
 * order from a random node (every replica serves what it applied, which is committed data only, so
 * a follower's answer is a prefix of the leader's), each fetch judged by the stream's checker; and
 * the final read-back from every node, which must agree once every replica applied the end. (Named
 * consumers are not used: consumer leases of quorum streams are not built.)
 */
final class ChaosQuorumReaders {
  private final ChaosRun run;
  private final ChaosStream stream;

  ChaosQuorumReaders(ChaosRun run, ChaosStream stream) {
    this.run = run;
    this.stream = stream;
  }

  /**
   * Reads {@code partition} in offset order until it reached the read-back's count (set after the
   * producers stopped), or 60 s after that count was set (a violation).
   */
  void reader(int partition, Random rnd) {
    long position = 0;
    long deadline = Long.MAX_VALUE;
    while (!run.consumersStop) {
      long target;
      synchronized (stream.readTarget) {
        target = stream.readTarget[partition];
      }
      if (target >= 0) {
        if (position >= target) {
          stream.readFinal[partition] = position;
          return;
        }
        if (deadline == Long.MAX_VALUE) {
          deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        } else if (System.nanoTime() - deadline > 0) {
          stream.checker.violation(
              "quorum reader of partition "
                  + partition
                  + " did not catch up: position "
                  + position
                  + " target "
                  + target);
          stream.readFinal[partition] = position;
          return;
        }
      }
      int node = rnd.nextInt(run.cluster.size());
      try {
        Answer f =
            run.http.ownerBound(
                node,
                "GET",
                stream.base()
                    + "/partitions/"
                    + partition
                    + "/records?offset="
                    + position
                    + "&max_wait_ms=300&max_bytes=65536",
                null);
        if (f.status() == 200) {
          JsonNode b = JSON.readTree(f.body());
          List<Rec> recs = records(partition, b);
          stream.checker.fetched(run.cluster.nodeId(node), partition, position, recs);
          long next = b.get("next_offset").asLong();
          if (next != position + recs.size()) {
            stream.checker.violation(
                "quorum fetch of partition "
                    + partition
                    + " from "
                    + position
                    + " answered "
                    + recs.size()
                    + " records and next_offset "
                    + next);
          }
          position = next;
        } else if (f.status() == 416) {
          // A follower that has not applied up to the position yet (it was down, or lags).
          stream.staleFetches.incrementAndGet();
          run.pause(100);
        } else if (f.status() == 503 || f.status() == 504) {
          stream.failedFetches.incrementAndGet();
          run.pause(100);
        } else {
          stream.checker.violation(
              "quorum fetch answered "
                  + f.status()
                  + " at "
                  + run.cluster.nodeId(node)
                  + ": "
                  + f.body());
          run.pause(100);
        }
      } catch (CallFailed | IOException e) {
        stream.failedFetches.incrementAndGet();
        run.pause(100);
      }
    }
  }

  /**
   * Every partition read back from every node: node {@code 0}'s records, once every other node
   * reads back the same (a replica restarted late may still be applying the end: each node is read
   * again, for up to 30 s, until they agree; then a disagreement is a violation).
   */
  Map<Integer, List<Rec>> readBackAgreed() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Map<Integer, List<Rec>> first = readAll(0);
      List<Integer> differ = new ArrayList<>();
      for (int i = 1; i < run.cluster.size(); i++) {
        if (!readAll(i).equals(first)) {
          differ.add(i);
        }
      }
      if (differ.isEmpty()) {
        return first;
      }
      if (System.nanoTime() - deadline > 0) {
        for (int i : differ) {
          stream.checker.violation(
              "node "
                  + run.cluster.nodeId(i)
                  + " reads back other records of the quorum stream than node n1");
        }
        return first;
      }
      run.pause(500);
    }
  }

  /** Every partition from offset 0 to the high watermark node {@code i} knows, read on it. */
  Map<Integer, List<Rec>> readAll(int i) throws Exception {
    Map<Integer, List<Rec>> out = new TreeMap<>();
    for (int p = 0; p < stream.partitions; p++) {
      List<Rec> recs = new ArrayList<>();
      long offset = 0;
      int failures = 0;
      while (true) {
        Answer f;
        try {
          f =
              run.http.ownerBound(
                  i,
                  "GET",
                  stream.base()
                      + "/partitions/"
                      + p
                      + "/records?offset="
                      + offset
                      + "&max_bytes=1048576",
                  null);
        } catch (CallFailed e) {
          f = new Answer(-1, e.toString(), null);
        }
        if (f.status() != 200) {
          assertThat(++failures)
              .as("quorum read-back on %s: %s", run.cluster.nodeId(i), f.body())
              .isLessThan(20);
          run.pause(250);
          continue;
        }
        JsonNode b = JSON.readTree(f.body());
        recs.addAll(records(p, b));
        offset = b.get("next_offset").asLong();
        if (offset >= b.get("high_watermark").asLong()) {
          break;
        }
      }
      out.put(p, recs);
    }
    return out;
  }

  private static List<Rec> records(int partition, JsonNode answer) {
    List<Rec> recs = new ArrayList<>();
    for (JsonNode r : answer.get("records")) {
      recs.add(new Rec(partition, r.get("offset").asLong(), r.get("value").asText()));
    }
    return recs;
  }
}
