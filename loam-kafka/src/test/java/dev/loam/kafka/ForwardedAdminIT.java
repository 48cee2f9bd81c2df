package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.LoamNode;
import dev.loam.api.Role;
import dev.loam.api.ScramCredential;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.kafka.KafkaGatewaySettings.Authentication;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.security.ForwardingToken;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.tls.TestPki;
import dev.loam.tls.UsedSecrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Owner-bound topic admin (alter configs, add partitions, delete) sent with the real Kafka Admin
 * client to a node that does not own the stream, on a 3-node cluster whose listeners speak TLS
 * only, require client certificates and require SASL: the gateway forwards it to the owner as the
 * caller's key in the caller's namespace, and the owner applies it. A key without the admin role is
 * refused; a forwarding token that is forged, made for another node or presented outside a
 * forwarding connection is refused.
 */
class ForwardedAdminIT {
  @TempDir static Path pkiDir;
  static TestPki ca;
  static TestPki.Issued cert;

  @TempDir Path dir;
  ExecutorService metaExecutor;
  InMemoryObjectStore store;
  Metastore meta;
  final Map<String, LoamNode> nodes = new HashMap<>();
  final Map<String, KafkaGateway> gateways = new HashMap<>();

  @BeforeAll
  static void pki() {
    ca = TestPki.create(pkiDir, "forward");
    cert = ca.issue("node");
  }

  @BeforeEach
  void start() {
    metaExecutor = Executors.newSingleThreadExecutor();
    store = new InMemoryObjectStore(InstantSource.system());
    meta =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            metaExecutor);
    for (String id : List.of("a", "b", "c")) {
      LoamNode n =
          LoamNode.builder()
              .nodeId(id)
              .settings(KafkaTestSupport.FAST.withIdentity("http://" + id, "z", 1))
              .objectStore(store)
              .metastore(meta)
              .start();
      nodes.put(id, n);
      gateways.put(
          id,
          KafkaGateway.start(
              n,
              KafkaGatewaySettings.builder()
                  .port(0)
                  .ioThreads(1)
                  .tls(cert.settings().withClientCa(ca.caCertificate()))
                  .authentication(Authentication.REQUIRED)
                  .build()));
    }
  }

  @AfterEach
  void stop() {
    gateways.values().forEach(KafkaGateway::close);
    nodes.values().forEach(LoamNode::close);
    meta.close();
    store.close();
    metaExecutor.shutdownNow();
  }

  private LoamNode any() {
    return nodes.get("a");
  }

  /** Creates the stream and waits until one node holds it open; returns the owner's id. */
  private String ownedStream(String ns, String name) {
    any().log().createStream(ns, name, StreamSpec.standard(2)).join();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      for (LoamNode n : nodes.values()) {
        n.runOwnershipStep().join();
      }
      String owner = any().log().streamOwner(ns, name).join().ownerNodeId();
      if (!owner.isEmpty()) {
        return owner;
      }
    }
    throw new AssertionError("no owner for " + ns + "/" + name);
  }

  private String notOwner(String owner) {
    return nodes.keySet().stream().filter(id -> !id.equals(owner)).sorted().findFirst().get();
  }

  private CreatedApiKey key(ApiKeySpec spec) throws Exception {
    return SaslClients.key(any(), spec);
  }

  /**
   * A fresh Admin client bootstrapped on {@code nodeId} alone: its first Metadata names that node
   * as the controller, so its admin requests go there.
   */
  private Admin admin(String nodeId, String clientId, String mechanism, String user, String pass)
      throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + gateways.get(nodeId).port());
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
    p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
    p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.caCertificate().toString());
    p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
    p.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, Files.readString(cert.certificate()));
    p.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, Files.readString(cert.privateKey()));
    p.put(SaslConfigs.SASL_MECHANISM, mechanism);
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put(
        SaslConfigs.SASL_JAAS_CONFIG,
        module + " required username=\"" + user + "\" password=\"" + pass + "\";");
    return Admin.create(p);
  }

  private Admin admin(String nodeId, CreatedApiKey k) throws Exception {
    return admin(nodeId, "tool", "SCRAM-SHA-256", k.key().id(), k.secret());
  }

  private static AlterConfigOp setRetention(long ms) {
    return new AlterConfigOp(
        new ConfigEntry("retention.ms", Long.toString(ms)), AlterConfigOp.OpType.SET);
  }

  private boolean exists(String ns, String name) {
    return any().log().listStreams(ns).join().stream().anyMatch(d -> d.name().equals(name));
  }

  @Test
  void anAdminKeysTopicAdminThroughANonOwnerIsAppliedByTheOwner() throws Exception {
    CreatedApiKey admin = key(ApiKeySpec.clusterWide(Role.ADMIN, Role.PRODUCE, Role.CONSUME));
    String owner = ownedStream("default", "t");
    String other = notOwner(owner);
    // The node asked may not apply it itself: the stream's owner must.
    assertThat(
            nodes
                .get(other)
                .log()
                .updateStream("default", "t", StreamUpdate.none().withRetentionMillis(1000))
                .handle((x, e) -> e)
                .join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(dev.loam.api.NotOwnerException.class);

    try (Admin a = admin(other, admin)) {
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "t");
      a.incrementalAlterConfigs(Map.of(topic, List.of(setRetention(3_600_000L))))
          .all()
          .get(60, TimeUnit.SECONDS);
      assertThat(any().log().describeStream("default", "t").join().spec().retentionMillis())
          .isEqualTo(3_600_000L);

      a.createPartitions(Map.of("t", NewPartitions.increaseTo(5))).all().get(60, TimeUnit.SECONDS);
      assertThat(any().log().describeStream("default", "t").join().partitions()).hasSize(5);

      a.deleteTopics(List.of("t")).all().get(60, TimeUnit.SECONDS);
      assertThat(exists("default", "t")).isFalse();
    }
  }

  @Test
  void aNamespaceKeysForwardedDeleteActsInItsOwnNamespace() throws Exception {
    any().log().createNamespaceIfAbsent("team").join();
    CreatedApiKey team = key(ApiKeySpec.inNamespace("team", Role.ADMIN));
    ownedStream("default", "same");
    String owner = ownedStream("team", "same");
    try (Admin a = admin(notOwner(owner), team)) {
      a.deleteTopics(List.of("same")).all().get(60, TimeUnit.SECONDS);
    }
    assertThat(exists("team", "same")).isFalse();
    // The listener's namespace has a topic of the same name; the forwarded delete left it alone.
    assertThat(exists("default", "same")).isTrue();
  }

  @Test
  void aKeyWithoutTheAdminRoleIsRefusedAndNothingChanges() throws Exception {
    CreatedApiKey noAdmin = key(ApiKeySpec.clusterWide(Role.PRODUCE, Role.CONSUME));
    String owner = ownedStream("default", "kept");
    for (String via : List.of(notOwner(owner), owner)) {
      try (Admin a = admin(via, noAdmin)) {
        assertThatThrownBy(() -> a.deleteTopics(List.of("kept")).all().get(60, TimeUnit.SECONDS))
            .as("via " + via)
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(
                () ->
                    a.createPartitions(Map.of("kept", NewPartitions.increaseTo(3)))
                        .all()
                        .get(60, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(TopicAuthorizationException.class);
      }
    }
    assertThat(exists("default", "kept")).isTrue();
    assertThat(any().log().describeStream("default", "kept").join().partitions()).hasSize(2);
  }

  @Test
  void forgedMisdirectedOrMisplacedForwardingTokensAreRefused() throws Exception {
    CreatedApiKey admin = key(ApiKeySpec.clusterWide(Role.ADMIN));
    String id = admin.key().id();
    byte[] serverKey =
        any().log().scramCredential(id, ScramCredential.SCRAM_SHA_256).orElseThrow().serverKey();
    long expiry = System.currentTimeMillis() + 60_000;
    String forged = ForwardingToken.mint(new byte[32], id, "default", "a", expiry);
    String forOtherNode = ForwardingToken.mint(serverKey, id, "default", "b", expiry);
    String valid = ForwardingToken.mint(serverKey, id, "default", "a", expiry);
    UsedSecrets.record(valid);
    for (String[] attempt :
        new String[][] {
          {OwnerForwarding.CLIENT_ID, forged},
          {OwnerForwarding.CLIENT_ID, forOtherNode},
          // A token is accepted from a forwarding connection only, and is no key's secret.
          {"tool", valid},
          // A forwarding connection takes no secret: only a token.
          {OwnerForwarding.CLIENT_ID, admin.secret()}
        }) {
      try (Admin a = admin("a", attempt[0], "PLAIN", id, attempt[1])) {
        assertThatThrownBy(() -> a.listTopics().names().get(30, TimeUnit.SECONDS))
            .as(attempt[0])
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(SaslAuthenticationException.class)
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain(admin.secret()));
      }
    }
    // The genuine token for this node, on a forwarding connection, is accepted.
    try (Admin a = admin("a", OwnerForwarding.CLIENT_ID, "PLAIN", id, valid)) {
      assertThat(a.listTopics().names().get(30, TimeUnit.SECONDS)).isNotNull();
    }
  }
}
