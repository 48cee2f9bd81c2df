package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.testing.ManualClock;
import dev.loam.tls.TestPki;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS on the Raft port: replicas with certificates of the cluster's CA form a group and
 * commit; a replica whose certificate another CA signed gets nothing in and nothing out.
 */
class RatisMutualTlsIT {
  @TempDir Path dir;
  private final ExecutorService exec = Executors.newFixedThreadPool(2);
  private final ManualClock clock = new ManualClock(RatisFixtures.START_MILLIS);
  private final List<RatisMetastore> started = new ArrayList<>();

  @AfterEach
  void close() {
    RatisTestCluster.closeAll(started);
    exec.shutdownNow();
  }

  private Map<String, String> peers() {
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("m" + i, RatisTestCluster.newAddress());
    }
    return peers;
  }

  private RatisMetastore start(
      String id, Map<String, String> peers, TlsSettings tls, int maxAttempts) {
    RatisSettings s =
        RatisTestCluster.testDefaults(id, peers, dir.resolve(id))
            .requestTimeout(Duration.ofSeconds(1))
            .maxAttempts(maxAttempts)
            .peerTls(tls)
            .build();
    RatisMetastore m = RatisMetastore.start(s, MetaSettings.defaults(), clock, exec);
    started.add(m);
    return m;
  }

  @Test
  void threeReplicasWithCertificatesOfOneCaCommitThroughEachOther() {
    TestPki ca = TestPki.create(dir.resolve("pki"), "cluster");
    Map<String, String> peers = peers();
    List<RatisMetastore> ms = new ArrayList<>();
    for (String id : peers.keySet()) {
      TlsSettings tls = ca.issue(id).settings().withClientCa(ca.caCertificate());
      ms.add(start(id, peers, tls, 100));
    }
    long stream = RatisFixtures.setUp(ms.get(0), clock);
    for (int i = 0; i < ms.size(); i++) {
      RatisFixtures.commitOne(ms.get(i), stream, "k" + i, clock);
    }
    for (RatisMetastore m : ms) {
      RatisTestCluster.get(m.readLinearizable(r -> r.appliedIndex()));
      assertThat(RatisFixtures.highWatermark(m, stream)).isEqualTo(3);
    }
  }

  @Test
  void aReplicaWithACertificateOfAnotherCaCanNeitherReceiveNorPropose() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "cluster");
    TestPki stranger = TestPki.create(dir.resolve("pki"), "stranger");
    Map<String, String> peers = peers();
    RatisMetastore m1 =
        start("m1", peers, ca.issue("m1").settings().withClientCa(ca.caCertificate()), 100);
    RatisMetastore m2 =
        start("m2", peers, ca.issue("m2").settings().withClientCa(ca.caCertificate()), 100);
    // Trusts the cluster's CA, so only its own certificate is foreign.
    RatisMetastore m3 =
        start("m3", peers, stranger.issue("m3").settings().withClientCa(ca.caCertificate()), 3);

    long stream = RatisFixtures.setUp(m1, clock);
    Applied committed = RatisFixtures.commitOne(m2, stream, "k1", clock);
    RatisTestCluster.get(m1.readLinearizable(r -> r.appliedIndex()));
    assertThat(RatisFixtures.highWatermark(m1, stream)).isEqualTo(1);

    // Its proposals never reach a leader: the retry budget runs out.
    CompletableFuture<Applied> proposal = m3.propose(RatisFixtures.commit(stream, "k2", clock));
    assertThat(proposal)
        .failsWithin(RatisTestCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .havingCause()
        .isInstanceOf(dev.loam.error.LoamException.class);
    // And the leader cannot replicate to it: it has applied nothing.
    assertThat(m3.appliedIndex()).isZero();
    assertThat(m1.appliedIndex()).isGreaterThanOrEqualTo(committed.index());
    assertThat(RatisFixtures.highWatermark(m2, stream)).isEqualTo(1);
  }
}
