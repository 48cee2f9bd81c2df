package dev.loam.examples.process;

import static dev.loam.examples.process.ChaosRun.DROP_ANSWER;
import static dev.loam.examples.process.ChaosRun.JSON;
import static dev.loam.examples.process.ChaosRun.PARTITIONS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.examples.process.ChaosHttp.Answer;
import dev.loam.examples.process.ChaosHttp.CallFailed;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The chaos tests' producers over HTTP: idempotent producers, one per partition, that retry every
 * request (same producer id, epoch, sequence and bytes) through other nodes until it is
 * acknowledged, sometimes pretending an answer was lost; and plain producers that never retry, so
 * each append is acknowledged, refused or of unknown outcome. Every outcome goes to the run's
 * {@link ChaosChecker}.
 */
final class ChaosProducers {
  private final ChaosRun run;

  ChaosProducers(ChaosRun run) {
    this.run = run;
  }

  /**
   * One idempotent producer bound to {@code partition}: each request is retried with the same
   * producer id, epoch, sequence and bytes (through another node) until it is acknowledged.
   */
  void idempotent(int partition, Random rnd) {
    long pid = allocateProducer(rnd);
    if (pid < 0) {
      return;
    }
    long seq = 0;
    while (run.producing) {
      int n = 1 + rnd.nextInt(3);
      List<String> values = new ArrayList<>();
      ArrayNode recs = JSON.createArrayNode();
      for (int k = 0; k < n; k++) {
        String v = "i" + pid + "-" + (seq + k);
        values.add(v);
        recs.addObject().put("value", v).put("partition", partition);
      }
      ObjectNode body = JSON.createObjectNode();
      body.put("producer_id", pid).put("producer_epoch", 0).put("sequence", seq);
      body.set("records", recs);
      run.checker.sent(values);
      produceUntilAcknowledged(partition, values, body.toString(), rnd);
      seq += n;
      run.pause(5 + rnd.nextInt(20));
    }
  }

  private void produceUntilAcknowledged(
      int partition, List<String> values, String body, Random rnd) {
    int node = rnd.nextInt(run.cluster.size());
    boolean maybe = false;
    List<Long> dropped = null;
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0) {
        run.idempotentRetries.incrementAndGet();
        node = (node + 1 + rnd.nextInt(run.cluster.size() - 1)) % run.cluster.size();
        run.pause(50 + rnd.nextInt(150));
      }
      if (System.nanoTime() - run.giveUpAt > 0) {
        if (maybe) {
          run.checker.unknownOutcome(values);
        } else {
          run.checker.definitelyFailed(values);
        }
        return;
      }
      try {
        Answer a = run.http.call(node, "POST", run.base() + "/records", body);
        switch (a.status()) {
          case 200 -> {
            if (attempt < 3 && rnd.nextDouble() < DROP_ANSWER) {
              // The answer is "lost on the way back": retry as if the connection had failed.
              run.droppedAnswers.incrementAndGet();
              if (dropped == null) {
                dropped = offsetsOf(a);
              }
              maybe = true;
              continue;
            }
            if (dropped != null) {
              List<Long> offsets = offsetsOf(a);
              if (!dropped.equals(offsets) || !a.body().contains("\"duplicate\":true")) {
                run.checker.violation(
                    "retry of an appended idempotent request answered "
                        + a.body()
                        + " but the dropped answer had offsets "
                        + dropped);
              }
            }
            if (acked(partition, values, a) && maybe) {
              run.ackedAfterUnknownAttempt.incrementAndGet();
            }
            return;
          }
          case 503, 429 -> {}
          case 504 -> maybe = true;
          case 409 -> {
            run.conflictAnswers.incrementAndGet();
            System.out.println(
                "idempotent produce 409 at " + run.cluster.nodeId(node) + ": " + a.body());
            maybe = true;
          }
          default -> {
            run.checker.violation(
                "produce answered "
                    + a.status()
                    + " at "
                    + run.cluster.nodeId(node)
                    + ": "
                    + a.body());
            maybe = true;
          }
        }
      } catch (CallFailed e) {
        maybe |= !e.notSent;
      }
    }
  }

  /** A producer that never retries: each append is acknowledged, refused, or of unknown outcome. */
  void plain(int index, Random rnd) {
    long n = 0;
    while (run.producing) {
      int partition = rnd.nextInt(PARTITIONS);
      int count = 1 + rnd.nextInt(3);
      List<String> values = new ArrayList<>();
      ArrayNode recs = JSON.createArrayNode();
      for (int k = 0; k < count; k++) {
        String v = "x" + index + "-" + n++;
        values.add(v);
        recs.addObject().put("value", v).put("partition", partition);
      }
      ObjectNode body = JSON.createObjectNode();
      body.set("records", recs);
      run.checker.sent(values);
      int node = rnd.nextInt(run.cluster.size());
      try {
        Answer a = run.http.call(node, "POST", run.base() + "/records", body.toString());
        switch (a.status()) {
          case 200 -> acked(partition, values, a);
          case 503, 429 -> run.checker.definitelyFailed(values);
          case 409 -> {
            if (a.body().contains("\"code\":\"fenced\"")) {
              // The node was declared dead (a pause longer than the liveness timeout) or fenced
              // while the append waited for its commit: the commit was refused, so nothing was
              // appended (an earlier attempt of unknown outcome would have answered 504).
              run.fencedAnswers.incrementAndGet();
              run.checker.definitelyFailed(values);
            } else {
              run.checker.violation(
                  "produce answered 409 at " + run.cluster.nodeId(node) + ": " + a.body());
              run.checker.unknownOutcome(values);
            }
          }
          case 504 -> run.checker.unknownOutcome(values);
          default -> {
            run.checker.violation(
                "produce answered "
                    + a.status()
                    + " at "
                    + run.cluster.nodeId(node)
                    + ": "
                    + a.body());
            run.checker.unknownOutcome(values);
          }
        }
      } catch (CallFailed e) {
        if (e.notSent) {
          run.checker.definitelyFailed(values);
        } else {
          run.checker.unknownOutcome(values);
        }
      }
      run.pause(10 + rnd.nextInt(30));
    }
  }

  /** Records a 200 produce answer; false (and a violation) if it is malformed. */
  private List<Long> offsetsOf(Answer a) {
    List<Long> offsets = new ArrayList<>();
    try {
      for (JsonNode r : JSON.readTree(a.body()).get("records")) {
        offsets.add(r.get("offset").asLong());
      }
    } catch (IOException | RuntimeException e) {
      run.checker.violation("malformed produce answer " + a.body() + ": " + e);
    }
    return offsets;
  }

  private boolean acked(int partition, List<String> values, Answer a) {
    try {
      JsonNode b = JSON.readTree(a.body());
      List<Long> offsets = new ArrayList<>();
      for (JsonNode r : b.get("records")) {
        if (r.get("partition").asInt() != partition) {
          run.checker.violation("record for partition " + partition + " acknowledged in " + r);
        }
        offsets.add(r.get("offset").asLong());
      }
      long token = Long.parseLong(b.get("token").asText());
      run.maxToken.accumulateAndGet(token, Math::max);
      run.checker.acked(partition, offsets, values, b.get("duplicate").asBoolean(), token);
      run.ackTimes.add(System.nanoTime());
      return true;
    } catch (IOException | RuntimeException e) {
      run.checker.violation("malformed produce answer " + a.body() + ": " + e);
      return false;
    }
  }

  private long allocateProducer(Random rnd) {
    while (System.nanoTime() - run.giveUpAt < 0 && run.producing) {
      int node = rnd.nextInt(run.cluster.size());
      try {
        Answer a = run.http.call(node, "POST", "/v1/producers", "{}");
        if (a.status() == 200) {
          return JSON.readTree(a.body()).get("producer_id").asLong();
        }
      } catch (CallFailed | IOException e) {
        // Try another node.
      }
      run.pause(200);
    }
    return -1;
  }
}
