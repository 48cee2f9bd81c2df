package dev.loam.grpc.internal;

import dev.loam.api.Log;
import dev.loam.api.NodeDescription;
import dev.loam.api.NotOwnerException;
import dev.loam.api.Principal;
import dev.loam.api.Role;
import dev.loam.grpc.GrpcSettings;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.BearerToken;
import dev.loam.http.internal.IngestQuotas;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * What every call of one server shares: the node's log, the settings, authentication, the ingest
 * quotas, the executors and the counters; and the helpers that run a call and answer it.
 * Thread-safe.
 */
public final class Calls {
  /** The metadata key carrying the API key. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final Context.Key<String> AUTH = Context.key("loam-grpc-authorization");

  /** What a call needs of the API key (the roles of the matching HTTP route). */
  public enum Need {
    /** Any valid key. */
    AUTHENTICATED,
    /** A cluster-wide key with cluster-admin. */
    CLUSTER_ADMIN,
    /** Any role in the namespace. */
    NAMESPACE,
    /** Produce in the namespace. */
    PRODUCE,
    /** Consume in the namespace. */
    CONSUME,
    /** Namespace admin in the namespace. */
    ADMIN,
    /** Produce in any namespace. */
    PRODUCE_ANYWHERE
  }

  final Log log;
  final GrpcSettings settings;
  final IngestQuotas quotas;
  final Executor executor;
  final ScheduledExecutorService scheduler;
  final LongAdder calls = new LongAdder();
  final LongAdder failed = new LongAdder();
  final AtomicLong openSubscriptions = new AtomicLong();
  final LongAdder subscribeMessages = new LongAdder();
  final LongAdder subscribeFetches = new LongAdder();
  final LongAdder subscribeRecords = new LongAdder();
  final AtomicLong subscribeHeldBytes = new AtomicLong();

  public Calls(
      Log log,
      GrpcSettings settings,
      IngestQuotas quotas,
      Executor executor,
      ScheduledExecutorService scheduler) {
    this.log = log;
    this.settings = settings;
    this.quotas = quotas;
    this.executor = executor;
    this.scheduler = scheduler;
  }

  /** The counters: calls, failed, open subscriptions, messages, records, held bytes. */
  public long[] counters() {
    return new long[] {
      calls.sum(),
      failed.sum(),
      openSubscriptions.get(),
      subscribeMessages.sum(),
      subscribeRecords.sum(),
      subscribeHeldBytes.get(),
      subscribeFetches.sum()
    };
  }

  /** Makes the {@code authorization} metadata visible to the call. */
  public static ServerInterceptor authorizationInterceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        return Contexts.interceptCall(
            Context.current().withValue(AUTH, headers.get(AUTHORIZATION)), call, headers, next);
      }
    };
  }

  /** Who the call is, or null when authentication does not apply. */
  CompletableFuture<Principal> principal() {
    boolean applies =
        switch (settings.authentication()) {
          case NONE -> false;
          case REQUIRED -> true;
          case WHEN_KEYS_EXIST -> log.hasActiveApiKeys();
        };
    if (!applies) {
      return CompletableFuture.completedFuture(null);
    }
    BearerToken token;
    try {
      token = BearerToken.parse(AUTH.get());
    } catch (ApiException e) {
      return CompletableFuture.failedFuture(GrpcRefusal.unauthenticated(e.getMessage()));
    }
    return log.authenticate(token.keyId(), token.secret());
  }

  /**
   * The namespace of a request: as given, or the key's scope when empty. INVALID when neither names
   * one.
   */
  static String namespace(String requested, Principal p) {
    if (!requested.isEmpty()) {
      return requested;
    }
    if (p != null && !p.clusterWide()) {
      return p.namespace();
    }
    throw GrpcErrors.invalid(
        "namespace is required (only a namespace-scoped API key implies one) field=namespace");
  }

  /**
   * Refuses with PERMISSION_DENIED unless {@code p} may do what {@code need} says in {@code ns}.
   */
  static void check(Need need, String ns, Principal p) {
    if (p == null) {
      return;
    }
    switch (need) {
      case AUTHENTICATED -> {}
      case CLUSTER_ADMIN -> {
        if (!p.clusterAdmin()) {
          throw GrpcRefusal.forbidden(
              "the API key needs a cluster-wide key with role=cluster-admin key=" + p.keyId());
        }
      }
      case PRODUCE_ANYWHERE -> {
        if (!p.roles().contains(Role.PRODUCE)) {
          throw GrpcRefusal.forbidden("the API key needs role=produce key=" + p.keyId());
        }
      }
      case NAMESPACE, PRODUCE, CONSUME, ADMIN -> {
        if (!p.coversNamespace(ns)) {
          throw GrpcRefusal.forbidden(
              "the API key may not touch namespace="
                  + ns
                  + " (its scope is namespace="
                  + p.namespace()
                  + ") key="
                  + p.keyId());
        }
        Role role =
            switch (need) {
              case PRODUCE -> Role.PRODUCE;
              case CONSUME -> Role.CONSUME;
              case ADMIN -> Role.ADMIN;
              default -> null;
            };
        if (role != null && !p.roles().contains(role)) {
          throw GrpcRefusal.forbidden(
              "the API key needs role=" + role.label() + " namespace=" + ns + " key=" + p.keyId());
        }
      }
    }
  }

  /**
   * A request's target after authentication: the principal, the namespace resolved and the call's
   * deadline (captured on the call's thread: the gRPC context does not follow futures).
   */
  record Caller(Principal principal, String namespace, Deadline deadline) {
    /**
     * The longest wait the deadline allows for a wait of {@code wantedMillis}: shortly before the
     * deadline (so the call answers rather than expires), at least 0.
     */
    long boundedWait(long wantedMillis) {
      if (deadline == null) {
        return wantedMillis;
      }
      long left = deadline.timeRemaining(TimeUnit.MILLISECONDS);
      return Math.max(0, Math.min(wantedMillis, left - Math.min(250, left / 10)));
    }

    /** Refuses DEADLINE_EXCEEDED when the deadline has already passed. */
    void requireTimeLeft() {
      if (deadline != null && deadline.isExpired()) {
        throw new GrpcRefusal(
            Status.Code.DEADLINE_EXCEEDED,
            dev.loam.grpc.v1.ErrorReason.UNAVAILABLE,
            "the call's deadline passed before it was served; nothing was appended");
      }
    }
  }

  /**
   * Authenticates, resolves the namespace ({@code requestedNs} null: the call names none), checks
   * {@code need} and runs {@code body}; answers {@code out} with its result or the mapped error.
   */
  <T> void unary(
      StreamObserver<T> out,
      Need need,
      String requestedNs,
      Function<String, Subject> subject,
      Function<Caller, CompletableFuture<T>> body) {
    calls.increment();
    Deadline deadline = Context.current().getDeadline();
    Subject[] sub = {Subject.NONE};
    CompletableFuture<T> result;
    try {
      result =
          principal()
              .thenCompose(
                  p -> {
                    String ns = requestedNs == null ? "" : namespace(requestedNs, p);
                    sub[0] = subject.apply(ns);
                    check(need, ns, p);
                    return body.apply(new Caller(p, ns, deadline));
                  });
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    result.whenComplete(
        (v, err) -> {
          if (err == null) {
            out.onNext(v);
            out.onCompleted();
          } else {
            fail(out, err, sub[0]);
          }
        });
  }

  /**
   * Answers {@code out} with the status of {@code err}, naming the owner's gRPC endpoint if any.
   */
  void fail(StreamObserver<?> out, Throwable err, Subject subject) {
    failed.increment();
    Throwable t = GrpcErrors.unwrap(err);
    if (t instanceof NotOwnerException n) {
      ownerGrpcAddress(n.ownerNodeId())
          .whenComplete(
              (addr, e) -> out.onError(GrpcErrors.toStatus(t, subject, addr == null ? "" : addr)));
      return;
    }
    out.onError(GrpcErrors.toStatus(t, subject, ""));
  }

  /** The {@code grpc} endpoint a node advertised, or empty. */
  CompletableFuture<String> ownerGrpcAddress(String nodeId) {
    return log.listNodes(Optional.empty())
        .thenApply(
            nodes -> {
              for (NodeDescription n : nodes) {
                if (n.nodeId().equals(nodeId)) {
                  return n.endpoints().getOrDefault(GrpcSettings.ENDPOINT, "");
                }
              }
              return "";
            })
        .exceptionally(e -> "");
  }
}
