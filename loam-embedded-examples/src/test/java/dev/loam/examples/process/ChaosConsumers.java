package dev.loam.examples.process;

import static dev.loam.examples.process.ChaosRun.CONSUMER;
import static dev.loam.examples.process.ChaosRun.JSON;
import static dev.loam.examples.process.ChaosRun.PARTITIONS;
import static dev.loam.examples.process.ChaosRun.STREAM;
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
 * The chaos tests' readers over HTTP: a named consumer per partition that fetches in offset order
 * from any node, commits through the owner and resumes from its committed offset after every kill
 * or pause; and the final read-back of every partition from one node.
 */
final class ChaosConsumers {
  private final ChaosRun run;

  ChaosConsumers(ChaosRun run) {
    this.run = run;
  }

  /**
   * The named consumer {@link #CONSUMER} on one partition (holder {@code w<p>}): leases, fetches in
   * offset order from any node, commits about every 300 ms through the owner, and after every kill
   * resumes from the committed offset the lease answer carries (a metastore command, so it reflects
   * every earlier commit), checking it is at least the last successful commit.
   */
  void consumer(int partition, Random rnd) {
    String path =
        "/v1/namespaces/"
            + run.namespace
            + "/consumers/"
            + CONSUMER
            + "/streams/"
            + STREAM
            + "/partitions/"
            + partition;
    String holder = "w" + partition;
    long generation = -1;
    long position = 0;
    long lastCommitted = -1;
    long lastSeenCommitted = -1;
    long lastCommitAt = 0;
    int seenKills = -1;
    long deadline = Long.MAX_VALUE;
    while (!run.consumersStop) {
      long target;
      synchronized (run.consumeTarget) {
        target = run.consumeTarget[partition];
      }
      if (target >= 0) {
        if (deadline == Long.MAX_VALUE) {
          deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        }
        if (position >= target && lastCommitted == position) {
          run.consumerFinal[partition] = verifyFinalCommit(path, holder, position, rnd);
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          run.checker.violation(
              "consumer of partition "
                  + partition
                  + " did not catch up: position "
                  + position
                  + " target "
                  + target);
          return;
        }
      }
      int kills = run.killEpoch.get();
      if (generation < 0 || kills != seenKills) {
        try {
          Answer a =
              run.http.ownerBound(
                  rnd.nextInt(run.cluster.size()),
                  "POST",
                  path + "/lease",
                  "{\"holder\":\"" + holder + "\",\"lease_ms\":10000}");
          if (a.status() != 200) {
            run.pause(200);
            continue;
          }
          JsonNode st = JSON.readTree(a.body());
          generation = st.get("generation").asLong();
          long committed =
              st.get("committed_offset").isNull() ? -1 : st.get("committed_offset").asLong();
          if (committed < lastCommitted) {
            run.checker.violation(
                "consumer partition "
                    + partition
                    + ": committed offset "
                    + committed
                    + " after a successful commit of "
                    + lastCommitted);
          }
          if (committed < lastSeenCommitted) {
            run.checker.violation(
                "consumer partition "
                    + partition
                    + ": committed offset went backwards from "
                    + lastSeenCommitted
                    + " to "
                    + committed);
          }
          lastSeenCommitted = Math.max(lastSeenCommitted, committed);
          position = Math.max(0, committed);
          seenKills = kills;
          run.consumerResumes.incrementAndGet();
        } catch (CallFailed | IOException e) {
          run.pause(200);
        }
        continue;
      }
      int node = rnd.nextInt(run.cluster.size());
      long minToken = run.maxToken.get();
      long mustSee = run.checker.mustSee(partition, minToken);
      try {
        Answer f =
            run.http.call(
                node,
                "GET",
                run.base()
                    + "/partitions/"
                    + partition
                    + "/records?offset="
                    + position
                    + "&max_wait_ms=300&max_bytes=65536&min_token="
                    + minToken,
                null);
        if (f.status() == 200 || f.status() == 416) {
          run.checker.judgeReadYourWrites(
              run.cluster.nodeId(node),
              partition,
              position,
              mustSee,
              f.status() + " " + f.body(),
              f.status() == 416 || JSON.readTree(f.body()).path("records").isEmpty());
        }
        if (f.status() == 200) {
          JsonNode b = JSON.readTree(f.body());
          List<Rec> recs = new ArrayList<>();
          for (JsonNode r : b.get("records")) {
            recs.add(new Rec(partition, r.get("offset").asLong(), r.get("value").asText()));
          }
          run.checker.fetched(run.cluster.nodeId(node), partition, position, recs);
          long next = b.get("next_offset").asLong();
          if (next != position + recs.size()) {
            run.checker.violation(
                "fetch of partition "
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
          JsonNode b = JSON.readTree(f.body());
          if (position < b.get("log_start_offset").asLong()) {
            run.checker.violation(
                "consumer position " + position + " below the log start: " + f.body());
          }
          run.staleFetches.incrementAndGet();
          run.pause(100);
        } else if (f.status() == 503 || f.status() == 504) {
          run.failedFetches.incrementAndGet();
          run.pause(100);
        } else {
          run.checker.violation(
              "fetch answered " + f.status() + " at " + run.cluster.nodeId(node) + ": " + f.body());
          run.pause(100);
        }
      } catch (CallFailed | IOException e) {
        run.failedFetches.incrementAndGet();
        run.pause(100);
      }
      if (position != lastCommitted) {
        if (System.nanoTime() - lastCommitAt > TimeUnit.MILLISECONDS.toNanos(300)) {
          lastCommitAt = System.nanoTime();
          try {
            Answer c =
                run.http.ownerBound(
                    rnd.nextInt(run.cluster.size()),
                    "POST",
                    path + "/offset",
                    "{\"generation\":" + generation + ",\"offset\":" + position + "}");
            if (c.status() == 200) {
              long committed = JSON.readTree(c.body()).get("committed_offset").asLong();
              if (committed != position) {
                run.checker.violation(
                    "commit of " + position + " answered committed_offset " + committed);
              }
              lastCommitted = position;
              lastSeenCommitted = Math.max(lastSeenCommitted, position);
              run.consumerCommits.incrementAndGet();
            } else if (c.status() == 409) {
              run.consumerFenced.incrementAndGet();
              generation = -1;
            }
          } catch (CallFailed | IOException e) {
            // Commit again later.
          }
        }
      }
    }
  }

  /** After the last commit: a lease answer (linearizable) shows exactly the final position. */
  private long verifyFinalCommit(String path, String holder, long position, Random rnd) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() - deadline < 0) {
      try {
        Answer a =
            run.http.ownerBound(
                rnd.nextInt(run.cluster.size()),
                "POST",
                path + "/lease",
                "{\"holder\":\"" + holder + "\",\"lease_ms\":10000}");
        if (a.status() == 200) {
          JsonNode c = JSON.readTree(a.body()).get("committed_offset");
          return c.isNull() ? -1 : c.asLong();
        }
      } catch (CallFailed | IOException e) {
        // Again.
      }
      run.pause(200);
    }
    return -2;
  }

  /** Every partition from offset 0 to its high watermark, read on node {@code i}. */
  Map<Integer, List<Rec>> readAll(int i) throws Exception {
    Map<Integer, List<Rec>> out = new TreeMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<Rec> recs = new ArrayList<>();
      long offset = 0;
      int failures = 0;
      while (true) {
        Answer f;
        try {
          f =
              run.http.call(
                  i,
                  "GET",
                  run.base()
                      + "/partitions/"
                      + p
                      + "/records?offset="
                      + offset
                      + "&max_bytes=1048576&min_token="
                      + run.maxToken.get(),
                  null);
        } catch (CallFailed e) {
          f = new Answer(-1, e.toString(), null);
        }
        if (f.status() != 200) {
          assertThat(++failures)
              .as("read-back on %s: %s", run.cluster.nodeId(i), f.body())
              .isLessThan(20);
          run.pause(250);
          continue;
        }
        JsonNode b = JSON.readTree(f.body());
        List<Rec> page = new ArrayList<>();
        for (JsonNode r : b.get("records")) {
          page.add(new Rec(p, r.get("offset").asLong(), r.get("value").asText()));
        }
        recs.addAll(page);
        offset = b.get("next_offset").asLong();
        if (offset >= b.get("high_watermark").asLong()) {
          break;
        }
      }
      out.put(p, recs);
    }
    return out;
  }
}
