package dev.loam.otlp.internal;

import dev.loam.api.AuthenticationException;
import dev.loam.api.Log;
import dev.loam.api.Principal;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.IngestQuota;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.BearerToken;
import dev.loam.http.internal.TokenBucket;
import dev.loam.otlp.OtlpSettings;
import dev.loam.otlp.OtlpStats;
import dev.loam.otlp.internal.OtlpRefusal.Reason;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The transport-independent part of OTLP logs ingest (stream-engine.txt §7.1): authenticates the
 * request, resolves its namespace and stream, maps its LogRecords, creates the stream on first use,
 * charges the ingest quota and appends, completing with the {@code ExportLogsServiceResponse} once
 * every stored record is committed. A failure is an {@link OtlpRefusal}, delivered only through the
 * future; nothing is appended for a refused request. Thread-safe; one per receiver, shared by both
 * listeners.
 */
public final class OtlpIngest {
  /** Header (HTTP) and metadata key (gRPC) naming the namespace. */
  public static final String NAMESPACE_HEADER = "loam-namespace";

  /** Header (HTTP) and metadata key (gRPC) naming the stream. */
  public static final String STREAM_HEADER = "loam-stream";

  /** Streams known to exist are remembered; past this many the memory is cleared. */
  private static final int MAX_KNOWN_STREAMS = 10_000;

  /** Above this many quota buckets, full ones (equivalent to new ones) are dropped. */
  private static final int SWEEP_BUCKETS_ABOVE = 4096;

  private final Log log;
  private final OtlpSettings settings;
  private final LongSupplier nanoClock;
  private final Map<String, Boolean> knownStreams = new ConcurrentHashMap<>();
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
  private final LongAdder exports = new LongAdder();
  private final LongAdder records = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final Map<Reason, LongAdder> refusals = new EnumMap<>(Reason.class);

  /** Where a request goes. */
  record Target(String namespace, String stream) {}

  public OtlpIngest(Log log, OtlpSettings settings, LongSupplier nanoClock) {
    this.log = log;
    this.settings = settings;
    this.nanoClock = nanoClock;
    for (Reason r : Reason.values()) {
      refusals.put(r, new LongAdder());
    }
  }

  /** The counters so far. */
  public OtlpStats stats() {
    Map<String, Long> refused = new LinkedHashMap<>();
    refusals.forEach((r, n) -> refused.put(r.name(), n.sum()));
    return new OtlpStats(exports.sum(), records.sum(), rejected.sum(), refused);
  }

  public OtlpSettings settings() {
    return settings;
  }

  /**
   * Ingests one export request. {@code authorization}, {@code namespace} and {@code stream} are the
   * raw header values (null when absent); {@code body} decodes the request and runs on {@code
   * executor} once the key is verified, so an unauthenticated body is never parsed.
   */
  public CompletableFuture<ExportLogsServiceResponse> export(
      String authorization,
      String namespace,
      String stream,
      Supplier<ExportLogsServiceRequest> body,
      Executor executor) {
    CompletableFuture<Principal> principal;
    try {
      principal = authenticate(authorization);
    } catch (OtlpRefusal r) {
      refusals.get(r.reason()).increment();
      return CompletableFuture.failedFuture(r);
    }
    return principal
        .thenComposeAsync(p -> ingest(p, namespace, stream, body), executor)
        .handle(
            (resp, err) -> {
              if (err != null) {
                OtlpRefusal r = refusal(err);
                refusals.get(r.reason()).increment();
                throw r;
              }
              exports.increment();
              if (resp.hasPartialSuccess()) {
                rejected.add(resp.getPartialSuccess().getRejectedLogRecords());
              }
              return resp;
            });
  }

  private CompletableFuture<Principal> authenticate(String authorization) {
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
      token = BearerToken.parse(authorization);
    } catch (ApiException e) {
      throw new OtlpRefusal(Reason.UNAUTHENTICATED, e.getMessage());
    }
    return log.authenticate(token.keyId(), token.secret());
  }

  private CompletableFuture<ExportLogsServiceResponse> ingest(
      Principal p, String nsHeader, String streamHeader, Supplier<ExportLogsServiceRequest> body) {
    Target t = target(p, nsHeader, streamHeader);
    ExportLogsServiceRequest req = body.get();
    long count = LogMapper.countRecords(req);
    if (count > settings.maxRecordsPerRequest()) {
      throw OtlpRefusal.malformed(
          "too many log records in one request logRecords="
              + count
              + " maxRecordsPerRequest="
              + settings.maxRecordsPerRequest());
    }
    LogMapper.Mapped m =
        LogMapper.map(req, settings.keyAttributeOf(t.stream()), settings.maxRecordBytes());
    ExportLogsServiceResponse response = response(m);
    if (m.records().isEmpty()) {
      return CompletableFuture.completedFuture(response);
    }
    Runnable admission = () -> charge(t.namespace(), m.bytes());
    return ensureStream(t)
        .thenCompose(v -> log.append(t.namespace(), t.stream(), m.records(), null, admission))
        .handle(
            (r, err) -> {
              if (err != null) {
                Throwable c = unwrap(err);
                if (c instanceof LoamException le && le.kind() == Kind.NOT_FOUND) {
                  // Deleted since it was remembered: the next request creates it again.
                  knownStreams.remove(key(t));
                }
                throw refusal(c);
              }
              records.add(m.records().size());
              return response;
            });
  }

  /** The namespace and stream of a request, checked against the key. */
  private Target target(Principal p, String nsHeader, String streamHeader) {
    String ns = blankToNull(nsHeader);
    if (ns == null) {
      ns = p != null && !p.clusterWide() ? p.namespace() : settings.defaultNamespace();
    }
    String stream = blankToNull(streamHeader);
    if (stream == null) {
      stream = settings.defaultStream();
    }
    if (p != null) {
      if (!p.coversNamespace(ns)) {
        throw new OtlpRefusal(
            Reason.FORBIDDEN,
            "the API key may not touch namespace="
                + OtlpBodies.printable(ns)
                + " (its scope is namespace="
                + p.namespace()
                + ") key="
                + p.keyId());
      }
      if (!p.roles().contains(Role.PRODUCE)) {
        throw new OtlpRefusal(
            Reason.FORBIDDEN,
            "the API key needs role=produce namespace="
                + OtlpBodies.printable(ns)
                + " key="
                + p.keyId());
      }
    }
    return new Target(ns, stream);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  private CompletableFuture<Void> ensureStream(Target t) {
    String k = key(t);
    if (knownStreams.containsKey(k)) {
      return CompletableFuture.completedFuture(null);
    }
    return log.describeStream(t.namespace(), t.stream())
        .<Void>thenApply(d -> null)
        .exceptionallyCompose(
            err -> {
              Throwable c = unwrap(err);
              if (!(c instanceof LoamException le) || le.kind() != Kind.NOT_FOUND) {
                return CompletableFuture.failedFuture(c);
              }
              if (!settings.autoCreateStreams()) {
                return CompletableFuture.failedFuture(
                    new OtlpRefusal(
                        Reason.NOT_FOUND,
                        "no such stream (auto-creation is off) namespace="
                            + t.namespace()
                            + " stream="
                            + OtlpBodies.printable(t.stream())));
              }
              return log.createStream(
                      t.namespace(), t.stream(), StreamSpec.standard(settings.defaultPartitions()))
                  .<Void>thenApply(d -> null)
                  .exceptionallyCompose(
                      e2 -> {
                        Throwable c2 = unwrap(e2);
                        if (c2 instanceof LoamException le2 && le2.kind() == Kind.CONFLICT) {
                          return CompletableFuture.completedFuture(null); // created meanwhile
                        }
                        return CompletableFuture.failedFuture(c2);
                      });
            })
        .thenRun(
            () -> {
              if (knownStreams.size() >= MAX_KNOWN_STREAMS) {
                knownStreams.clear();
              }
              knownStreams.put(k, Boolean.TRUE);
            });
  }

  private static String key(Target t) {
    return t.namespace() + '\0' + t.stream();
  }

  /** Charges the namespace's quota, or refuses 429 with the seconds to wait. */
  private void charge(String namespace, long bytes) {
    IngestQuota q = settings.quotaOf(namespace);
    if (q.isUnlimited()) {
      return;
    }
    TokenBucket b = buckets.get(namespace);
    if (b == null) {
      if (buckets.size() >= SWEEP_BUCKETS_ABOVE) {
        buckets.values().removeIf(TokenBucket::isFull);
      }
      b =
          buckets.computeIfAbsent(
              namespace, n -> new TokenBucket(q.bytesPerSecond(), q.burstBytes(), nanoClock));
    }
    long waitNanos = b.tryAcquire(bytes);
    if (waitNanos == 0) {
      return;
    }
    long seconds = Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
    throw new OtlpRefusal(
        Reason.QUOTA_EXCEEDED,
        "ingest quota exceeded (per node) namespace="
            + namespace
            + " limitBytesPerSec="
            + q.bytesPerSecond()
            + " burstBytes="
            + q.burstBytes()
            + " requestBytes="
            + bytes
            + " retryAfterSeconds="
            + seconds,
        seconds);
  }

  private static ExportLogsServiceResponse response(LogMapper.Mapped m) {
    if (m.rejected() == 0) {
      return ExportLogsServiceResponse.getDefaultInstance();
    }
    return ExportLogsServiceResponse.newBuilder()
        .setPartialSuccess(
            ExportLogsPartialSuccess.newBuilder()
                .setRejectedLogRecords(m.rejected())
                .setErrorMessage(m.errorMessage()))
        .build();
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The refusal a failure is answered with. */
  static OtlpRefusal refusal(Throwable err) {
    Throwable c = unwrap(err);
    if (c instanceof OtlpRefusal r) {
      return r;
    }
    if (c instanceof AuthenticationException ae) {
      return new OtlpRefusal(Reason.UNAUTHENTICATED, ae.getMessage());
    }
    if (c instanceof LoamException le) {
      return switch (le.kind()) {
        case INVALID -> new OtlpRefusal(Reason.MALFORMED, le.getMessage());
        case NOT_FOUND -> new OtlpRefusal(Reason.NOT_FOUND, le.getMessage());
        case UNAVAILABLE, OUTCOME_UNKNOWN, FENCED, CONFLICT ->
            new OtlpRefusal(Reason.UNAVAILABLE, le.getMessage());
        default -> new OtlpRefusal(Reason.INTERNAL, le.getMessage());
      };
    }
    return new OtlpRefusal(Reason.INTERNAL, "unexpected failure: " + c);
  }
}
