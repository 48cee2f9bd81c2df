package dev.loam.otlp.internal;

/**
 * Why a request was refused, with its OTLP/HTTP status and OTLP/gRPC code (docs/reference/otlp.md
 * "Acknowledgement and status codes"). A refused request stored nothing, except {@link
 * Reason#UNAVAILABLE} after an append whose outcome is unknown (OTLP ingest is at-least-once). The
 * message names what was wrong; it never repeats a secret.
 */
public final class OtlpRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The refusal reasons, each with its HTTP status and gRPC status code name. */
  public enum Reason {
    /** Malformed body, bad header, too many records: the exporter drops the batch. */
    MALFORMED(400, "INVALID_ARGUMENT"),
    /**
     * Neither {@code application/x-protobuf} nor {@code application/json}, or an unknown coding.
     */
    UNSUPPORTED_MEDIA_TYPE(415, "INVALID_ARGUMENT"),
    /** The body, as sent or decompressed, is over the limit. */
    TOO_LARGE(413, "RESOURCE_EXHAUSTED"),
    /** No key, or one the cluster does not know. */
    UNAUTHENTICATED(401, "UNAUTHENTICATED"),
    /** The key lacks {@code produce} or may not touch the namespace. */
    FORBIDDEN(403, "PERMISSION_DENIED"),
    /** The namespace (or, without auto-creation, the stream) does not exist. */
    NOT_FOUND(404, "NOT_FOUND"),
    /** Over the ingest quota: retry after the delay. */
    QUOTA_EXCEEDED(429, "RESOURCE_EXHAUSTED"),
    /** The node cannot commit now: retry. */
    UNAVAILABLE(503, "UNAVAILABLE"),
    /** A bug: an unexpected failure. */
    INTERNAL(500, "INTERNAL");

    private final int httpStatus;
    private final String grpcCode;

    Reason(int httpStatus, String grpcCode) {
      this.httpStatus = httpStatus;
      this.grpcCode = grpcCode;
    }

    public int httpStatus() {
      return httpStatus;
    }

    /** The name of the {@code io.grpc.Status.Code}. */
    public String grpcCode() {
      return grpcCode;
    }

    /** Whether OTLP exporters retry this refusal. */
    public boolean retryable() {
      return this == QUOTA_EXCEEDED || this == UNAVAILABLE;
    }
  }

  private final Reason reason;
  private final long retryAfterSeconds;

  public OtlpRefusal(Reason reason, String message) {
    this(reason, message, reason.retryable() ? 1 : 0);
  }

  public OtlpRefusal(Reason reason, String message, long retryAfterSeconds) {
    super(message, null, false, false);
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public static OtlpRefusal malformed(String message) {
    return new OtlpRefusal(Reason.MALFORMED, message);
  }

  public Reason reason() {
    return reason;
  }

  /** Seconds the client should wait before retrying; 0 when it should not retry. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
