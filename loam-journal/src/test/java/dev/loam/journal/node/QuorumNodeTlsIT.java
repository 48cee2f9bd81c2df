package dev.loam.journal.node;

import static dev.loam.journal.node.QuorumStreamLogIT.get;
import static dev.loam.journal.node.QuorumStreamLogIT.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.quorum.QuorumHost;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.tls.ReloadingTls;
import dev.loam.tls.TestPki;
import dev.loam.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS on the journal port of a node ({@code LoamNode.Builder#journalPeerTls}): three nodes
 * whose certificates one CA signed host a quorum stream's journal over TLS and append and read
 * through it; on their journal port a TLS client with a certificate of another CA, or with none,
 * fails its handshake, and a plaintext Ratis client gets no answer. A client of the cluster's CA
 * completes the handshake, so the refusals are the port's checks and not a broken listener.
 */
class QuorumNodeTlsIT {
  @TempDir Path dir;

  @Test
  void journalPortSpeaksMutualTlsOnly() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "cluster");
    TestPki stranger = TestPki.create(dir.resolve("pki"), "stranger");
    ExecutorService ex = Executors.newFixedThreadPool(2);
    InstantSource clock = InstantSource.system();
    List<LoamNode> nodes = new ArrayList<>();
    try (EmbeddedMetastore ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex)) {
      InMemoryObjectStore store = new InMemoryObjectStore(clock);
      List<String> addresses = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        String address = "127.0.0.1:" + JournalNodeHostIT.freePort();
        addresses.add(address);
        nodes.add(
            LoamNode.builder()
                .nodeId("n" + i)
                .objectStore(store)
                .metastore(ms)
                .settings(NodeSettings.defaults().withIdentity("http://n" + i, "z" + i, 1))
                .journalAddress(address)
                .journalDir(dir.resolve("journal-n" + i))
                .journalPeerTls(peer(ca, "n" + i, ca))
                .start());
      }
      try {
        JournalNodeHostIT.await(
            () ->
                ms.read(
                        r ->
                            r.nodes().stream()
                                .map(NodeInfo::endpoints)
                                .filter(e -> e.containsKey(QuorumHost.ENDPOINT))
                                .count())
                    == 3);
        get(nodes.get(0).log().createNamespace("ns"));
        get(
            nodes
                .get(0)
                .log()
                .createStream("ns", "q", StreamSpec.standard(1).withClass(Durability.QUORUM)));
        // The journal's replicas reach each other only over TLS: the appends commit on a majority.
        for (int i = 0; i < 5; i++) {
          append(nodes.get(i % 3), "r" + i);
        }
        for (LoamNode n : nodes) {
          JournalNodeHostIT.await(() -> highWatermark(n) == 5);
          FetchResult f = get(n.log().fetch("ns", "q", 0, 0, 1 << 20, Duration.ZERO));
          assertThat(f.records().stream().map(r -> text(r.value())).toList())
              .containsExactly("r0", "r1", "r2", "r3", "r4");
        }
        Map<String, List<String>> journals = ms.read(r -> r.journals());
        assertThat(journals).hasSize(1);
        String journal = journals.keySet().iterator().next();

        InetSocketAddress port = socketAddress(addresses.get(0));
        // A client of the cluster's CA: the handshake completes and the server speaks HTTP/2.
        try (SSLSocket s = tlsClient(port, peer(ca, "client", ca), true)) {
          s.startHandshake();
          assertThat(s.getSession().getProtocol()).startsWith("TLS");
          assertThat(firstBytes(s)).as("the server's HTTP/2 settings frame").isPositive();
        }
        // A certificate another CA signed, and no certificate: refused by the server.
        assertThatThrownBy(
                () -> {
                  try (SSLSocket s = tlsClient(port, peer(stranger, "stranger", ca), true)) {
                    s.startHandshake();
                    firstBytes(s);
                  }
                })
            .as("a client certificate of another CA")
            .isInstanceOf(SSLException.class);
        assertThatThrownBy(
                () -> {
                  try (SSLSocket s = tlsClient(port, peer(ca, "client", ca), false)) {
                    s.startHandshake();
                    firstBytes(s);
                  }
                })
            .as("no client certificate")
            .isInstanceOf(SSLException.class);
        // A plaintext Ratis client addressed to the journal's group gets no answer.
        try (RaftClient plain = plainClient(journal, addresses)) {
          assertThatThrownBy(
                  () ->
                      plain.getGroupManagementApi(RaftPeerId.valueOf("n1")).info(groupId(journal)))
              .as("a plaintext Ratis client: the TLS port closes its connection")
              .hasMessageContaining("UNAVAILABLE");
        }
        // The journal still commits after the refused connections.
        append(nodes.get(1), "r5");
        JournalNodeHostIT.await(() -> highWatermark(nodes.get(2)) == 6);
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
      ex.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** Peer TLS settings of a certificate {@code issuer} signed, trusting {@code trusted}'s CA. */
  private static TlsSettings peer(TestPki issuer, String cn, TestPki trusted) {
    return issuer.issue(cn).settings().withClientCa(trusted.caCertificate());
  }

  /**
   * A TLS socket offering {@code h2} and trusting the CA {@code tls} trusts; it presents {@code
   * tls}'s certificate when {@code present}, else none.
   */
  private static SSLSocket tlsClient(InetSocketAddress to, TlsSettings tls, boolean present)
      throws Exception {
    ReloadingTls t = ReloadingTls.open(tls);
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(
        present ? new KeyManager[] {t.keyManager()} : null,
        new TrustManager[] {t.trustManager().orElseThrow()},
        null);
    return socket(c, to);
  }

  private static SSLSocket socket(SSLContext c, InetSocketAddress to) throws IOException {
    SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket(to.getHostString(), to.getPort());
    s.setSoTimeout(10_000);
    SSLParameters p = s.getSSLParameters();
    p.setApplicationProtocols(new String[] {"h2"});
    s.setSSLParameters(p);
    return s;
  }

  /** Sends the HTTP/2 connection preface and returns how many bytes the server answered with. */
  private static int firstBytes(SSLSocket s) throws IOException {
    s.getOutputStream()
        .write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame
    s.getOutputStream().flush();
    InputStream in = s.getInputStream();
    return in.read(new byte[64]);
  }

  private static RaftClient plainClient(String journal, List<String> addresses) {
    RaftProperties props = new RaftProperties();
    RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(props, TimeDuration.valueOf(2, TimeUnit.SECONDS));
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 0; i < addresses.size(); i++) {
      peers.add(RaftPeer.newBuilder().setId("n" + (i + 1)).setAddress(addresses.get(i)).build());
    }
    return RaftClient.newBuilder()
        .setProperties(props)
        .setRaftGroup(RaftGroup.valueOf(groupId(journal), peers))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  /** The journal's Raft group id, as the journal server derives it from the journal's name. */
  private static RaftGroupId groupId(String journal) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("loam-journal:" + journal).getBytes(StandardCharsets.UTF_8)));
  }

  private static InetSocketAddress socketAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  private static void append(LoamNode n, String v) throws Exception {
    get(n.log().append("ns", "q", List.of(AppendRecord.of("k", v).toPartition(0))));
  }

  private static long highWatermark(LoamNode n) {
    try {
      return get(n.log().fetch("ns", "q", 0, 0, 1, Duration.ZERO)).highWatermark();
    } catch (Exception e) {
      return -1;
    }
  }
}
