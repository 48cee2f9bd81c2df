package dev.loam.grpc.internal;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.loam.api.AuthenticationException;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.grpc.v1.ErrorReason;
import dev.loam.http.internal.ApiException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns any failure into a gRPC status with a {@code google.rpc.Status} whose details hold an
 * {@code ErrorInfo} (domain {@value #DOMAIN}, the reason, what failed) and, when a retry later
 * helps, a {@code RetryInfo} (docs/reference/grpc.md "Errors"). Unexpected failures are logged here
 * and answered {@code INTERNAL} without their stack trace.
 */
public final class GrpcErrors {
  /** The ErrorInfo domain of every Loam error. */
  public static final String DOMAIN = "loam.dev";

  private static final Logger LOG = LoggerFactory.getLogger(GrpcErrors.class);

  private GrpcErrors() {}

  /** What the call was about, named in the ErrorInfo metadata. */
  public record Subject(String namespace, String stream, int partition, boolean create) {
    /** A call about no particular stream. */
    public static final Subject NONE = new Subject("", "", -1, false);

    /** A call about one stream (partition -1: none in particular). */
    public static Subject of(String namespace, String stream, int partition) {
      return new Subject(namespace, stream, partition, false);
    }

    /** A create call, whose CONFLICT is ALREADY_EXISTS. */
    public Subject creating() {
      return new Subject(namespace, stream, partition, true);
    }
  }

  /** Strips the wrappers a future adds. */
  public static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The reason string of a reason: its lower-case name. */
  public static String reason(ErrorReason r) {
    return r.name().toLowerCase(Locale.ROOT);
  }

  /**
   * The status of a failure. {@code ownerGrpcAddress} is the owner's gRPC endpoint for a {@link
   * NotOwnerException} (empty when unknown), ignored otherwise.
   */
  public static StatusRuntimeException toStatus(
      Throwable failure, Subject subject, String ownerGrpcAddress) {
    Throwable t = unwrap(failure);
    if (t instanceof StatusRuntimeException s) {
      return s;
    }
    Map<String, String> meta = new LinkedHashMap<>();
    if (!subject.namespace().isEmpty()) {
      meta.put("namespace", subject.namespace());
    }
    if (!subject.stream().isEmpty()) {
      meta.put("stream", subject.stream());
    }
    if (subject.partition() >= 0) {
      meta.put("partition", Integer.toString(subject.partition()));
    }
    long retrySeconds = 0;
    Status.Code code;
    ErrorReason reason;
    String message = t.getMessage() == null ? "" : t.getMessage();
    if (t instanceof GrpcRefusal r) {
      code = r.code;
      reason = r.reason;
    } else if (t instanceof OffsetOutOfRangeException o) {
      code = Status.Code.OUT_OF_RANGE;
      reason = ErrorReason.OFFSET_OUT_OF_RANGE;
      meta.put("log_start_offset", Long.toString(o.logStartOffset()));
      meta.put("high_watermark", Long.toString(o.highWatermark()));
    } else if (t instanceof NotOwnerException n) {
      code = Status.Code.FAILED_PRECONDITION;
      reason = ErrorReason.NOT_OWNER;
      meta.put("owner", n.ownerNodeId());
      meta.put("owner_grpc_address", ownerGrpcAddress == null ? "" : ownerGrpcAddress);
      meta.put("owner_http_address", n.ownerAddress());
    } else if (t instanceof AuthenticationException) {
      code = Status.Code.UNAUTHENTICATED;
      reason = ErrorReason.UNAUTHENTICATED;
    } else if (t instanceof ApiException a) {
      switch (a.code()) {
        case "unauthenticated" -> {
          code = Status.Code.UNAUTHENTICATED;
          reason = ErrorReason.UNAUTHENTICATED;
        }
        case "forbidden" -> {
          code = Status.Code.PERMISSION_DENIED;
          reason = ErrorReason.FORBIDDEN;
        }
        case "quota_exceeded" -> {
          code = Status.Code.RESOURCE_EXHAUSTED;
          reason = ErrorReason.QUOTA_EXCEEDED;
          a.extra()
              .forEach(
                  (k, v) -> {
                    if (!k.equals("namespace") && !k.equals("retry_after_seconds")) {
                      meta.put(k, String.valueOf(v));
                    }
                  });
          retrySeconds =
              a.extra().get("retry_after_seconds") instanceof Number n ? n.longValue() : 1;
        }
        default -> {
          code = codeOf(a.kind(), subject);
          reason = reasonOf(a.kind(), subject);
        }
      }
    } else if (t instanceof LoamException e) {
      code = codeOf(e.kind(), subject);
      reason = reasonOf(e.kind(), subject);
      if (e.kind() == Kind.UNAVAILABLE) {
        retrySeconds = 1;
      }
      if (e.kind() == Kind.CORRUPTION || e.kind() == Kind.INTERNAL) {
        LOG.error("gRPC call failed kind={} subject={}", e.kind(), subject, e);
      }
    } else if (t instanceof RejectedExecutionException) {
      // A node executor refused work: the node is stopping under the call, which may already have
      // appended: the only true answer is "outcome unknown".
      code = Status.Code.UNKNOWN;
      reason = ErrorReason.OUTCOME_UNKNOWN;
      message = "the node stopped while serving the call; its outcome is unknown (" + message + ")";
    } else {
      LOG.error("unexpected failure while serving a gRPC call subject={}", subject, t);
      code = Status.Code.INTERNAL;
      reason = ErrorReason.INTERNAL;
      message = "internal error (" + t.getClass().getSimpleName() + "); see the server log";
    }
    return status(code, reason, message, meta, retrySeconds);
  }

  /** A status with an ErrorInfo and, when {@code retrySeconds > 0}, a RetryInfo. */
  public static StatusRuntimeException status(
      Status.Code code,
      ErrorReason reason,
      String message,
      Map<String, String> metadata,
      long retrySeconds) {
    com.google.rpc.Status.Builder s =
        com.google.rpc.Status.newBuilder()
            .setCode(code.value())
            .setMessage(message)
            .addDetails(
                Any.pack(
                    ErrorInfo.newBuilder()
                        .setDomain(DOMAIN)
                        .setReason(reason(reason))
                        .putAllMetadata(metadata)
                        .build()));
    if (retrySeconds > 0) {
      s.addDetails(
          Any.pack(
              RetryInfo.newBuilder()
                  .setRetryDelay(Duration.newBuilder().setSeconds(retrySeconds))
                  .build()));
    }
    return StatusProto.toStatusRuntimeException(s.build());
  }

  /** INVALID_ARGUMENT with reason {@code invalid}. */
  public static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, message);
  }

  static Status.Code codeOf(Kind kind, Subject subject) {
    return switch (kind) {
      case INVALID -> Status.Code.INVALID_ARGUMENT;
      case NOT_FOUND -> Status.Code.NOT_FOUND;
      case CONFLICT ->
          subject.create() ? Status.Code.ALREADY_EXISTS : Status.Code.FAILED_PRECONDITION;
      case FENCED, NOT_OWNER -> Status.Code.FAILED_PRECONDITION;
      case UNAVAILABLE -> Status.Code.UNAVAILABLE;
      case OUTCOME_UNKNOWN -> Status.Code.UNKNOWN;
      case CORRUPTION, INTERNAL -> Status.Code.INTERNAL;
    };
  }

  static ErrorReason reasonOf(Kind kind, Subject subject) {
    return switch (kind) {
      case INVALID -> ErrorReason.INVALID;
      case NOT_FOUND -> ErrorReason.NOT_FOUND;
      case CONFLICT -> subject.create() ? ErrorReason.ALREADY_EXISTS : ErrorReason.CONFLICT;
      case FENCED -> ErrorReason.FENCED;
      case NOT_OWNER -> ErrorReason.NOT_OWNER;
      case UNAVAILABLE -> ErrorReason.UNAVAILABLE;
      case OUTCOME_UNKNOWN -> ErrorReason.OUTCOME_UNKNOWN;
      case CORRUPTION, INTERNAL -> ErrorReason.INTERNAL;
    };
  }
}
