package dev.loam.http.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns any failure into an RFC 9457 problem document (docs/reference/http-api.md "Errors"). The
 * body never carries a stack trace; unexpected exceptions are logged here and answered as {@code
 * internal}.
 */
public final class Errors {
  private static final Logger LOG = LoggerFactory.getLogger(Errors.class);

  /** Seconds a client should wait before retrying an UNAVAILABLE answer. */
  public static final String RETRY_AFTER_SECONDS = "1";

  /**
   * The problem member carrying a computed wait in seconds (a 429 over the ingest quota); when
   * present it is also the {@code Retry-After} header.
   */
  static final String RETRY_AFTER_MEMBER = "retry_after_seconds";

  private Errors() {}

  /** The HTTP status for each Loam error kind. */
  public static HttpResponseStatus statusOf(Kind kind) {
    return switch (kind) {
      case INVALID -> HttpResponseStatus.BAD_REQUEST;
      case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
      // A replaced producer or node epoch: the request conflicts with the current owner of the
      // identity, as a stale lease does (both are 409).
      case CONFLICT, FENCED -> HttpResponseStatus.CONFLICT;
      case UNAVAILABLE -> HttpResponseStatus.SERVICE_UNAVAILABLE;
      // The gateway could not learn the outcome in time: 504, never 500, so clients can tell
      // "maybe appended" (read to find out) from "failed".
      case OUTCOME_UNKNOWN -> HttpResponseStatus.GATEWAY_TIMEOUT;
      case CORRUPTION, INTERNAL -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
      // Answered as a 307 to the owner by Api when the owner has an address; without one, the
      // request conflicts with the current owner.
      case NOT_OWNER -> HttpResponseStatus.CONFLICT;
    };
  }

  /** The stable error code of a kind: its lower-case name. */
  public static String codeOf(Kind kind) {
    return kind.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Strips the wrappers a future adds. */
  public static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The reply to a request that failed in a way the server has no better answer for (a routing bug,
   * a class missing from the class path), written without Jackson: it must be sendable when the
   * JSON library itself is what is broken.
   */
  public static final HttpReply INTERNAL_FALLBACK =
      new HttpReply(
          HttpResponseStatus.INTERNAL_SERVER_ERROR,
          HttpReply.PROBLEM_JSON,
          ("{\"type\":\"urn:loam:problem:internal\",\"title\":\"Internal Server Error\","
                  + "\"status\":500,\"detail\":\"internal error; see the server log\","
                  + "\"code\":\"internal\",\"error\":{\"kind\":\"INTERNAL\","
                  + "\"message\":\"internal error; see the server log\"}}")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8),
          Map.of());

  /** The problem reply for a failure of any type. */
  public static HttpReply toReply(Throwable failure) {
    return toReply(toApi(unwrap(failure), null));
  }

  /**
   * The problem reply for a failure of any type while serving {@code request} (its method and
   * target, as logged with an unexpected failure).
   */
  public static HttpReply toReply(Throwable failure, String request) {
    return toReply(toApi(unwrap(failure), request));
  }

  /** Translates a failure to an {@link ApiException}; unexpected ones are logged. */
  public static ApiException toApi(Throwable t) {
    return toApi(t, null);
  }

  /**
   * Translates a failure of {@code request} (method and target, or null when unknown) to an {@link
   * ApiException}. Unexpected failures, and the CORRUPTION and INTERNAL kinds, are logged at ERROR
   * with the request: the client sees only "internal error", so the log is the one place the cause
   * is told.
   */
  public static ApiException toApi(Throwable t, String request) {
    t = unwrap(t);
    if (t instanceof ApiException a) {
      return a;
    }
    if (t instanceof OffsetOutOfRangeException o) {
      // Issue 6: 416 naming the valid range, in the message and as members.
      Map<String, Object> extra = new LinkedHashMap<>();
      extra.put("log_start_offset", o.logStartOffset());
      extra.put("high_watermark", o.highWatermark());
      return new ApiException(
          HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
          "offset_out_of_range",
          Kind.INVALID,
          o.getMessage(),
          extra);
    }
    if (t instanceof dev.loam.api.AuthenticationException e) {
      // A refused key: 401 with the challenge; the message names the key id, never the secret.
      return BearerToken.refused(e.getMessage());
    }
    if (t instanceof LoamException e) {
      if (e.kind() == Kind.CORRUPTION || e.kind() == Kind.INTERNAL) {
        LOG.error("request failed kind={} request=\"{}\"", e.kind(), request, e);
      }
      return new ApiException(statusOf(e.kind()), codeOf(e.kind()), e.kind(), e.getMessage());
    }
    if (t instanceof java.util.concurrent.RejectedExecutionException) {
      // A node executor refused work: the node is stopping (or crashed) under the request. The
      // work may already be done (a produce committed before its answer was scheduled), so the
      // only true answer is "outcome unknown": 504, read to find out, as for a lost answer.
      return new ApiException(
          statusOf(Kind.OUTCOME_UNKNOWN),
          codeOf(Kind.OUTCOME_UNKNOWN),
          Kind.OUTCOME_UNKNOWN,
          "the node stopped while serving the request; its outcome is unknown ("
              + t.getMessage()
              + ")");
    }
    LOG.error("unexpected failure while serving a request request=\"{}\"", request, t);
    return new ApiException(
        HttpResponseStatus.INTERNAL_SERVER_ERROR,
        "internal",
        Kind.INTERNAL,
        "internal error (" + t.getClass().getSimpleName() + "); see the server log");
  }

  /** The problem document and headers for an API error. */
  public static HttpReply toReply(ApiException a) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("type", "urn:loam:problem:" + a.code());
    body.put("title", a.status().reasonPhrase());
    body.put("status", a.status().code());
    body.put("detail", a.getMessage());
    body.put("code", a.code());
    ObjectNode err = body.putObject("error");
    err.put("kind", a.kind().name());
    err.put("message", a.getMessage());
    a.extra().forEach((k, v) -> body.set(k, Json.MAPPER.valueToTree(v)));
    Map<String, String> headers = new LinkedHashMap<>();
    if (a.status().equals(HttpResponseStatus.SERVICE_UNAVAILABLE)
        || a.status().equals(HttpResponseStatus.TOO_MANY_REQUESTS)) {
      Object computed = a.extra().get(RETRY_AFTER_MEMBER);
      headers.put(
          "Retry-After",
          computed instanceof Number n ? Long.toString(n.longValue()) : RETRY_AFTER_SECONDS);
    }
    if (a.status().equals(HttpResponseStatus.UNAUTHORIZED)) {
      headers.put("WWW-Authenticate", BearerToken.CHALLENGE);
    }
    if (a.extra().get("allow") instanceof String allow) {
      headers.put("Allow", allow);
    }
    return new HttpReply(a.status(), HttpReply.PROBLEM_JSON, Json.bytes(body), headers);
  }
}
