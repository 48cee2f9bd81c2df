package dev.loam.http.internal;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * A complete response before it is written: status, content type, body and extra headers. Built on
 * any thread, written on the channel's event loop.
 */
public record HttpReply(
    HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {
  public static final String JSON = "application/json";
  public static final String PROBLEM_JSON = "application/problem+json";

  public HttpReply {
    // in the given order: a binary-mode CloudEvent's ce-* headers keep its attribute order
    headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
  }

  public static HttpReply json(HttpResponseStatus status, byte[] body) {
    return new HttpReply(status, JSON, body, Map.of());
  }

  public static HttpReply noContent() {
    return new HttpReply(HttpResponseStatus.NO_CONTENT, null, new byte[0], Map.of());
  }

  public HttpReply withHeaders(Map<String, String> more) {
    java.util.Map<String, String> all = new java.util.LinkedHashMap<>(headers);
    all.putAll(more);
    return new HttpReply(status, contentType, body, all);
  }
}
