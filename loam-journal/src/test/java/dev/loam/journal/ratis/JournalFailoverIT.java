package dev.loam.journal.ratis;

import static dev.loam.journal.ratis.JournalTestCluster.JOURNAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.state.JournalRead;
import dev.loam.journal.state.JournalState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kills the journal leader (its server closed at once: no snapshot, no hand-over) while two
 * idempotent producers append: no acknowledged record is lost, none is duplicated, and the
 * survivors elect a new leader that acknowledges again within the 1–3 s target (stream-engine.txt
 * §4 "Failover").
 */
class JournalFailoverIT {
  private static final Logger LOG = LoggerFactory.getLogger(JournalFailoverIT.class);
  static final long STREAM = 9;
  static final int BATCHES_PER_PRODUCER = 400;
  static final int KILL_AFTER_ACKS = 300;

  @TempDir Path dir;

  /** One producer: sends its batches in sequence order, one in flight, retrying until answered. */
  static final class Producer implements Runnable {
    final long id;
    final JournalServer via;
    final Map<Integer, Long> acked = new ConcurrentHashMap<>();
    final List<Long> ackNanos = new ArrayList<>();
    final AtomicLong total;
    final CountDownLatch killAt;
    volatile Throwable failure;

    Producer(long id, JournalServer via, AtomicLong total, CountDownLatch killAt) {
      this.id = id;
      this.via = via;
      this.total = total;
      this.killAt = killAt;
    }

    @Override
    public void run() {
      try {
        for (int seq = 0; seq < BATCHES_PER_PRODUCER; seq++) {
          byte[] batch = Batches.batch(id, (short) 0, seq, "p" + id + "-" + seq, 1);
          acked.put(seq, send(batch));
          synchronized (ackNanos) {
            ackNanos.add(System.nanoTime());
          }
          total.incrementAndGet();
          killAt.countDown();
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    /** Sends until the journal answers Appended or Duplicate; a bounded number of attempts. */
    long send(byte[] batch) throws InterruptedException {
      for (int attempt = 1; attempt <= 20; attempt++) {
        try {
          JournalResult r =
              via.propose(JOURNAL, new JournalEntry.Append(STREAM, 0, batch))
                  .get(JournalTestCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS);
          if (r instanceof JournalResult.Appended a) {
            return a.baseOffset();
          }
          if (r instanceof JournalResult.Duplicate d) {
            // An earlier attempt committed and its reply was lost: the first offsets come back.
            return d.baseOffset();
          }
          throw new AssertionError("producer " + id + " refused: " + r);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof LoamException le)
              || le.kind() != LoamException.Kind.OUTCOME_UNKNOWN) {
            throw new AssertionError(e);
          }
          // Outcome unknown: retry the same batch; the producer check makes it safe.
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError("no answer in time producer=" + id, e);
        }
      }
      throw new AssertionError("producer " + id + " gave up");
    }
  }

  @Test
  void killingTheLeaderUnderLoadLosesAndDuplicatesNothing() throws Exception {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String leader = c.awaitLeader();
      c.propose(leader, new JournalEntry.Host(STREAM, 0, 0));
      List<String> survivors = new ArrayList<>(c.running());
      survivors.remove(leader);
      AtomicLong total = new AtomicLong();
      CountDownLatch killAt = new CountDownLatch(KILL_AFTER_ACKS);
      // The producers reach the journal through the nodes that survive, as clients of a dead
      // node would reconnect elsewhere.
      List<Producer> producers =
          List.of(
              new Producer(1, c.server(survivors.get(0)), total, killAt),
              new Producer(2, c.server(survivors.get(1)), total, killAt));
      List<Thread> threads = new ArrayList<>();
      for (Producer p : producers) {
        Thread t = new Thread(p, "producer-" + p.id);
        t.start();
        threads.add(t);
      }
      assertThat(killAt.await(60, TimeUnit.SECONDS)).isTrue();
      long killedAt = System.nanoTime();
      long ackedBeforeKill = total.get();
      c.stop(leader);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(120));
        assertThat(t.isAlive()).isFalse();
      }
      for (Producer p : producers) {
        assertThat(p.failure).as("producer %s", p.id).isNull();
      }
      // Failover: the longest silence between two acknowledgements (of either producer) after
      // the kill began. Acknowledgements of entries the old leader committed can still arrive while
      // it closes, so the silence, not the first ack after the kill, is the outage.
      List<Long> acks = new ArrayList<>();
      for (Producer p : producers) {
        synchronized (p.ackNanos) {
          acks.addAll(p.ackNanos);
        }
      }
      acks.sort(null);
      long longestGap = 0;
      for (int i = 1; i < acks.size(); i++) {
        if (acks.get(i) > killedAt) {
          longestGap = Math.max(longestGap, acks.get(i) - Math.max(acks.get(i - 1), killedAt));
        }
      }
      Duration failover = Duration.ofNanos(longestGap);
      String newLeader = c.awaitLeader();
      LOG.info(
          "failover={} ms ackedBeforeKill={} oldLeader={} newLeader={}",
          failover.toMillis(),
          ackedBeforeKill,
          leader,
          newLeader);
      assertThat(newLeader).isNotEqualTo(leader);
      assertThat(failover).isLessThan(Duration.ofSeconds(3));

      long expectedTotal = 2L * BATCHES_PER_PRODUCER;
      for (String id : survivors) {
        c.awaitHighWatermark(id, STREAM, 0, expectedTotal);
      }
      // The old leader comes back and catches up; the three agree byte for byte.
      c.start(leader);
      c.awaitHighWatermark(leader, STREAM, 0, expectedTotal);
      byte[] reference = c.server(newLeader).query(JOURNAL, JournalState::snapshot);
      for (String id : c.running()) {
        JournalServer s = c.server(id);
        JournalRead r = s.read(JOURNAL, STREAM, 0, 0, Integer.MAX_VALUE);
        List<String> values = Batches.values(r.batches());
        // Exactly the acknowledged batches, each once, each at the offset it was acknowledged at.
        assertThat(values).as("replica %s", id).hasSize((int) expectedTotal);
        Set<String> seen = new HashSet<>();
        for (String v : values) {
          assertThat(seen.add(v.substring(v.indexOf(':') + 1))).as("duplicate %s", v).isTrue();
        }
        for (Producer p : producers) {
          int last = -1;
          for (String v : values) {
            String value = v.substring(v.indexOf(':') + 1);
            if (value.startsWith("p" + p.id + "-")) {
              int seq =
                  Integer.parseInt(value.substring(value.indexOf('-') + 1, value.lastIndexOf('-')));
              assertThat(seq).as("producer %s order", p.id).isEqualTo(last + 1);
              last = seq;
              assertThat(Long.parseLong(v.substring(0, v.indexOf(':'))))
                  .isEqualTo(p.acked.get(seq));
            }
          }
          assertThat(last).isEqualTo(BATCHES_PER_PRODUCER - 1);
        }
        assertThat(s.query(JOURNAL, JournalState::snapshot))
            .as("replica %s", id)
            .isEqualTo(reference);
      }
    }
  }
}
