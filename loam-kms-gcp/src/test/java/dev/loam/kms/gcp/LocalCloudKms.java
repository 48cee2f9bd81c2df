package dev.loam.kms.gcp;

import com.google.cloud.kms.v1.CreateCryptoKeyRequest;
import com.google.cloud.kms.v1.CreateCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.CryptoKey;
import com.google.cloud.kms.v1.CryptoKeyVersion;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.DecryptResponse;
import com.google.cloud.kms.v1.DestroyCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.EncryptResponse;
import com.google.cloud.kms.v1.GetCryptoKeyRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsResponse;
import com.google.cloud.kms.v1.UpdateCryptoKeyPrimaryVersionRequest;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

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

  final String name = "loam-cloud-kms-" + UUID.randomUUID();

  /** The keys and their versions, and the handlers of the calls on them. */
  final CloudKmsKeys keys = new CloudKmsKeys();

  private final Server server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  final List<String> operations = new CopyOnWriteArrayList<>();
  final List<String> protocolFailures = new CopyOnWriteArrayList<>();

  /** Answer this many next calls with UNAVAILABLE (then serve normally). */
  final AtomicInteger failNext = new AtomicInteger();

  /** Delay every answer by this many milliseconds. */
  volatile long delayMillis;

  LocalCloudKms() throws IOException {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(SERVICE);
    unary(
        b,
        "CreateCryptoKey",
        CreateCryptoKeyRequest.getDefaultInstance(),
        CryptoKey.getDefaultInstance(),
        r -> "parent=" + r.getParent(),
        keys::createCryptoKey);
    unary(
        b,
        "GetCryptoKey",
        GetCryptoKeyRequest.getDefaultInstance(),
        CryptoKey.getDefaultInstance(),
        r -> "name=" + r.getName(),
        keys::get);
    unary(
        b,
        "Encrypt",
        EncryptRequest.getDefaultInstance(),
        EncryptResponse.getDefaultInstance(),
        r -> "name=" + r.getName(),
        keys::encrypt);
    unary(
        b,
        "Decrypt",
        DecryptRequest.getDefaultInstance(),
        DecryptResponse.getDefaultInstance(),
        r -> "name=" + r.getName(),
        keys::decrypt);
    unary(
        b,
        "CreateCryptoKeyVersion",
        CreateCryptoKeyVersionRequest.getDefaultInstance(),
        CryptoKeyVersion.getDefaultInstance(),
        r -> "parent=" + r.getParent(),
        keys::createVersion);
    unary(
        b,
        "UpdateCryptoKeyPrimaryVersion",
        UpdateCryptoKeyPrimaryVersionRequest.getDefaultInstance(),
        CryptoKey.getDefaultInstance(),
        r -> "name=" + r.getName(),
        keys::updatePrimary);
    unary(
        b,
        "ListCryptoKeyVersions",
        ListCryptoKeyVersionsRequest.getDefaultInstance(),
        ListCryptoKeyVersionsResponse.getDefaultInstance(),
        r -> "parent=" + r.getParent(),
        keys::listVersions);
    unary(
        b,
        "DestroyCryptoKeyVersion",
        DestroyCryptoKeyVersionRequest.getDefaultInstance(),
        CryptoKeyVersion.getDefaultInstance(),
        r -> "name=" + r.getName(),
        keys::destroyVersion);
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
                  throw CloudKmsKeys.status(Status.Code.UNAUTHENTICATED, problem);
                }
                operations.add(method);
                if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                  throw CloudKmsKeys.status(Status.Code.UNAVAILABLE, "injected");
                }
                out.onNext(handler.apply(req));
                out.onCompleted();
              } catch (StatusRuntimeException e) {
                out.onError(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.onError(CloudKmsKeys.status(Status.Code.CANCELLED, "interrupted"));
              } catch (RuntimeException e) {
                out.onError(CloudKmsKeys.status(Status.Code.INTERNAL, String.valueOf(e)));
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
}
