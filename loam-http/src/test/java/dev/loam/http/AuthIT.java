package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys over HTTP with the JDK client and curl (docs/security.md): the bootstrap key from
 * loopback, 401 with the Bearer challenge for no, bad and revoked keys, 403 for a key of another
 * namespace or without the route's role, key admin by a cluster-admin key. Every answer and every
 * line the server logged during each test is scanned for the secrets the test used: none appears.
 */
class AuthIT {
  @TempDir Path dir;

  private HttpTestSupport h;
  private final List<String> secrets = new ArrayList<>();
  private final List<String> answers = new ArrayList<>();
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private PrintStream originalErr;
  private PrintStream originalOut;

  @BeforeEach
  void captureLogs() {
    // slf4j-simple writes to System.err at each call: a tee sees every log line of the test.
    originalErr = System.err;
    originalOut = System.out;
    System.setErr(new PrintStream(new Tee(originalErr, logged), true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(new Tee(originalOut, logged), true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void noSecretInAnyAnswerOrLogLine() {
    System.setErr(originalErr);
    System.setOut(originalOut);
    if (h != null) {
      h.close();
    }
    String log = logged.toString(StandardCharsets.UTF_8);
    assertThat(secrets).as("the test used secrets").isNotEmpty();
    for (String s : secrets) {
      assertThat(log).as("the log output").doesNotContain(s);
      for (String a : answers) {
        assertThat(a).as("an answer").doesNotContain(s);
      }
    }
  }

  /** Records an answer (its headers and body) for the scan; create answers are not recorded. */
  private HttpResponse<String> seen(HttpResponse<String> r) {
    answers.add(r.headers().map() + "\n" + r.body());
    return r;
  }

  private HttpResponse<String> call(String method, String path, String key, String body) {
    HttpRequest.Builder b = h.req(path).header("content-type", "application/json");
    if (key != null) {
      b.header("authorization", "Bearer " + key);
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return seen(h.send(b.build()));
  }

  /** Creates a key (with {@code adminToken}, or none for the bootstrap); returns its token. */
  private String createKey(String adminToken, String namespace, String... roles) {
    String ns = namespace == null ? "null" : "\"" + namespace + "\"";
    String body = "{\"namespace\":" + ns + ",\"roles\":[\"" + String.join("\",\"", roles) + "\"]}";
    HttpRequest.Builder b =
        h.req("/v1/admin/keys")
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (adminToken != null) {
      b.header("authorization", "Bearer " + adminToken);
    }
    HttpResponse<String> r = h.send(b.build());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    JsonNode j = json(r);
    String secret = j.get("secret").asText();
    secrets.add(dev.loam.tls.UsedSecrets.record(secret));
    assertThat(j.get("token").asText()).isEqualTo(j.get("id").asText() + "." + secret);
    return j.get("token").asText();
  }

  private static String id(String token) {
    return token.substring(0, token.indexOf('.'));
  }

  private static void unauthenticated(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
    assertThat(r.headers().firstValue("www-authenticate")).contains("Bearer realm=\"loam\"");
    assertThat(json(r).get("code").asText()).isEqualTo("unauthenticated");
  }

  private static void forbidden(HttpResponse<String> r, String... naming) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
    assertThat(json(r).get("code").asText()).isEqualTo("forbidden");
    assertThat(json(r).get("detail").asText()).contains(naming);
  }

  @Test
  void keysScopeRolesAndRevocationOverTheJdkClient() {
    h = new HttpTestSupport(dir, b -> b.authentication(Authentication.REQUIRED));
    // No key yet: only the bootstrap create works, from loopback; everything else is 401.
    unauthenticated(call("GET", "/v1/namespaces", null, null));
    String admin = createKey(null, null, "cluster-admin", "admin", "produce", "consume");
    // The bootstrap is over once a key exists.
    unauthenticated(call("POST", "/v1/admin/keys", null, "{\"roles\":[\"produce\"]}"));

    assertThat(call("GET", "/v1/health", null, null).statusCode()).isEqualTo(200);
    unauthenticated(call("GET", "/v1/namespaces", null, null));
    unauthenticated(call("GET", "/v1/namespaces", "not-a-token", null));
    unauthenticated(call("GET", "/v1/namespaces", id(admin) + ".wrongsecret", null));
    String wrong = admin.substring(0, admin.length() - 2) + "xx";
    HttpResponse<String> bad = call("GET", "/v1/namespaces", wrong, null);
    unauthenticated(bad);
    assertThat(bad.body()).contains("key=" + id(admin)).doesNotContain(wrong);
    assertThat(call("GET", "/v1/namespaces", admin, null).statusCode()).isEqualTo(200);

    assertThat(call("POST", "/v1/namespaces", admin, "{\"name\":\"team-a\"}").statusCode())
        .isEqualTo(201);
    assertThat(
            call("POST", "/v1/namespaces/team-a/streams", admin, "{\"name\":\"s\"}").statusCode())
        .isEqualTo(201);
    String teamA = createKey(admin, "team-a", "produce", "consume");
    String teamB = createKey(admin, "team-b", "produce", "consume", "admin");
    String readOnly = createKey(admin, "team-a", "consume");

    String records = "{\"records\":[{\"value\":\"v1\"}]}";
    String produce = "/v1/namespaces/team-a/streams/s/records";
    String fetch = "/v1/namespaces/team-a/streams/s/partitions/0/records?offset=0&max_wait_ms=0";
    assertThat(call("POST", produce, teamA, records).statusCode()).isEqualTo(200);
    assertThat(call("GET", fetch, teamA, null).statusCode()).isEqualTo(200);
    // A key of another namespace: 403 naming the namespace.
    forbidden(call("POST", produce, teamB, records), "namespace=team-a", "key=" + id(teamB));
    forbidden(call("GET", fetch, teamB, null), "namespace=team-a");
    // Consume only: fetches, but neither produces nor deletes.
    assertThat(call("GET", fetch, readOnly, null).statusCode()).isEqualTo(200);
    forbidden(call("POST", produce, readOnly, records), "role=produce", "key=" + id(readOnly));
    forbidden(call("DELETE", "/v1/namespaces/team-a/streams/s", readOnly, null), "role=admin");
    forbidden(call("DELETE", "/v1/namespaces/team-a/streams/s", teamA, null), "role=admin");
    // Key admin needs cluster-admin.
    forbidden(call("GET", "/v1/admin/keys", teamA, null), "role=cluster-admin");
    forbidden(call("POST", "/v1/namespaces", teamB, "{\"name\":\"x\"}"), "cluster-admin");

    HttpResponse<String> list = call("GET", "/v1/admin/keys", admin, null);
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(json(list).get("keys")).hasSize(4);
    // Revoked: refused at once on this node; listed as revoked.
    HttpResponse<String> revoked = call("DELETE", "/v1/admin/keys/" + id(teamA), admin, null);
    assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
    assertThat(json(revoked).get("revoked").asBoolean()).isTrue();
    unauthenticated(call("POST", produce, teamA, records));
    assertThat(call("DELETE", "/v1/admin/keys/zzzzzzzzzzzzzzzz", admin, null).statusCode())
        .isEqualTo(404);
    // Only the produce by teamA was appended.
    JsonNode fetched = json(call("GET", fetch, admin, null));
    assertThat(fetched.get("records")).hasSize(1);
  }

  @Test
  void listingsFollowTheKeysScopeAndNodesAndMetricsNeedAnyKey() {
    h = new HttpTestSupport(dir, b -> b.authentication(Authentication.REQUIRED));
    String admin = createKey(null, null, "cluster-admin", "admin", "produce", "consume");
    for (String ns : List.of("team-a", "team-b")) {
      assertThat(call("POST", "/v1/namespaces", admin, "{\"name\":\"" + ns + "\"}").statusCode())
          .isEqualTo(201);
    }
    String teamA = createKey(admin, "team-a", "consume");
    String ghost = createKey(admin, "team-gone", "consume");
    String cluster = createKey(admin, null, "consume");
    assertThat(namespaces(teamA)).containsExactly("team-a");
    assertThat(namespaces(ghost)).isEmpty();
    assertThat(namespaces(cluster)).contains("team-a", "team-b", "default");
    assertThat(namespaces(admin)).contains("team-a", "team-b", "default");
    // The node list (clients discover nodes with it) and metrics: any valid key, none without.
    for (String path : List.of("/v1/cluster/nodes", "/metrics")) {
      assertThat(call("GET", path, teamA, null).statusCode()).as(path).isEqualTo(200);
      unauthenticated(call("GET", path, null, null));
    }
  }

  private List<String> namespaces(String key) {
    HttpResponse<String> r = call("GET", "/v1/namespaces", key, null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    json(r).get("namespaces").forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void curlSeesTheChallengeAndABearerKeyGetsIn() {
    Curl.requireCurl();
    h = new HttpTestSupport(dir);
    assertThat(h.server.authentication()).isEqualTo(Authentication.WHEN_KEYS_EXIST);
    // Open while no key exists (the loopback default)...
    assertThat(Curl.run(h.base + "/v1/namespaces").status()).isEqualTo(200);
    String admin = createKey(null, null, "cluster-admin", "consume");
    // ...and closed from the first key on.
    Curl.Result none = Curl.run(h.base + "/v1/namespaces");
    answers.add(none.headers() + none.body());
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.header("www-authenticate")).isEqualTo("bearer realm=\"loam\"");
    Curl.Result in = Curl.run("-H", "Authorization: Bearer " + admin, h.base + "/v1/namespaces");
    answers.add(in.headers() + in.body());
    assertThat(in.status()).isEqualTo(200);
    Curl.Result health = Curl.run(h.base + "/v1/health");
    assertThat(health.status()).isEqualTo(200);
    String other = createKey(admin, "elsewhere", "consume");
    Curl.Result forbidden =
        Curl.run("-H", "Authorization: Bearer " + other, h.base + "/v1/namespaces/default");
    answers.add(forbidden.headers() + forbidden.body());
    assertThat(forbidden.status()).isEqualTo(403);
    assertThat(forbidden.body()).contains("namespace=default");
  }

  /** Writes to two streams. */
  private static final class Tee extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    Tee(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      synchronized (b) {
        b.write(c);
      }
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      synchronized (b) {
        b.write(buf, off, len);
      }
    }
  }
}
