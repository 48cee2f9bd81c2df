package dev.loam.http.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Query and body parsing shared by the routes. Every refusal is a 400 (415 for a body that is not
 * JSON) whose message names the parameter and the value it got.
 */
public final class Params {
  private Params() {}

  /**
   * Parses a request target (path and query) as every route reads it. Netty decodes the query's
   * percent-escapes lazily, on the first parameter lookup; they are decoded here, once, so that a
   * malformed escape ({@code ?a=%zz}, {@code ?a=%}) is this 400 naming the target instead of an
   * unchecked exception out of a later lookup.
   */
  public static QueryStringDecoder query(String uri) {
    try {
      QueryStringDecoder q = new QueryStringDecoder(uri);
      q.parameters();
      return q;
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid("malformed request target: " + uri);
    }
  }

  /** Refuses a parameter outside {@code allowed}, and one given more than once. */
  public static void onlyParams(QueryStringDecoder q, Set<String> allowed) {
    for (Map.Entry<String, List<String>> e : q.parameters().entrySet()) {
      if (!allowed.contains(e.getKey())) {
        throw ApiException.invalid(
            "unknown query parameter "
                + e.getKey()
                + (allowed.isEmpty()
                    ? "; this route takes none"
                    : "; allowed: " + String.join(", ", allowed.stream().sorted().toList())));
      }
      if (e.getValue().size() > 1) {
        throw ApiException.invalid("query parameter " + e.getKey() + " is given more than once");
      }
    }
  }

  /** The parameter's value, or null when absent. */
  public static String param(QueryStringDecoder q, String name) {
    List<String> v = q.parameters().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  /**
   * An integer parameter in {@code [min, max]}; {@code dflt} when absent, or a refusal when {@code
   * dflt} is {@link Long#MIN_VALUE} (the parameter is required).
   */
  public static long longParam(QueryStringDecoder q, String name, long dflt, long min, long max) {
    String s = param(q, name);
    if (s == null) {
      if (dflt == Long.MIN_VALUE) {
        throw ApiException.invalid("missing query parameter " + name);
      }
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw ApiException.invalid(
          "query parameter " + name + " must be an integer, got " + name + "=" + s);
    }
    if (v < min || v > max) {
      throw ApiException.invalid(
          "query parameter "
              + name
              + " must be in ["
              + min
              + ", "
              + max
              + "], got "
              + name
              + "="
              + v);
    }
    return v;
  }

  /** A partition path segment: a non-negative integer. */
  public static int partition(String s) {
    try {
      int p = Integer.parseInt(s);
      if (p >= 0) {
        return p;
      }
    } catch (NumberFormatException e) {
      // Fall through to the error below.
    }
    throw ApiException.invalid("partition must be a non-negative integer, got partition=" + s);
  }

  /** Refuses (415) a body declared as anything but JSON. */
  public static void requireJson(FullHttpRequest req) {
    String ct = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
    if (ct == null) {
      return; // Lenient: a body without a declared type is read as JSON.
    }
    String base = ct.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    if (!base.equals("application/json") && !base.endsWith("+json")) {
      throw new ApiException(
          HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
          "unsupported_media_type",
          Kind.INVALID,
          "the body must be application/json, got content-type=" + ct);
    }
  }

  /** The body as one JSON object (see {@link Json#parseObject}). */
  public static ObjectNode body(FullHttpRequest req) {
    requireJson(req);
    byte[] b = new byte[req.content().readableBytes()];
    req.content().getBytes(req.content().readerIndex(), b);
    return Json.parseObject(b);
  }
}
