package dev.loam.examples.process;

import static dev.loam.examples.process.ChaosRun.DROP_ANSWER;
import static dev.loam.examples.process.ChaosRun.JSON;

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
 * {@link ChaosChecker}. A quorum stream's producers send to any node too (every node of the
 * three-node scenario is a replica of its journal, which forwards the append to the journal's
 * leader) and follow a 307 to a replica by hand, should a node not be one.
 */
final class ChaosProducers {
  private final ChaosRun run;
  private final ChaosStream stream;

  /** The producers of the run's leaderless stream. */
  ChaosProducers(ChaosRun run) {
    this(run, run.stream);
  }

  ChaosProducers(ChaosRun run, ChaosStream stream) {
    this.run = run;
    this.stream = stream;
  }

  /** Sends a produce request; a quorum stream's follows redirects to a journal replica. */
  private Answer produce(int node, String body) throws CallFailed {
    String path = stream.base() + "/records";
    return stream.quorum
        ? run.http.ownerBound(node, "POST", path, body)
        : run.http.call(node, "POST", path, body);
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
        String v = (stream.quorum ? "qi" : "i") + pid + "-" + (seq + k);
        values.add(v);
        recs.addObject().put("value", v).put("partition", partition);
      }
      ObjectNode body = JSON.createObjectNode();
      body.put("producer_id", pid).put("producer_epoch", 0).put("sequence", seq);
      body.set("records", recs);
      stream.checker.sent(values);
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
        stream.idempotentRetries.incrementAndGet();
        node = (node + 1 + rnd.nextInt(run.cluster.size() - 1)) % run.cluster.size();
        run.pause(50 + rnd.nextInt(150));
      }
      if (System.nanoTime() - run.giveUpAt > 0) {
        if (maybe) {
          stream.checker.unknownOutcome(values);
        } else {
          stream.checker.definitelyFailed(values);
        }
        return;
      }
      try {
        long sentAt = System.nanoTime();
        Answer a = produce(node, body);
        switch (a.status()) {
          case 200 -> {
            if (attempt < 3 && rnd.nextDouble() < DROP_ANSWER) {
              // The answer is "lost on the way back": retry as if the connection had failed.
              stream.droppedAnswers.incrementAndGet();
              if (dropped == null) {
                dropped = offsetsOf(a);
              }
              maybe = true;
              continue;
            }
            if (dropped != null) {
              List<Long> offsets = offsetsOf(a);
              if (!dropped.equals(offsets) || !a.body().contains("\"duplicate\":true")) {
                stream.checker.violation(
                    "retry of an appended idempotent request answered "
                        + a.body()
                        + " but the dropped answer had offsets "
                        + dropped);
              }
            }
            if (acked(partition, values, a, sentAt) && maybe) {
              stream.ackedAfterUnknownAttempt.incrementAndGet();
            }
            return;
          }
          case 503, 429 -> {}
          case 504 -> maybe = true;
          case 409 -> {
            stream.conflictAnswers.incrementAndGet();
            System.out.println(
                "idempotent produce 409 at " + run.cluster.nodeId(node) + ": " + a.body());
            maybe = true;
          }
          default -> {
            stream.checker.violation(
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
      int partition = rnd.nextInt(stream.partitions);
      int count = 1 + rnd.nextInt(3);
      List<String> values = new ArrayList<>();
      ArrayNode recs = JSON.createArrayNode();
      for (int k = 0; k < count; k++) {
        String v = (stream.quorum ? "qx" : "x") + index + "-" + n++;
        values.add(v);
        recs.addObject().put("value", v).put("partition", partition);
      }
      ObjectNode body = JSON.createObjectNode();
      body.set("records", recs);
      stream.checker.sent(values);
      int node = rnd.nextInt(run.cluster.size());
      try {
        long sentAt = System.nanoTime();
        Answer a = produce(node, body.toString());
        switch (a.status()) {
          case 200 -> acked(partition, values, a, sentAt);
          case 503, 429 -> stream.checker.definitelyFailed(values);
          case 409 -> {
            if (a.body().contains("\"code\":\"fenced\"")) {
              // The node was declared dead (a pause longer than the liveness timeout) or fenced
              // while the append waited for its commit: the commit was refused, so nothing was
              // appended (an earlier attempt of unknown outcome would have answered 504).
              stream.fencedAnswers.incrementAndGet();
              stream.checker.definitelyFailed(values);
            } else {
              stream.checker.violation(
                  "produce answered 409 at " + run.cluster.nodeId(node) + ": " + a.body());
              stream.checker.unknownOutcome(values);
            }
          }
          case 504 -> stream.checker.unknownOutcome(values);
          default -> {
            stream.checker.violation(
                "produce answered "
                    + a.status()
                    + " at "
                    + run.cluster.nodeId(node)
                    + ": "
                    + a.body());
            stream.checker.unknownOutcome(values);
          }
        }
      } catch (CallFailed e) {
        if (e.notSent) {
          stream.checker.definitelyFailed(values);
        } else {
          stream.checker.unknownOutcome(values);
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
      stream.checker.violation("malformed produce answer " + a.body() + ": " + e);
    }
    return offsets;
  }

  private boolean acked(int partition, List<String> values, Answer a, long sentAt) {
    try {
      JsonNode b = JSON.readTree(a.body());
      List<Long> offsets = new ArrayList<>();
      for (JsonNode r : b.get("records")) {
        if (r.get("partition").asInt() != partition) {
          stream.checker.violation("record for partition " + partition + " acknowledged in " + r);
        }
        offsets.add(r.get("offset").asLong());
      }
      long token = Long.parseLong(b.get("token").asText());
      if (stream.quorum) {
        // A quorum acknowledgement names no metastore index: its token is 0 and says nothing.
        if (token != 0) {
          stream.checker.violation("quorum append acknowledged with token " + token);
        }
        token = -1;
      } else {
        run.maxToken.accumulateAndGet(token, Math::max);
      }
      stream.checker.acked(partition, offsets, values, b.get("duplicate").asBoolean(), token);
      stream.acknowledged(sentAt, System.nanoTime());
      return true;
    } catch (IOException | RuntimeException e) {
      stream.checker.violation("malformed produce answer " + a.body() + ": " + e);
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
