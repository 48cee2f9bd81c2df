package dev.loam.http.internal;

import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * A request refused by the HTTP layer itself (bad body, wrong route, limits), or a {@link
 * dev.loam.error.LoamException} already translated to HTTP. Carries the status, the stable error
 * code and the Loam error kind that go into the problem document.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient HttpResponseStatus status;
  private final String code;
  private final Kind kind;
  private final transient Map<String, Object> extra;

  public ApiException(HttpResponseStatus status, String code, Kind kind, String message) {
    this(status, code, kind, message, Map.of());
  }

  public ApiException(
      HttpResponseStatus status,
      String code,
      Kind kind,
      String message,
      Map<String, Object> extra) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.kind = kind;
    this.extra = Map.copyOf(extra);
  }

  /** 400 with code {@code invalid}: a bad field or parameter, named in the message. */
  public static ApiException invalid(String message) {
    return new ApiException(HttpResponseStatus.BAD_REQUEST, "invalid", Kind.INVALID, message);
  }

  public HttpResponseStatus status() {
    return status;
  }

  public String code() {
    return code;
  }

  public Kind kind() {
    return kind;
  }

  /** Extra members of the problem document (for example the valid offset range). */
  public Map<String, Object> extra() {
    return extra;
  }
}
