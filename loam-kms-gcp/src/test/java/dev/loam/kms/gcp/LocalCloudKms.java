package dev.loam.kms.gcp;

import com.google.cloud.kms.v1.CreateCryptoKeyRequest;
import com.google.cloud.kms.v1.CreateCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.CryptoKey;
import com.google.cloud.kms.v1.CryptoKeyVersion;
import com.google.cloud.kms.v1.CryptoKeyVersion.CryptoKeyVersionState;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.DecryptResponse;
import com.google.cloud.kms.v1.DestroyCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.EncryptResponse;
import com.google.cloud.kms.v1.GetCryptoKeyRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsResponse;
import com.google.cloud.kms.v1.UpdateCryptoKeyPrimaryVersionRequest;
import com.google.protobuf.ByteString;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Message;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local gRPC server for the part of the Cloud KMS API ({@code google.cloud.kms.v1.
 * KeyManagementService}) that {@link GcpKeyManagementService} uses, for tests: Google ships no KMS
 * emulator. It serves the real service name, method names and protobuf messages (the request and
 * response classes of google-cloud-kms), over gRPC's in-process transport, and checks what a local
 * server can check honestly on every call: the OAuth bearer token the client's credentials attach
 * ({@code authorization}), the routing header the client derives from the request ({@code
 * x-goog-request-params}, which must name the request's resource), the client identification header
 * ({@code x-goog-api-client}), resource names of Cloud KMS's shape, and the CRC32C checksums of
 * Encrypt and Decrypt as Cloud KMS verifies them. It answers with Cloud KMS's documented status
 * codes (NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT for a ciphertext that does not decrypt,
 * FAILED_PRECONDITION for a version that is not enabled). It does not show Google's own semantics
 * (IAM, real destruction, key material) nor the HTTP/2 wire and TLS: see docs/reference/kms.md.
 */
final class LocalCloudKms implements AutoCloseable {
  static final String TOKEN = "loam-test-token";
  static final String SERVICE = "google.cloud.kms.v1.KeyManagementService";
  static final String KEY_RING = "projects/loam-test/locations/global/keyRings/loam";

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> REQUEST_PARAMS =
      Metadata.Key.of("x-goog-request-params", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> API_CLIENT =
      Metadata.Key.of("x-goog-api-client", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<Metadata> HEADERS = Context.key("headers");
  private static final Pattern KEY_ID = Pattern.compile("[a-zA-Z0-9_-]{1,63}");

  private static final class Version {
    final byte[] material;
    volatile CryptoKeyVersionState state = CryptoKeyVersionState.ENABLED;

    Version(byte[] material) {
      this.material = material;
    }
  }

  private static final class Key {
    final String name;
    final List<Version> versions = new CopyOnWriteArrayList<>();
    volatile int primary = 1;

    Key(String name) {
      this.name = name;
    }
  }

  final String name = "loam-cloud-kms-" + UUID.randomUUID();
  private final Server server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Key> keys = new ConcurrentHashMap<>();
  final List<String> operations = new CopyOnWriteArrayList<>();
  final List<String> protocolFailures = new CopyOnWriteArrayList<>();

  /** Answer this many next calls with UNAVAILABLE (then serve normally). */
  final AtomicInteger failNext = new AtomicInteger();

  /** Delay every answer by this many milliseconds. */
  volatile long delayMillis;

  /** Answer Encrypt with a ciphertext checksum that does not match (a response damaged). */
  volatile boolean damageCiphertextChecksum;

  LocalCloudKms() throws IOException {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(SERVICE);
    unary(
        b,
        "CreateCryptoKey",
        CreateCryptoKeyRequest.getDefaultInstance(),
        CryptoKey.getDefaultInstance(),
        r -> "parent=" + r.getParent(),
        this::createCryptoKey);
    unary(
        b,
        "GetCryptoKey",
        GetCryptoKeyRequest.getDefaultInstance(),
        CryptoKey.getDefaultInstance(),
        r -> "name=" + r.getName(),
        r -> describe(key(r.getName())));
    unary(
        b,
        "Encrypt",
        EncryptRequest.getDefaultInstance(),
        EncryptResponse.getDefaultInstance(),
        r -> "name=" + r.getName(),
        this::encrypt);
    unary(
        b,
        "Decrypt",
        DecryptRequest.getDefaultInstance(),
        DecryptResponse.getDefaultInstance(),
        r -> "name=" + r.getName(),
        this::decrypt);
    unary(
        b,
        "CreateCryptoKeyVersion",
        CreateCryptoKeyVersionRequest.getDefaultInstance(),
        CryptoKeyVersion.getDefaultInstance(),
        r -> "parent=" + r.getParent(),
        this::createVersion);
    unary(
        b,
        "UpdateCryptoKeyPrimaryVersion",
        UpdateCryptoKeyPrimaryVersionRequest.getDefaultInstance(),
        CryptoKey.getDefaultInstance(),
        r -> "name=" + r.getName(),
        this::updatePrimary);
    unary(
        b,
        "ListCryptoKeyVersions",
        ListCryptoKeyVersionsRequest.getDefaultInstance(),
        ListCryptoKeyVersionsResponse.getDefaultInstance(),
        r -> "parent=" + r.getParent(),
        this::listVersions);
    unary(
        b,
        "DestroyCryptoKeyVersion",
        DestroyCryptoKeyVersionRequest.getDefaultInstance(),
        CryptoKeyVersion.getDefaultInstance(),
        r -> "name=" + r.getName(),
        this::destroyVersion);
    ServerInterceptor headers =
        new ServerInterceptor() {
          @Override
          public <Q, S> io.grpc.ServerCall.Listener<Q> interceptCall(
              io.grpc.ServerCall<Q, S> call, Metadata md, io.grpc.ServerCallHandler<Q, S> next) {
            return Contexts.interceptCall(Context.current().withValue(HEADERS, md), call, md, next);
          }
        };
    server =
        InProcessServerBuilder.forName(name)
            .executor(executor)
            .addService(ServerInterceptors.intercept(b.build(), headers))
            .build()
            .start();
  }

  @Override
  public void close() {
    server.shutdownNow();
    executor.shutdownNow();
  }

  List<String> operations() {
    return new ArrayList<>(operations);
  }

  /** Thrown by a handler: the status to answer with. */
  private static StatusRuntimeException status(Status.Code code, String message) {
    return Status.fromCode(code).withDescription(message).asRuntimeException();
  }

  private <Q extends Message, S extends Message> void unary(
      ServerServiceDefinition.Builder b,
      String method,
      Q request,
      S response,
      Function<Q, String> routing,
      Function<Q, S> handler) {
    @SuppressWarnings("unchecked")
    MethodDescriptor<Q, S> d =
        MethodDescriptor.<Q, S>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, method))
            .setRequestMarshaller(ProtoUtils.marshaller(request))
            .setResponseMarshaller(ProtoUtils.marshaller(response))
            .build();
    b.addMethod(
        d,
        ServerCalls.asyncUnaryCall(
            (Q req, io.grpc.stub.StreamObserver<S> out) -> {
              try {
                if (delayMillis > 0) {
                  Thread.sleep(delayMillis);
                }
                String problem = checkHeaders(HEADERS.get(), routing.apply(req));
                if (problem != null) {
                  protocolFailures.add(problem);
                  throw status(Status.Code.UNAUTHENTICATED, problem);
                }
                operations.add(method);
                if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                  throw status(Status.Code.UNAVAILABLE, "injected");
                }
                out.onNext(handler.apply(req));
                out.onCompleted();
              } catch (StatusRuntimeException e) {
                out.onError(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.onError(status(Status.Code.CANCELLED, "interrupted"));
              } catch (RuntimeException e) {
                out.onError(status(Status.Code.INTERNAL, String.valueOf(e)));
              }
            }));
  }

  /** Null when the call carries the test token, its client header and its routing header. */
  private static String checkHeaders(Metadata md, String routing) {
    String auth = md.get(AUTHORIZATION);
    if (!("Bearer " + TOKEN).equals(auth)) {
      return "authorization " + (auth == null ? "missing" : "not the test token");
    }
    String client = md.get(API_CLIENT);
    if (client == null || !client.contains("gl-java/") || !client.contains("gapic/")) {
      return "x-goog-api-client " + client;
    }
    String params = md.get(REQUEST_PARAMS);
    if (params == null) {
      return "x-goog-request-params missing, want " + routing;
    }
    String decoded = URLDecoder.decode(params, StandardCharsets.UTF_8);
    if (!decoded.equals(routing)) {
      return "x-goog-request-params " + decoded + " does not name the request's " + routing;
    }
    return null;
  }

  private static long crc32c(ByteString b) {
    CRC32C c = new CRC32C();
    c.update(b.asReadOnlyByteBuffer());
    return c.getValue();
  }

  private static String versionName(Key k, int v) {
    return k.name + "/cryptoKeyVersions/" + v;
  }

  private Key key(String name) {
    String keyName =
        name.contains("/cryptoKeyVersions/") ? name.split("/cryptoKeyVersions/")[0] : name;
    Key k = keys.get(keyName);
    if (k == null) {
      throw status(Status.Code.NOT_FOUND, "CryptoKey " + keyName + " not found.");
    }
    return k;
  }

  private CryptoKeyVersion version(Key k, int v) {
    return CryptoKeyVersion.newBuilder()
        .setName(versionName(k, v))
        .setState(k.versions.get(v - 1).state)
        .setAlgorithm(CryptoKeyVersion.CryptoKeyVersionAlgorithm.GOOGLE_SYMMETRIC_ENCRYPTION)
        .build();
  }

  private CryptoKey describe(Key k) {
    return CryptoKey.newBuilder()
        .setName(k.name)
        .setPurpose(CryptoKey.CryptoKeyPurpose.ENCRYPT_DECRYPT)
        .setPrimary(version(k, k.primary))
        .build();
  }

  private byte[] material() {
    byte[] m = new byte[32];
    random.nextBytes(m);
    return m;
  }

  private CryptoKey createCryptoKey(CreateCryptoKeyRequest r) {
    if (!r.getParent().equals(KEY_RING)) {
      throw status(Status.Code.NOT_FOUND, "KeyRing " + r.getParent() + " not found.");
    }
    if (!KEY_ID.matcher(r.getCryptoKeyId()).matches()) {
      throw status(Status.Code.INVALID_ARGUMENT, "crypto_key_id " + r.getCryptoKeyId());
    }
    if (r.getCryptoKey().getPurpose() != CryptoKey.CryptoKeyPurpose.ENCRYPT_DECRYPT) {
      throw status(Status.Code.INVALID_ARGUMENT, "purpose " + r.getCryptoKey().getPurpose());
    }
    Key k = new Key(r.getParent() + "/cryptoKeys/" + r.getCryptoKeyId());
    k.versions.add(new Version(material()));
    if (keys.putIfAbsent(k.name, k) != null) {
      throw status(Status.Code.ALREADY_EXISTS, "CryptoKey " + k.name + " already exists.");
    }
    return describe(k);
  }

  private static byte[] aad(Key k, int v, ByteString requestAad) {
    byte[] head = (k.name + "|" + v + "|").getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[head.length + requestAad.size()];
    System.arraycopy(head, 0, out, 0, head.length);
    requestAad.copyTo(out, head.length);
    return out;
  }

  private static void checkCrc(ByteString data, boolean has, Int64Value crc, String field) {
    if (has && crc.getValue() != crc32c(data)) {
      throw status(
          Status.Code.INVALID_ARGUMENT, "The checksum in field " + field + " did not match");
    }
  }

  private EncryptResponse encrypt(EncryptRequest r) {
    Key k = key(r.getName());
    checkCrc(r.getPlaintext(), r.hasPlaintextCrc32C(), r.getPlaintextCrc32C(), "plaintext_crc32c");
    checkCrc(
        r.getAdditionalAuthenticatedData(),
        r.hasAdditionalAuthenticatedDataCrc32C(),
        r.getAdditionalAuthenticatedDataCrc32C(),
        "additional_authenticated_data_crc32c");
    int v = k.primary;
    Version ver = k.versions.get(v - 1);
    if (ver.state != CryptoKeyVersionState.ENABLED) {
      throw status(Status.Code.FAILED_PRECONDITION, versionName(k, v) + " is not enabled.");
    }
    byte[] nonce = new byte[12];
    random.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.ENCRYPT_MODE,
          new SecretKeySpec(ver.material, "AES"),
          new GCMParameterSpec(128, nonce));
      c.updateAAD(aad(k, v, r.getAdditionalAuthenticatedData()));
      byte[] ct = c.doFinal(r.getPlaintext().toByteArray());
      ByteString blob =
          ByteString.copyFrom(
              ByteBuffer.allocate(4 + 12 + ct.length).putInt(v).put(nonce).put(ct).flip());
      long crc = crc32c(blob) ^ (damageCiphertextChecksum ? 1 : 0);
      return EncryptResponse.newBuilder()
          .setName(versionName(k, v))
          .setCiphertext(blob)
          .setCiphertextCrc32C(Int64Value.of(crc))
          .setVerifiedPlaintextCrc32C(r.hasPlaintextCrc32C())
          .setVerifiedAdditionalAuthenticatedDataCrc32C(r.hasAdditionalAuthenticatedDataCrc32C())
          .build();
    } catch (GeneralSecurityException e) {
      throw status(Status.Code.INTERNAL, String.valueOf(e));
    }
  }

  private DecryptResponse decrypt(DecryptRequest r) {
    Key k = key(r.getName());
    checkCrc(
        r.getCiphertext(), r.hasCiphertextCrc32C(), r.getCiphertextCrc32C(), "ciphertext_crc32c");
    checkCrc(
        r.getAdditionalAuthenticatedData(),
        r.hasAdditionalAuthenticatedDataCrc32C(),
        r.getAdditionalAuthenticatedDataCrc32C(),
        "additional_authenticated_data_crc32c");
    byte[] blob = r.getCiphertext().toByteArray();
    String failed = "Decryption failed: verify that 'name' refers to the correct CryptoKey.";
    if (blob.length < 4 + 12 + 16) {
      throw status(Status.Code.INVALID_ARGUMENT, failed);
    }
    int v = ByteBuffer.wrap(blob).getInt();
    if (v < 1 || v > k.versions.size()) {
      throw status(Status.Code.INVALID_ARGUMENT, failed);
    }
    Version ver = k.versions.get(v - 1);
    if (ver.state != CryptoKeyVersionState.ENABLED) {
      throw status(Status.Code.FAILED_PRECONDITION, versionName(k, v) + " is not enabled.");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.DECRYPT_MODE,
          new SecretKeySpec(ver.material, "AES"),
          new GCMParameterSpec(128, blob, 4, 12));
      c.updateAAD(aad(k, v, r.getAdditionalAuthenticatedData()));
      ByteString plain = ByteString.copyFrom(c.doFinal(blob, 16, blob.length - 16));
      return DecryptResponse.newBuilder()
          .setPlaintext(plain)
          .setPlaintextCrc32C(Int64Value.of(crc32c(plain)))
          .build();
    } catch (AEADBadTagException e) {
      throw status(Status.Code.INVALID_ARGUMENT, failed);
    } catch (GeneralSecurityException e) {
      throw status(Status.Code.INTERNAL, String.valueOf(e));
    }
  }

  private CryptoKeyVersion createVersion(CreateCryptoKeyVersionRequest r) {
    Key k = key(r.getParent());
    synchronized (k) {
      k.versions.add(new Version(material()));
      return version(k, k.versions.size());
    }
  }

  private CryptoKey updatePrimary(UpdateCryptoKeyPrimaryVersionRequest r) {
    Key k = key(r.getName());
    int v;
    try {
      v = Integer.parseInt(r.getCryptoKeyVersionId());
    } catch (NumberFormatException e) {
      throw status(
          Status.Code.INVALID_ARGUMENT, "crypto_key_version_id " + r.getCryptoKeyVersionId());
    }
    if (v < 1 || v > k.versions.size()) {
      throw status(Status.Code.NOT_FOUND, versionName(k, v) + " not found.");
    }
    if (k.versions.get(v - 1).state != CryptoKeyVersionState.ENABLED) {
      throw status(Status.Code.FAILED_PRECONDITION, versionName(k, v) + " is not enabled.");
    }
    k.primary = v;
    return describe(k);
  }

  private ListCryptoKeyVersionsResponse listVersions(ListCryptoKeyVersionsRequest r) {
    Key k = key(r.getParent());
    int start = r.getPageToken().isEmpty() ? 0 : Integer.parseInt(r.getPageToken());
    // Small pages, so that paging is exercised.
    int end = Math.min(k.versions.size(), start + Math.min(2, Math.max(1, r.getPageSize())));
    ListCryptoKeyVersionsResponse.Builder out =
        ListCryptoKeyVersionsResponse.newBuilder().setTotalSize(k.versions.size());
    for (int i = start; i < end; i++) {
      out.addCryptoKeyVersions(version(k, i + 1));
    }
    if (end < k.versions.size()) {
      out.setNextPageToken(Integer.toString(end));
    }
    return out.build();
  }

  private CryptoKeyVersion destroyVersion(DestroyCryptoKeyVersionRequest r) {
    Key k = key(r.getName());
    int v = Integer.parseInt(r.getName().substring(r.getName().lastIndexOf('/') + 1));
    if (v < 1 || v > k.versions.size()) {
      throw status(Status.Code.NOT_FOUND, r.getName() + " not found.");
    }
    Version ver = k.versions.get(v - 1);
    if (ver.state != CryptoKeyVersionState.ENABLED && ver.state != CryptoKeyVersionState.DISABLED) {
      throw status(
          Status.Code.FAILED_PRECONDITION, r.getName() + " is already scheduled for destruction.");
    }
    ver.state = CryptoKeyVersionState.DESTROY_SCHEDULED;
    return version(k, v);
  }
}
