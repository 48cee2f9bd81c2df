package dev.loam.journal.ratis;

import static dev.loam.journal.ratis.JournalTestCluster.JOURNAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal of three replicas over real loopback sockets (docs/design/quorum.md): appends are
 * acknowledged once committed and read back in order from the leader and from followers; idempotent
 * retries are deduplicated; an old leader cannot commit.
 */
class JournalClusterIT {
  static final long STREAM = 5;

  @TempDir Path dir;

  static List<String> readAll(JournalServer s, long stream, int partition) {
    return readAll(s, stream, partition, 0);
  }

  static List<String> readAll(JournalServer s, long stream, int partition, long from) {
    JournalRead r = s.read(JOURNAL, stream, partition, from, Integer.MAX_VALUE);
    return Batches.values(r.batches());
  }

  @Test
  void appendsAreReadBackInOrderFromTheLeaderAndFromFollowers() {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String leader = c.awaitLeader();
      assertThat(c.propose(leader, new JournalEntry.Host(STREAM, 0, 0)))
          .isEqualTo(new JournalResult.Hosted(0));
      List<String> expected = new ArrayList<>();
      List<String> ids = c.running();
      for (int i = 0; i < 30; i++) {
        // Proposals through a follower reach the leader too: the node's Ratis client forwards.
        String via = ids.get(i % 3);
        JournalResult r =
            c.propose(via, new JournalEntry.Append(STREAM, 0, Batches.plain("r" + i, 2)));
        assertThat(r).isEqualTo(new JournalResult.Appended(2L * i, 2L * i + 1));
        expected.add((2 * i) + ":r" + i + "-0");
        expected.add((2 * i + 1) + ":r" + i + "-1");
      }
      for (String id : ids) {
        c.awaitHighWatermark(id, STREAM, 0, 60);
        assertThat(readAll(c.server(id), STREAM, 0)).as("replica %s", id).isEqualTo(expected);
        assertThat(c.server(id).highWatermark(JOURNAL, STREAM, 0)).hasValue(60);
      }
      // Every replica has the same state, byte for byte.
      byte[] first = c.server(ids.get(0)).query(JOURNAL, JournalState::snapshot);
      for (String id : ids) {
        assertThat(c.server(id).query(JOURNAL, JournalState::snapshot)).isEqualTo(first);
      }
    }
  }

  @Test
  void anIdempotentRetryIsAnsweredWithTheFirstOffsets() {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String leader = c.awaitLeader();
      c.propose(leader, new JournalEntry.Host(STREAM, 1, 1000));
      byte[] batch = Batches.batch(77, (short) 0, 0, "once", 3);
      assertThat(c.propose(leader, new JournalEntry.Append(STREAM, 1, batch)))
          .isEqualTo(new JournalResult.Appended(1000, 1002));
      // The retry arrives through another node's client (a new client id: the Ratis retry cache
      // does not know it), so only the producer check can dedupe it.
      String other = c.running().stream().filter(id -> !id.equals(leader)).findFirst().get();
      assertThat(c.propose(other, new JournalEntry.Append(STREAM, 1, batch)))
          .isEqualTo(new JournalResult.Duplicate(1000, 1002));
      assertThat(
              c.propose(
                  other,
                  new JournalEntry.Append(STREAM, 1, Batches.batch(77, (short) 0, 3, "next", 1))))
          .isEqualTo(new JournalResult.Appended(1003, 1003));
      c.awaitHighWatermark(other, STREAM, 1, 1004);
      assertThat(readAll(c.server(other), STREAM, 1, 1000))
          .containsExactly("1000:once-0", "1001:once-1", "1002:once-2", "1003:next-0");
    }
  }

  @Test
  void anOldLeaderCannotCommit() throws Exception {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String old = c.awaitLeader();
      c.propose(old, new JournalEntry.Host(STREAM, 0, 0));
      c.propose(old, new JournalEntry.Append(STREAM, 0, Batches.plain("before", 1)));
      List<String> followers = new ArrayList<>(c.running());
      followers.remove(old);
      for (String f : followers) {
        c.stop(f);
      }
      // Alone, the old leader logs the entry but cannot gather a majority: not acknowledged in
      // 1.5 s (more than two election timeouts), nor later (below).
      CompletableFuture<JournalResult> isolated =
          c.server(old)
              .propose(JOURNAL, new JournalEntry.Append(STREAM, 0, Batches.plain("lost", 1)));
      assertThatThrownBy(() -> isolated.get(1500, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      assertThat(c.server(old).highWatermark(JOURNAL, STREAM, 0)).hasValue(1);
      c.stop(old);
      // The other two elect a leader of a newer term and go on without the old leader's entry.
      for (String f : followers) {
        c.start(f);
      }
      String leader = c.awaitLeader();
      assertThat(leader).isIn(followers);
      assertThat(c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("after", 1))))
          .isEqualTo(new JournalResult.Appended(1, 1));
      // Back, the old leader follows: its unacknowledged entry is overwritten, never applied.
      c.start(old);
      c.awaitHighWatermark(old, STREAM, 0, 2);
      assertThat(readAll(c.server(old), STREAM, 0)).containsExactly("0:before-0", "1:after-0");
      assertThat(c.server(old).isLeader(JOURNAL)).isFalse();
      assertThat(isolated).isCompletedExceptionally();
    }
  }

  @Test
  void aRestartedReplicaCatchesUpFromASnapshot() {
    try (JournalTestCluster c =
        new JournalTestCluster(
            dir, 3, s -> s.withSnapshotThresholdEntries(20).withLogSegmentSizeBytes(64 << 10))) {
      String leader = c.awaitLeader();
      c.propose(leader, new JournalEntry.Host(STREAM, 0, 0));
      String lagging = c.running().stream().filter(id -> !id.equals(leader)).findFirst().get();
      String pad = "x".repeat(2000);
      for (int i = 0; i < 40; i++) {
        c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain(pad + i, 1)));
      }
      c.awaitHighWatermark(lagging, STREAM, 0, 40);
      c.stop(lagging);
      for (int i = 40; i < 200; i++) {
        c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain(pad + i, 1)));
      }
      JournalServer l = c.server(leader);
      assertThat(l.latestSnapshotIndex(JOURNAL)).isGreaterThan(100);
      assertThat(l.logStartIndex(JOURNAL)).as("the leader purged its log").isGreaterThan(40);
      JournalServer back = c.start(lagging);
      c.awaitHighWatermark(lagging, STREAM, 0, 200);
      List<String> values = readAll(back, STREAM, 0);
      assertThat(values).hasSize(200);
      for (int i = 0; i < 200; i++) {
        assertThat(values.get(i)).isEqualTo(i + ":" + pad + i + "-0");
      }
      assertThat(back.query(JOURNAL, JournalState::snapshot))
          .isEqualTo(l.query(JOURNAL, JournalState::snapshot));
    }
  }

  @Test
  void leadershipMovesToTheHintedReplicaAndAppendsGoOn() {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String leader = c.awaitLeader();
      c.propose(leader, new JournalEntry.Host(STREAM, 0, 0));
      c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("a", 1)));
      String target = c.running().stream().filter(id -> !id.equals(leader)).findFirst().get();
      long t0 = System.nanoTime();
      JournalTestCluster.get(
          c.server(leader).transferLeadership(JOURNAL, target, Duration.ofSeconds(5)));
      assertThat(since(t0)).isLessThan(Duration.ofSeconds(3));
      assertThat(c.awaitLeader()).isEqualTo(target);
      assertThat(c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("b", 1))))
          .isEqualTo(new JournalResult.Appended(1, 1));
      assertThatThrownBy(
              () ->
                  JournalTestCluster.get(
                      c.server(target).transferLeadership(JOURNAL, "n9", Duration.ofSeconds(1))))
          .hasStackTraceContaining("not a replica of the journal journal=j1 node=n9");
    }
  }

  @Test
  void aNodeThatIsNotAReplicaIsRefused() {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      JournalServer s = c.server("n1");
      assertThatThrownBy(
              () -> s.host(new JournalGroup("j2", java.util.Map.of("n9", "127.0.0.1:1"))))
          .hasMessageContaining("not a replica of the journal journal=j2 node=n1");
      assertThatThrownBy(() -> s.read("nope", STREAM, 0, 0, 10))
          .hasMessageContaining("journal not on this node journal=nope");
      assertThat(s.propose("nope", new JournalEntry.Host(1, 0, 0))).isCompletedExceptionally();
    }
  }

  static Set<String> unique(List<String> xs) {
    return new HashSet<>(xs);
  }

  static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
