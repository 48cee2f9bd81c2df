package dev.loam.journal.ratis;

import static dev.loam.journal.ratis.JournalTestCluster.JOURNAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.meta.ratis.internal.RaftMetaGuard;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal replica whose Raft term and vote file ({@code raft-meta}) is emptied, as Ratis leaves
 * it when its rewrite fails on a full disk (docs/design/quorum.md "A replica's term and vote"): the
 * replica's division stops (it no longer votes or appends; the other two keep acknowledging), its
 * file is restored with the term and vote it held once the division stopped, the journal is not
 * hosted again by the running server, and a start on an emptied file is refused as corruption
 * naming the file; with the file restored the replica starts and catches up. A file lost just
 * before the server closes is restored by the close.
 */
class JournalMetaGuardIT {
  static final long STREAM = 11;

  @TempDir Path dir;

  private Path metaFile(String node) {
    return groupDir(node).resolve("current").resolve(RaftMetaGuard.META_FILE);
  }

  private Path groupDir(String node) {
    return dir.resolve(node).resolve(JournalServer.groupId(JOURNAL).getUuid().toString());
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline =
        System.nanoTime() + TimeUnit.SECONDS.toNanos(JournalTestCluster.TIMEOUT_SECONDS);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  static long term(byte[] raftMeta) throws Exception {
    Properties p = new Properties();
    p.load(new StringReader(new String(raftMeta, StandardCharsets.UTF_8)));
    return Long.parseLong(p.getProperty("term"));
  }

  @Test
  void anEmptiedTermAndVoteFileStopsTheReplicaIsRestoredAndRefusesAStart() throws Exception {
    try (JournalTestCluster c = new JournalTestCluster(dir, 3, s -> s)) {
      String leader = c.awaitLeader();
      assertThat(c.propose(leader, new JournalEntry.Host(STREAM, 0, 0)))
          .isEqualTo(new JournalResult.Hosted(0));
      assertThat(c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("a", 2))))
          .isEqualTo(new JournalResult.Appended(0, 1));
      String victim = c.running().stream().filter(id -> !id.equals(leader)).findFirst().get();
      c.awaitHighWatermark(victim, STREAM, 0, 2);
      byte[] sound = Files.readAllBytes(metaFile(victim));
      long heldTerm = term(sound);
      assertThat(heldTerm).isPositive();

      // The rewrite that failed on a full disk: an empty file in place of the last good one.
      Files.write(metaFile(victim), new byte[0]);
      JournalServer s = c.server(victim);
      await("the replica's division stops", () -> !s.hosts(JOURNAL));
      // Restored once the division stopped, with the term it held.
      await("the file is restored", () -> RaftMetaGuard.problem(groupDir(victim)).isEmpty());
      assertThat(term(Files.readAllBytes(metaFile(victim)))).isEqualTo(heldTerm);
      // No longer a replica here: nothing is read or hosted again until the server restarts.
      assertThatThrownBy(() -> s.read(JOURNAL, STREAM, 0, 0, 1 << 20))
          .isInstanceOf(LoamException.class)
          .extracting(e -> ((LoamException) e).kind())
          .isEqualTo(LoamException.Kind.UNAVAILABLE);
      assertThatThrownBy(() -> s.host(new JournalGroup(JOURNAL, c.addresses)))
          .isInstanceOf(LoamException.class)
          .hasMessageContaining("term and vote file was lost");
      // The other two replicas are a majority: appends are still acknowledged.
      assertThat(c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("b", 1))))
          .isEqualTo(new JournalResult.Appended(2, 2));

      // A start on an emptied file (a replica killed before it could repair it) is refused.
      c.stop(victim);
      byte[] restored = Files.readAllBytes(metaFile(victim));
      Files.write(metaFile(victim), new byte[0]);
      assertThatThrownBy(() -> c.start(victim))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(metaFile(victim).toString())
          .hasMessageContaining("term and vote");

      // Restored by hand (the term and vote the stop logged): it starts and catches up.
      Files.write(metaFile(victim), restored);
      c.start(victim);
      c.awaitHighWatermark(victim, STREAM, 0, 3);
      assertThat(c.server(victim).hosts(JOURNAL)).isTrue();

      // Lost again and the server closed at once (its check may not have run yet): the close
      // restores the file, so the next start runs.
      long termNow = term(Files.readAllBytes(metaFile(victim)));
      Files.write(metaFile(victim), new byte[0]);
      c.stop(victim);
      assertThat(RaftMetaGuard.problem(groupDir(victim))).isEmpty();
      assertThat(term(Files.readAllBytes(metaFile(victim)))).isEqualTo(termNow);
      c.start(victim);
      assertThat(c.propose(leader, new JournalEntry.Append(STREAM, 0, Batches.plain("c", 1))))
          .isEqualTo(new JournalResult.Appended(3, 3));
      c.awaitHighWatermark(victim, STREAM, 0, 4);
    }
  }
}
