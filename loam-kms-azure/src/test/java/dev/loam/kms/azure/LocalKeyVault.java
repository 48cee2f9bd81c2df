package dev.loam.kms.azure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Cipher;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

/**
 * A local HTTPS endpoint speaking the subset of the Azure Key Vault keys REST API that {@link
 * AzureKeyManagementService} uses, for tests: Microsoft ships no Key Vault emulator. It checks what
 * a local endpoint can check honestly: TLS with a certificate the client is told to trust, Key
 * Vault's challenge authentication (a request without a token is answered 401 with a {@code
 * WWW-Authenticate: Bearer authorization=…, resource=…} challenge; the client must come back with
 * the bearer token of the test credential, which it asks for with the challenge's scope), the
 * {@code api-version} query on every call and JSON bodies on POSTs; it answers in Key Vault's
 * documented shapes (key bundles with the RSA public key as a JWK, deleted key bundles, paged
 * version lists with {@code nextLink}, {@code {"error":{"code","message"}}} errors with 404, 409
 * and 400) and performs RSA-OAEP-256 as Key Vault does. It does not show Azure's own semantics
 * (access policies or RBAC, soft-delete retention, purge protection, HSMs): see
 * docs/reference/kms.md.
 */
final class LocalKeyVault implements AutoCloseable {
  static final String TOKEN = "loam-test-vault-token";
  static final String CHALLENGE =
      "Bearer authorization=\"https://login.microsoftonline.com/00000000-0000-0000-0000-000000000001\","
          + " resource=\"https://vault.azure.net\"";

  static {
    // Without it the JDK server's small responses wait out the client's delayed ACK (~40 ms).
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private static final class Version {
    final String id;
    final KeyPair pair;
    final long created;

    Version(String id, KeyPair pair, long created) {
      this.id = id;
      this.pair = pair;
      this.created = created;
    }
  }

  private static final class Key {
    final String name;
    final List<Version> versions = new CopyOnWriteArrayList<>();
    final Map<String, String> tags;
    volatile long deleted;

    Key(String name, Map<String, String> tags) {
      this.name = name;
      this.tags = tags;
    }
  }

  private final HttpsServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Key> keys = new ConcurrentHashMap<>();
  private final AtomicLong clock = new AtomicLong(1_700_000_000L);
  private final java.security.SecureRandom random = new java.security.SecureRandom();
  final List<String> operations = new CopyOnWriteArrayList<>();
  final List<String> protocolFailures = new CopyOnWriteArrayList<>();
  final AtomicInteger challenges = new AtomicInteger();

  /** Answer this many next authorized requests with 503 (then serve normally). */
  final AtomicInteger failNext = new AtomicInteger();

  /** Delay every answer by this many milliseconds. */
  volatile long delayMillis;

  LocalKeyVault(TestTls tls) throws Exception {
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls.serverContext()));
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  List<String> operations() {
    return new ArrayList<>(operations);
  }

  private static final class VaultError extends Exception {
    final int status;
    final String code;

    VaultError(int status, String code, String message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      byte[] body = x.getRequestBody().readAllBytes();
      if (delayMillis > 0) {
        Thread.sleep(delayMillis);
      }
      String auth = x.getRequestHeaders().getFirst("Authorization");
      if (auth == null) {
        challenges.incrementAndGet();
        x.getResponseHeaders().add("WWW-Authenticate", CHALLENGE);
        error(
            x, new VaultError(401, "Unauthorized", "AKV10000: Request is missing a Bearer token."));
        return;
      }
      if (!auth.equals("Bearer " + TOKEN)) {
        protocolFailures.add("authorization not the test token");
        x.getResponseHeaders().add("WWW-Authenticate", CHALLENGE);
        error(x, new VaultError(401, "Unauthorized", "AKV10032: Invalid issuer."));
        return;
      }
      String query = x.getRequestURI().getRawQuery();
      if (query == null || !query.contains("api-version=")) {
        protocolFailures.add("api-version missing " + x.getRequestURI());
      }
      String method = x.getRequestMethod();
      if (method.equals("POST") && body.length > 0) {
        String ct = x.getRequestHeaders().getFirst("Content-Type");
        if (ct == null || !ct.startsWith("application/json")) {
          protocolFailures.add("Content-Type " + ct + " on " + x.getRequestURI().getPath());
        }
      }
      String[] p = x.getRequestURI().getPath().replaceAll("/+$", "").split("/");
      String op = operation(method, p);
      operations.add(op);
      if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        error(x, new VaultError(503, "ServiceUnavailable", "injected"));
        return;
      }
      try {
        JsonNode in = body.length == 0 ? json.createObjectNode() : json.readTree(body);
        send(x, 200, json.writeValueAsBytes(dispatch(op, p, in, query)));
      } catch (VaultError e) {
        error(x, e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      error(x, new VaultError(500, "InternalError", String.valueOf(e)));
    }
  }

  /** The operation a path names: /keys/{name}/create, /keys/{name}/{version}/unwrapkey, … */
  private static String operation(String method, String[] p) {
    if (p.length >= 3 && p[1].equals("deletedkeys")) {
      return method + " deletedkey";
    }
    if (p.length < 3 || !p[1].equals("keys")) {
      return method + " unknown";
    }
    if (p.length == 3) {
      return method + " key";
    }
    if (p.length == 4) {
      return method
          + " "
          + (p[3].equals("create") || p[3].equals("rotate") || p[3].equals("versions")
              ? p[3]
              : "key");
    }
    return method + " " + p[4];
  }

  private Key key(String name) throws VaultError {
    Key k = keys.get(name.toLowerCase(java.util.Locale.ROOT));
    if (k == null || k.deleted != 0) {
      throw new VaultError(
          404, "KeyNotFound", "A key with (name/id) " + name + " was not found in this key vault.");
    }
    return k;
  }

  private Version version(Key k, String id) throws VaultError {
    if (id == null || id.isEmpty()) {
      return k.versions.get(k.versions.size() - 1);
    }
    for (Version v : k.versions) {
      if (v.id.equals(id)) {
        return v;
      }
    }
    throw new VaultError(
        404,
        "KeyNotFound",
        "A key with (name/id) " + k.name + "/" + id + " was not found in this key vault.");
  }

  /**
   * RSA key pairs, made once per test JVM and handed out in turn (RSA key generation costs up to a
   * second on a loaded machine): versions made one after another never share a pair.
   */
  private static List<KeyPair> pairs;

  private static final AtomicInteger nextPair = new AtomicInteger();

  private static synchronized KeyPair pair() throws Exception {
    if (pairs == null) {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      List<KeyPair> l = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        l.add(g.generateKeyPair());
      }
      pairs = l;
    }
    return pairs.get(Math.floorMod(nextPair.getAndIncrement(), pairs.size()));
  }

  private Version newVersion() throws Exception {
    byte[] id = new byte[16];
    random.nextBytes(id);
    return new Version(HexFormat.of().formatHex(id), pair(), clock.incrementAndGet());
  }

  private static String b64url(BigInteger i) {
    byte[] b = i.toByteArray();
    if (b.length > 1 && b[0] == 0) {
      b = java.util.Arrays.copyOfRange(b, 1, b.length);
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private String kid(Key k, Version v) {
    return url() + "/keys/" + k.name + "/" + v.id;
  }

  private ObjectNode attributes(Version v) {
    ObjectNode a = json.createObjectNode();
    a.put("enabled", true).put("created", v.created).put("updated", v.created);
    a.put("recoveryLevel", "Recoverable+Purgeable").put("recoverableDays", 90);
    return a;
  }

  private ObjectNode bundle(Key k, Version v) {
    ObjectNode out = json.createObjectNode();
    ObjectNode jwk = out.putObject("key");
    RSAPublicKey pub = (RSAPublicKey) v.pair.getPublic();
    jwk.put("kid", kid(k, v)).put("kty", "RSA");
    jwk.putArray("key_ops").add("wrapKey").add("unwrapKey");
    jwk.put("n", b64url(pub.getModulus())).put("e", b64url(pub.getPublicExponent()));
    out.set("attributes", attributes(v));
    ObjectNode tags = out.putObject("tags");
    k.tags.forEach(tags::put);
    return out;
  }

  private ObjectNode deletedBundle(Key k) {
    ObjectNode out = bundle(k, k.versions.get(k.versions.size() - 1));
    out.put("recoveryId", url() + "/deletedkeys/" + k.name)
        .put("deletedDate", k.deleted)
        .put("scheduledPurgeDate", k.deleted + 90L * 86_400);
    return out;
  }

  private static Cipher oaep(int mode, java.security.Key key) throws Exception {
    Cipher c = Cipher.getInstance("RSA/ECB/OAEPPadding");
    c.init(
        mode,
        key,
        new OAEPParameterSpec(
            "SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT));
    return c;
  }

  private ObjectNode dispatch(String op, String[] p, JsonNode in, String query) throws Exception {
    String name = p.length > 2 ? p[2] : "";
    switch (op) {
      case "POST create" -> {
        if (!"RSA".equals(in.path("kty").asText())) {
          throw new VaultError(400, "BadParameter", "kty " + in.path("kty"));
        }
        String lower = name.toLowerCase(java.util.Locale.ROOT);
        Key existing = keys.get(lower);
        if (existing != null && existing.deleted != 0) {
          throw new VaultError(
              409, "Conflict", "Key " + name + " is currently in a deleted but recoverable state.");
        }
        Key k = existing;
        if (k == null) {
          Map<String, String> tags = new java.util.TreeMap<>();
          in.path("tags")
              .fields()
              .forEachRemaining(e -> tags.put(e.getKey(), e.getValue().asText()));
          k = new Key(name, tags);
          Key raced = keys.putIfAbsent(lower, k);
          k = raced == null ? k : raced;
        }
        Version v = newVersion();
        k.versions.add(v);
        return bundle(k, v);
      }
      case "GET key" -> {
        Key k = key(name);
        return bundle(k, version(k, p.length > 3 ? p[3] : null));
      }
      case "GET versions" -> {
        Key k = key(name);
        int start = 0;
        if (query != null && query.contains("$skiptoken=")) {
          start =
              Integer.parseInt(query.substring(query.indexOf("$skiptoken=") + 11).split("&")[0]);
        }
        int end = Math.min(k.versions.size(), start + 2); // small pages, so paging is exercised
        ObjectNode out = json.createObjectNode();
        ArrayNode list = out.putArray("value");
        for (int i = start; i < end; i++) {
          Version v = k.versions.get(i);
          ObjectNode item = list.addObject();
          item.put("kid", kid(k, v));
          item.set("attributes", attributes(v));
        }
        out.put(
            "nextLink",
            end < k.versions.size()
                ? url() + "/keys/" + k.name + "/versions?api-version=7.5&$skiptoken=" + end
                : null);
        return out;
      }
      case "POST rotate" -> {
        Key k = key(name);
        Version v = newVersion();
        k.versions.add(v);
        return bundle(k, v);
      }
      case "POST wrapkey", "POST unwrapkey" -> {
        Key k = key(name);
        Version v = version(k, p[3]);
        if (!"RSA-OAEP-256".equals(in.path("alg").asText())) {
          throw new VaultError(400, "BadParameter", "alg " + in.path("alg"));
        }
        byte[] value = Base64.getUrlDecoder().decode(in.path("value").asText());
        byte[] result;
        try {
          result =
              op.equals("POST wrapkey")
                  ? oaep(Cipher.ENCRYPT_MODE, v.pair.getPublic()).doFinal(value)
                  : oaep(Cipher.DECRYPT_MODE, v.pair.getPrivate()).doFinal(value);
        } catch (java.security.GeneralSecurityException e) {
          throw new VaultError(
              400, "BadParameter", "The parameter is incorrect: " + e.getClass().getSimpleName());
        }
        ObjectNode out = json.createObjectNode();
        out.put("kid", kid(k, v))
            .put("value", Base64.getUrlEncoder().withoutPadding().encodeToString(result));
        return out;
      }
      case "DELETE key" -> {
        Key k = key(name);
        k.deleted = clock.incrementAndGet();
        return deletedBundle(k);
      }
      case "GET deletedkey" -> {
        Key k = keys.get(name.toLowerCase(java.util.Locale.ROOT));
        if (k == null || k.deleted == 0) {
          throw new VaultError(404, "KeyNotFound", "Deleted Key not found: " + name);
        }
        return deletedBundle(k);
      }
      default -> throw new VaultError(400, "BadParameter", "unsupported operation " + op);
    }
  }

  private void error(HttpExchange x, VaultError e) {
    try {
      ObjectNode body = json.createObjectNode();
      body.putObject("error").put("code", e.code).put("message", e.getMessage());
      send(x, e.status, json.writeValueAsBytes(body));
    } catch (IOException ignored) {
      // The client went away.
    }
  }

  private static void send(HttpExchange x, int status, byte[] body) throws IOException {
    x.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
    x.getResponseHeaders().add("x-ms-request-id", java.util.UUID.randomUUID().toString());
    x.sendResponseHeaders(status, body.length);
    x.getResponseBody().write(body);
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
