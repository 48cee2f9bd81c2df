package dev.loam.flight.internal;

import dev.loam.api.Log;
import dev.loam.api.Principal;
import dev.loam.http.Authentication;
import dev.loam.http.internal.BearerToken;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.CompletionException;

/**
 * API-key access to the Flight listener (docs/security.md): {@link #interceptor} authenticates each
 * call's {@code authorization: Bearer <id>.<secret>} metadata as the HTTP API does and makes its
 * principal visible to the call; {@link #check} then requires a key whose scope covers the stream's
 * namespace (any role: Flight only reads).
 */
public final class FlightAccess {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<Principal> PRINCIPAL = Context.key("loam-principal");

  /**
   * @throws io.grpc.StatusRuntimeException PERMISSION_DENIED if the call's key may not touch {@code
   *     ns}
   */
  void check(String ns) {
    if (!allows(ns)) {
      Principal p = PRINCIPAL.get();
      throw Status.PERMISSION_DENIED
          .withDescription(
              "the API key may not touch namespace="
                  + ns
                  + " (its scope is namespace="
                  + p.namespace()
                  + ") key="
                  + p.keyId())
          .asRuntimeException();
    }
  }

  /** Whether the call may read {@code ns} (always, when authentication does not apply). */
  boolean allows(String ns) {
    Principal p = PRINCIPAL.get();
    return p == null || p.coversNamespace(ns);
  }

  /** Authenticates each call's bearer key; UNAUTHENTICATED naming the problem otherwise. */
  public static ServerInterceptor interceptor(Log log, Authentication mode) {
    return new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        boolean applies =
            switch (mode) {
              case NONE -> false;
              case REQUIRED -> true;
              case WHEN_KEYS_EXIST -> log.hasActiveApiKeys();
            };
        if (!applies) {
          return next.startCall(call, headers);
        }
        Principal p;
        try {
          BearerToken token = BearerToken.parse(headers.get(AUTHORIZATION));
          p = log.authenticate(token.keyId(), token.secret()).join();
        } catch (RuntimeException e) {
          Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
          call.close(
              Status.UNAUTHENTICATED.withDescription(String.valueOf(c.getMessage())),
              new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return Contexts.interceptCall(
            Context.current().withValue(PRINCIPAL, p), call, headers, next);
      }
    };
  }
}
