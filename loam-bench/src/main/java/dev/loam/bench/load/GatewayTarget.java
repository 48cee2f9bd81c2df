package dev.loam.bench.load;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Durability;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NotOwnerException;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import dev.loam.kafka.KafkaGateway;
import dev.loam.kafka.KafkaGatewaySettings;
import dev.loam.wal.DurabilityClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Loam's Kafka gateways as a {@link KafkaTarget} ({@code --transport kafka}): a {@link
 * KafkaGateway} on each bench node, on an ephemeral loopback port, serving the bench namespace; the
 * bootstrap list names them all, so the clients find every node and Metadata spreads the
 * partitions' leaders over them. The gateways run in this JVM, so the process CPU already holds
 * their work ({@link #cpuNanos()} is 0), and the window figures add what the nodes and the store
 * did, as a run over the other transports reports it.
 */
final class GatewayTarget implements KafkaTarget, AutoCloseable {
  private final List<LoamNode> nodes;
  private final List<LatencyInjectingStore> stores;
  private final String namespace;
  private final DurabilityClass durabilityClass;
  private final List<KafkaGateway> gateways = new ArrayList<>();
  private final String bootstrap;
  private final Map<String, Object> clientSettings;
  private Admin admin;
  private LoadRun.Snapshot windowStart;
  private LoadRun.Snapshot windowEnd;

  /**
   * Starts a gateway on each of {@code nodes}, serving {@code namespace}, secured as {@code
   * security} says (with SASL, on a cluster-wide key created here first).
   */
  GatewayTarget(
      List<LoamNode> nodes,
      List<LatencyInjectingStore> stores,
      String namespace,
      DurabilityClass durabilityClass,
      GatewaySecurity security) {
    this.nodes = List.copyOf(nodes);
    this.stores = List.copyOf(stores);
    this.namespace = namespace;
    this.durabilityClass = durabilityClass;
    List<String> addresses = new ArrayList<>();
    try {
      String id = null;
      String secret = null;
      if (security.saslMechanism() != null) {
        CreatedApiKey k = benchKey(nodes);
        id = k.key().id();
        secret = k.secret();
      }
      this.clientSettings = Map.copyOf(security.clientSettings(id, secret));
      for (LoamNode n : nodes) {
        KafkaGatewaySettings.Builder b =
            KafkaGatewaySettings.builder()
                .host("127.0.0.1")
                .port(0)
                .namespace(namespace)
                // The run creates its topic; a client asking for another one is a bench bug.
                .autoCreateTopics(false)
                .authentication(
                    security.saslMechanism() != null
                        ? KafkaGatewaySettings.Authentication.REQUIRED
                        : KafkaGatewaySettings.Authentication.NONE);
        if (security.saslMechanism() != null) {
          b.saslMechanisms(java.util.Set.of(security.saslMechanism()));
        }
        security.tls().ifPresent(b::tls);
        KafkaGateway g = KafkaGateway.start(n, b.build());
        gateways.add(g);
        addresses.add(g.advertisedAddress());
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    this.bootstrap = String.join(",", addresses);
  }

  /** A cluster-wide key with the roles the run needs, once every node knows it. */
  private static CreatedApiKey benchKey(List<LoamNode> nodes) {
    try {
      CreatedApiKey k =
          nodes
              .get(0)
              .log()
              .createApiKey(ApiKeySpec.clusterWide(Role.PRODUCE, Role.CONSUME, Role.ADMIN))
              .get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      for (LoamNode n : nodes) {
        while (n.log().activePrincipal(k.key().id()).isEmpty()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("node " + n.nodeId() + " did not learn the bench key");
          }
          Thread.sleep(10);
        }
      }
      return k;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating the bench key", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create the bench key: " + e, e);
    }
  }

  @Override
  public Map<String, Object> clientSettings() {
    return clientSettings;
  }

  @Override
  public String bootstrap() {
    return bootstrap;
  }

  /** An admin client on the gateways, created on first use and closed with them. */
  @Override
  public synchronized Admin admin() {
    if (admin == null) {
      Map<String, Object> conf = new LinkedHashMap<>(clientSettings);
      conf.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      conf.put(AdminClientConfig.CLIENT_ID_CONFIG, "loam-bench-admin");
      conf.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
      conf.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
      admin = Admin.create(conf);
    }
    return admin;
  }

  /**
   * Creates the topic: a standard-class stream through the admin client's CreateTopics, without
   * configs ({@code fsync} is moot: Loam's store writes each WAL object durably before any ack, and
   * the gateway refuses the broker's {@code flush.messages}); an express-class stream, which Kafka
   * has no way to ask for, through the node's {@link Log}. Returns once every node knows it.
   */
  @Override
  public void createTopic(String topic, int partitions, boolean fsync) throws Exception {
    if (durabilityClass == DurabilityClass.STANDARD) {
      admin()
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    } else {
      nodes
          .get(0)
          .log()
          .createStream(
              namespace,
              topic,
              StreamSpec.standard(partitions)
                  .withClass(Durability.fromWireName(durabilityClass.wireName())))
          .get(60, TimeUnit.SECONDS);
    }
    for (LoamNode n : nodes) {
      awaitStream(n.log(), topic);
    }
  }

  private void awaitStream(Log log, String topic) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        log.describeStream(namespace, topic).get(10, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the bench topic never reached every node", e);
        }
        Thread.sleep(20); // the replica applies the stream soon; nothing to wait on
      }
    }
  }

  /**
   * Deletes the topic's stream through the {@link Log} of the node that owns it: Loam deletes a
   * stream only on its owner, and a gateway that is not the owner answers DeleteTopics with
   * NOT_CONTROLLER while naming itself the controller, so an admin client would retry until its
   * timeout unless it happened to reach the owner.
   */
  @Override
  public void deleteTopic(String topic) throws Exception {
    NotOwnerException last = null;
    for (LoamNode n : nodes) {
      try {
        n.log().deleteStream(namespace, topic).get(60, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof NotOwnerException no)) {
          throw e;
        }
        last = no;
      }
    }
    throw new IllegalStateException("no bench node owns the topic " + topic, last);
  }

  /** 0: the gateways and nodes run in this JVM, whose process CPU the run already counts. */
  @Override
  public long cpuNanos() {
    return 0;
  }

  @Override
  public void markWindow() {
    LoadRun.Snapshot s = LoadRun.snapshot(nodes, stores);
    if (windowStart == null) {
      windowStart = s;
    } else {
      windowEnd = s;
    }
  }

  /** The node, store, read and metastore figures of the window, as the other transports report. */
  @Override
  public Map<String, Object> windowFigures(long records) {
    if (windowStart == null || windowEnd == null) {
      return Map.of();
    }
    return LoadRun.nodeFigures(windowStart, windowEnd, records);
  }

  /** Closes the admin client and every gateway (not the nodes). */
  @Override
  public void close() {
    synchronized (this) {
      if (admin != null) {
        admin.close(Duration.ofSeconds(5));
        admin = null;
      }
    }
    for (KafkaGateway g : gateways) {
      g.close();
    }
  }
}
