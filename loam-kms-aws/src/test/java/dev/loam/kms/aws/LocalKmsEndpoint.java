package dev.loam.kms.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local HTTP endpoint speaking the subset of the AWS KMS JSON 1.1 protocol that {@link
 * AwsKeyManagementService} uses, for tests: no faithful KMS emulator is installable on the build
 * machines. It checks what a local endpoint can check honestly: every request is a POST with {@code
 * X-Amz-Target: TrentService.<Operation>}, {@code Content-Type: application/x-amz-json-1.1}, and a
 * valid AWS Signature Version 4 for the test credentials (the signature is recomputed from the
 * received request), and it answers in KMS's documented response and error shapes. It does not
 * prove AWS's own semantics (key policies, grants, real deletion): those are stated in
 * docs/reference/kms.md from AWS's documentation.
 */
final class LocalKmsEndpoint implements AutoCloseable {
  static final String ACCESS_KEY = "AKIDLOAMTEST";
  static final String SECRET_KEY = "loam-test-secret";
  static final String REGION = "us-east-1";
  static final String ACCOUNT = "111122223333";

  private static final Pattern AUTH =
      Pattern.compile(
          "AWS4-HMAC-SHA256 Credential=([^/]+)/(\\d{8})/([^/]+)/kms/aws4_request,"
              + " ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})");

  private static final class Key {
    final String id = UUID.randomUUID().toString();
    final List<byte[]> versions = new CopyOnWriteArrayList<>();
    volatile String state = "Enabled";
  }

  private final HttpServer server;
  private final ObjectMapper json = new ObjectMapper();
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Key> keys = new ConcurrentHashMap<>();
  private final Map<String, String> aliases = new ConcurrentHashMap<>();
  final List<String> operations = new CopyOnWriteArrayList<>();
  final List<String> signatureFailures = new CopyOnWriteArrayList<>();

  /** Answer this many next requests with 503 ServiceUnavailable (then serve normally). */
  final AtomicInteger failNext = new AtomicInteger();

  /** Delay every response by this many milliseconds. */
  volatile long delayMillis;

  LocalKmsEndpoint() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      byte[] body = x.getRequestBody().readAllBytes();
      if (delayMillis > 0) {
        Thread.sleep(delayMillis);
      }
      String target = x.getRequestHeaders().getFirst("X-Amz-Target");
      String problem = checkRequest(x, body, target);
      if (problem != null) {
        signatureFailures.add(problem);
        error(x, 400, "InvalidSignatureException", problem);
        return;
      }
      String op = target.substring("TrentService.".length());
      operations.add(op);
      if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        error(x, 503, "ServiceUnavailableException", "injected");
        return;
      }
      JsonNode in = json.readTree(body);
      try {
        ObjectNode out = dispatch(op, in);
        send(x, 200, json.writeValueAsBytes(out));
      } catch (KmsError e) {
        error(x, 400, e.type, e.getMessage());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      error(x, 500, "KMSInternalException", String.valueOf(e));
    }
  }

  private static final class KmsError extends Exception {
    final String type;

    KmsError(String type, String message) {
      super(message);
      this.type = type;
    }
  }

  private String checkRequest(HttpExchange x, byte[] body, String target) throws Exception {
    if (!"POST".equals(x.getRequestMethod())) {
      return "method " + x.getRequestMethod();
    }
    if (target == null || !target.startsWith("TrentService.")) {
      return "X-Amz-Target " + target;
    }
    String ct = x.getRequestHeaders().getFirst("Content-Type");
    if (!"application/x-amz-json-1.1".equals(ct)) {
      return "Content-Type " + ct;
    }
    String auth = x.getRequestHeaders().getFirst("Authorization");
    Matcher m = auth == null ? null : AUTH.matcher(auth);
    if (m == null || !m.matches()) {
      return "Authorization " + auth;
    }
    if (!m.group(1).equals(ACCESS_KEY) || !m.group(3).equals(REGION)) {
      return "credential scope " + m.group(1) + " " + m.group(3);
    }
    String amzDate = x.getRequestHeaders().getFirst("X-Amz-Date");
    if (amzDate == null || !amzDate.startsWith(m.group(2))) {
      return "X-Amz-Date " + amzDate;
    }
    String[] signed = m.group(4).split(";");
    if (!List.of(signed).contains("host") || !List.of(signed).contains("x-amz-date")) {
      return "SignedHeaders " + m.group(4);
    }
    // Recompute the SigV4 signature from the request as received.
    StringBuilder canonical = new StringBuilder();
    canonical.append("POST\n").append(x.getRequestURI().getRawPath()).append("\n");
    String q = x.getRequestURI().getRawQuery();
    canonical.append(q == null ? "" : q).append("\n");
    for (String h : signed) {
      String v = x.getRequestHeaders().getFirst(h);
      canonical.append(h).append(':').append(v == null ? "" : v.trim()).append('\n');
    }
    canonical.append('\n').append(m.group(4)).append('\n');
    String payloadHash = hex(sha256(body));
    String declared = x.getRequestHeaders().getFirst("x-amz-content-sha256");
    canonical.append(declared != null ? declared : payloadHash);
    if (declared != null && !declared.equals(payloadHash)) {
      return "x-amz-content-sha256 does not match the body";
    }
    String scope = m.group(2) + "/" + REGION + "/kms/aws4_request";
    String toSign =
        "AWS4-HMAC-SHA256\n"
            + amzDate
            + "\n"
            + scope
            + "\n"
            + hex(sha256(canonical.toString().getBytes(StandardCharsets.UTF_8)));
    byte[] k = hmac(("AWS4" + SECRET_KEY).getBytes(StandardCharsets.UTF_8), m.group(2));
    k = hmac(k, REGION);
    k = hmac(k, "kms");
    k = hmac(k, "aws4_request");
    String expected = hex(hmac(k, toSign));
    if (!expected.equals(m.group(5))) {
      return "signature mismatch";
    }
    return null;
  }

  private static byte[] sha256(byte[] b) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(b);
  }

  private static byte[] hmac(byte[] key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private String arn(Key k) {
    return "arn:aws:kms:" + REGION + ":" + ACCOUNT + ":key/" + k.id;
  }

  private Key resolve(String keyId) throws KmsError {
    String id = keyId;
    if (keyId.startsWith("alias/")) {
      id = aliases.get(keyId);
    } else if (keyId.startsWith("arn:aws:kms:")) {
      id = keyId.substring(keyId.indexOf(":key/") + 5);
    }
    Key k = id == null ? null : keys.get(id);
    if (k == null) {
      throw new KmsError("NotFoundException", "Key '" + keyId + "' does not exist");
    }
    return k;
  }

  private static void usable(Key k) throws KmsError {
    if (k.state.equals("Disabled")) {
      throw new KmsError("DisabledException", k.id + " is disabled.");
    }
    if (!k.state.equals("Enabled")) {
      throw new KmsError("KMSInvalidStateException", k.id + " is pending deletion.");
    }
  }

  private ObjectNode metadata(Key k) {
    ObjectNode out = json.createObjectNode();
    ObjectNode m = out.putObject("KeyMetadata");
    m.put("KeyId", k.id).put("Arn", arn(k)).put("KeyState", k.state);
    m.put("KeySpec", "SYMMETRIC_DEFAULT")
        .put("KeyUsage", "ENCRYPT_DECRYPT")
        .put("Enabled", k.state.equals("Enabled"));
    return out;
  }

  private static byte[] aad(Key k, int version, JsonNode context) {
    TreeMap<String, String> sorted = new TreeMap<>();
    if (context != null) {
      context.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
    }
    return (k.id + "|" + version + "|" + sorted).getBytes(StandardCharsets.UTF_8);
  }

  private ObjectNode dispatch(String op, JsonNode in) throws Exception {
    ObjectNode out = json.createObjectNode();
    switch (op) {
      case "CreateKey" -> {
        Key k = new Key();
        k.versions.add(newMaterial());
        keys.put(k.id, k);
        return metadata(k);
      }
      case "CreateAlias" -> {
        String name = in.get("AliasName").asText();
        Key k = resolve(in.get("TargetKeyId").asText());
        if (aliases.putIfAbsent(name, k.id) != null) {
          throw new KmsError(
              "AlreadyExistsException", "An alias with the name " + name + " already exists");
        }
        return out;
      }
      case "DescribeKey" -> {
        return metadata(resolve(in.get("KeyId").asText()));
      }
      case "Encrypt" -> {
        Key k = resolve(in.get("KeyId").asText());
        usable(k);
        int v = k.versions.size();
        byte[] plain = Base64.getDecoder().decode(in.get("Plaintext").asText());
        byte[] nonce = new byte[12];
        random.nextBytes(nonce);
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(
            Cipher.ENCRYPT_MODE,
            new SecretKeySpec(k.versions.get(v - 1), "AES"),
            new GCMParameterSpec(128, nonce));
        c.updateAAD(aad(k, v, in.get("EncryptionContext")));
        byte[] ct = c.doFinal(plain);
        byte[] id = k.id.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer blob = ByteBuffer.allocate(id.length + 4 + 12 + ct.length);
        blob.put(id).putInt(v).put(nonce).put(ct);
        out.put("CiphertextBlob", Base64.getEncoder().encodeToString(blob.array()));
        out.put("KeyId", arn(k));
        return out;
      }
      case "Decrypt" -> {
        byte[] blob = Base64.getDecoder().decode(in.get("CiphertextBlob").asText());
        if (blob.length < 36 + 4 + 12 + 16) {
          throw new KmsError("InvalidCiphertextException", "");
        }
        String id = new String(blob, 0, 36, StandardCharsets.US_ASCII);
        Key k = keys.get(id);
        if (k == null) {
          throw new KmsError("InvalidCiphertextException", "");
        }
        if (in.hasNonNull("KeyId") && !resolve(in.get("KeyId").asText()).id.equals(k.id)) {
          throw new KmsError(
              "IncorrectKeyException",
              "The key ID in the request does not identify a CMK that can perform this operation.");
        }
        usable(k);
        int v = ByteBuffer.wrap(blob, 36, 4).getInt();
        if (v < 1 || v > k.versions.size()) {
          throw new KmsError("InvalidCiphertextException", "");
        }
        try {
          Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
          c.init(
              Cipher.DECRYPT_MODE,
              new SecretKeySpec(k.versions.get(v - 1), "AES"),
              new GCMParameterSpec(128, blob, 40, 12));
          c.updateAAD(aad(k, v, in.get("EncryptionContext")));
          byte[] plain = c.doFinal(blob, 52, blob.length - 52);
          out.put("Plaintext", Base64.getEncoder().encodeToString(plain));
          out.put("KeyId", arn(k));
          return out;
        } catch (javax.crypto.AEADBadTagException e) {
          throw new KmsError("InvalidCiphertextException", "");
        }
      }
      case "RotateKeyOnDemand" -> {
        Key k = resolve(in.get("KeyId").asText());
        usable(k);
        k.versions.add(newMaterial());
        out.put("KeyId", k.id);
        return out;
      }
      case "ListKeyRotations" -> {
        Key k = resolve(in.get("KeyId").asText());
        int start = in.hasNonNull("Marker") ? Integer.parseInt(in.get("Marker").asText()) : 0;
        int total = k.versions.size() - 1;
        int end = Math.min(total, start + 2); // small pages, so paging is exercised
        var list = out.putArray("Rotations");
        for (int i = start; i < end; i++) {
          list.addObject()
              .put("KeyId", k.id)
              .put("RotationType", "ON_DEMAND")
              .put("RotationDate", 1.7e9 + i);
        }
        out.put("Truncated", end < total);
        if (end < total) {
          out.put("NextMarker", String.valueOf(end));
        }
        return out;
      }
      case "DisableKey" -> {
        Key k = resolve(in.get("KeyId").asText());
        if (k.state.equals("PendingDeletion")) {
          throw new KmsError("KMSInvalidStateException", k.id + " is pending deletion.");
        }
        k.state = "Disabled";
        return out;
      }
      case "ScheduleKeyDeletion" -> {
        Key k = resolve(in.get("KeyId").asText());
        int days =
            in.hasNonNull("PendingWindowInDays") ? in.get("PendingWindowInDays").asInt() : 30;
        if (days < 7 || days > 30) {
          throw new KmsError("ValidationException", "PendingWindowInDays out of range");
        }
        k.state = "PendingDeletion";
        out.put("KeyId", arn(k))
            .put("KeyState", "PendingDeletion")
            .put("PendingWindowInDays", days);
        return out;
      }
      default -> throw new KmsError("UnsupportedOperationException", op.toLowerCase(Locale.ROOT));
    }
  }

  private byte[] newMaterial() {
    byte[] m = new byte[32];
    random.nextBytes(m);
    return m;
  }

  private void error(HttpExchange x, int status, String type, String message) {
    try {
      ObjectNode e = json.createObjectNode().put("__type", type).put("message", message);
      x.getResponseHeaders().add("x-amzn-ErrorType", type);
      send(x, status, json.writeValueAsBytes(e));
    } catch (IOException ignored) {
      // The client went away.
    }
  }

  private static void send(HttpExchange x, int status, byte[] body) throws IOException {
    x.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
    x.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
    x.sendResponseHeaders(status, body.length);
    x.getResponseBody().write(body);
  }

  List<String> operations() {
    return new ArrayList<>(operations);
  }
}
