package dev.loam.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Durability;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import dev.loam.http.Authentication;
import dev.loam.http.LoamHttpServer;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.tls.UsedSecrets;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./loam partitions move} against a node's HTTP API with keys required: four nodes that
 * advertise a journal endpoint but run no journal server, so the metastore places two journals and
 * a begun move stays marked. The move is begun and printed (exit 0); the same move again, a key
 * without cluster-admin and a standard stream are refused with the server's reason (exit 1); a bad
 * command line exits 2 naming the flag.
 */
class PartitionsCliIT {
  @TempDir Path dir;
  ExecutorService ex;
  EmbeddedMetastore ms;
  final List<LoamNode> nodes = new ArrayList<>();
  LoamHttpServer server;
  String url;
  String admin;
  String namespaceAdmin;

  record Run(int status, String out, String err) {}

  @BeforeEach
  void start() throws Exception {
    ex = Executors.newFixedThreadPool(2);
    InstantSource clock = InstantSource.system();
    ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex);
    InMemoryObjectStore store = new InMemoryObjectStore(clock);
    String[] zones = {"z1", "z2", "z3", "z1"};
    for (int i = 1; i <= 4; i++) {
      LoamNode n =
          LoamNode.builder()
              .nodeId("n" + i)
              .objectStore(store)
              .metastore(ms)
              .settings(NodeSettings.defaults().withIdentity("http://n" + i, zones[i - 1], 1))
              .start();
      nodes.add(n);
      get(n.log().advertiseEndpoint("journal", "127.0.0.1:" + (9300 + i)));
    }
    dev.loam.api.Log log = nodes.get(0).log();
    get(log.createNamespace("ns"));
    get(log.createStream("ns", "q", StreamSpec.standard(1).withClass(Durability.QUORUM)));
    get(log.createStream("ns", "plain", StreamSpec.standard(1)));
    admin = token(ApiKeySpec.clusterWide(Role.CLUSTER_ADMIN));
    namespaceAdmin = token(ApiKeySpec.clusterWide(Role.ADMIN));
    server =
        LoamHttpServer.builder()
            .node(nodes.get(0))
            .port(0)
            .ioThreads(1)
            .authentication(Authentication.REQUIRED)
            .start();
    url = "http://127.0.0.1:" + server.port();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    nodes.forEach(LoamNode::close);
    ms.close();
    ex.shutdownNow();
    ex.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void movesAPartitionAndPrintsTheRefusals() throws Exception {
    long id = get(nodes.get(0).log().describeStream("ns", "q")).id();
    String from = ms.read(r -> r.journalOf(id, 0)).orElseThrow();
    String to = from.equals("quorum-1") ? "quorum-2" : "quorum-1";
    List<String> replicas = ms.read(r -> r.journalReplicas(to)).orElseThrow();

    Run ok =
        run(Map.of(), "--key", admin, "--stream", "ns/q", "--partition", "0", "--to-journal", to);
    assertThat(ok.status()).as("%s", ok).isZero();
    assertThat(ok.out().strip())
        .isEqualTo(
            "loam partitions: moving ns/q partition 0 from "
                + from
                + " to "
                + to
                + " (replicas "
                + String.join(",", replicas)
                + ")");
    assertThat(moveTarget(id)).contains(to);

    // The key from the environment; the move is under way already.
    Run again =
        run(
            Map.of(AdminHttp.KEY_ENV, admin),
            "--stream",
            "ns/q",
            "--partition",
            "0",
            "--to-journal",
            to);
    assertThat(again.status()).as("%s", again).isEqualTo(1);
    assertThat(again.err())
        .contains("loam partitions move: refused (HTTP 409): a move of the partition is under way");
    Run forbidden =
        run(
            Map.of(),
            "--key",
            namespaceAdmin,
            "--stream",
            "ns/q",
            "--partition",
            "0",
            "--to-journal",
            to);
    assertThat(forbidden.status()).isEqualTo(1);
    assertThat(forbidden.err()).contains("(HTTP 403)").contains("role=cluster-admin");
    Run plain =
        run(
            Map.of(),
            "--key",
            admin,
            "--stream",
            "ns/plain",
            "--partition",
            "0",
            "--to-journal",
            to);
    assertThat(plain.status()).isEqualTo(1);
    assertThat(plain.err())
        .contains("(HTTP 400): only a quorum stream's partitions live on journals");
    // No secret in anything printed.
    for (Run r : List.of(ok, again, forbidden, plain)) {
      assertThat(r.out() + r.err()).doesNotContain(admin.substring(admin.indexOf('.') + 1));
    }

    Run bad = run(Map.of(), "--stream", "q", "--partition", "0", "--to-journal", to);
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("--stream").contains("not NAMESPACE/STREAM");
    Run missing = run(Map.of(), "--stream", "ns/q", "--partition", "0");
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("--to-journal");
  }

  private Run run(Map<String, String> env, String... flags) {
    List<String> words = new ArrayList<>(List.of("move", "--url", url));
    words.addAll(List.of(flags));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        PartitionsCli.run(
            words.toArray(String[]::new),
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Optional<String> moveTarget(long id) {
    return ms.read(r -> r.journalMoveTarget(id, 0));
  }

  private String token(ApiKeySpec spec) throws Exception {
    CreatedApiKey k = get(nodes.get(0).log().createApiKey(spec));
    UsedSecrets.record(k.secret());
    return k.token();
  }

  private static <T> T get(java.util.concurrent.CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }
}
