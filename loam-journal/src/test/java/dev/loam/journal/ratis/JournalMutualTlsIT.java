package dev.loam.journal.ratis;

import static dev.loam.journal.ratis.JournalTestCluster.JOURNAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.tls.TestPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS on the journal port: replicas with certificates of the cluster's CA form a journal and
 * commit; a replica whose certificate another CA signed receives nothing and cannot propose.
 */
class JournalMutualTlsIT {
  @TempDir Path dir;

  @Test
  void replicasOfOneCaCommitAndAStrangerGetsNothing() {
    TestPki ca = TestPki.create(dir.resolve("pki"), "cluster");
    TestPki stranger = TestPki.create(dir.resolve("pki"), "stranger");
    try (JournalTestCluster c =
        new JournalTestCluster(
            dir,
            3,
            s ->
                (s.nodeId().equals("n3") ? s.withRetries(Duration.ofSeconds(1), 3) : s)
                    .withPeerTls(
                        (s.nodeId().equals("n3") ? stranger : ca)
                            .issue(s.nodeId())
                            .settings()
                            .withClientCa(ca.caCertificate())))) {
      String leader = c.awaitLeader();
      assertThat(leader).isNotEqualTo("n3");
      c.propose(leader, new JournalEntry.Host(1, 0, 0));
      String other = leader.equals("n1") ? "n2" : "n1";
      assertThat(c.propose(other, new JournalEntry.Append(1, 0, Batches.plain("tls", 1))))
          .isEqualTo(new JournalResult.Appended(0, 0));
      c.awaitHighWatermark(other, 1, 0, 1);
      // The stranger's proposals reach no leader, and the leader replicates nothing to it.
      assertThat(c.server("n3").propose(JOURNAL, new JournalEntry.Host(2, 0, 0)))
          .failsWithin(20, TimeUnit.SECONDS);
      assertThat(c.server("n3").highWatermark(JOURNAL, 1, 0)).isEmpty();
    }
  }
}
