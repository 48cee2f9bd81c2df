package dev.loam.http.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.Principal;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.Map;
import java.util.Optional;

/**
 * A request the {@link Router} matched to a {@link Route}: the path variables, the query and the
 * body, for the route's handler. Valid only while the handler runs on the event loop: the request's
 * buffers are released once it returns.
 */
public final class Request {
  private final FullHttpRequest http;
  private final QueryStringDecoder query;
  private final Map<String, String> vars;
  private final int partition;
  private final ApiContext ctx;
  private final Principal principal;
  private long waitMillis;
  private boolean holdsLongPoll;

  Request(
      FullHttpRequest http,
      QueryStringDecoder query,
      Map<String, String> vars,
      int partition,
      ApiContext ctx,
      Principal principal) {
    this.http = http;
    this.query = query;
    this.vars = vars;
    this.partition = partition;
    this.ctx = ctx;
    this.principal = principal;
  }

  /**
   * The key the request was authenticated as; empty when authentication does not apply (the
   * listener is open). Listing routes use it to show a namespace-scoped key only its namespace.
   */
  public Optional<Principal> principal() {
    return Optional.ofNullable(principal);
  }

  /** The decoded path variable {@code {name}} of the route's template. */
  public String var(String name) {
    String v = vars.get(name);
    if (v == null) {
      throw new IllegalArgumentException("the route has no path variable name=" + name);
    }
    return v;
  }

  /** The {@code {p}} variable, already checked to be a non-negative integer. */
  public int partition() {
    if (partition < 0) {
      throw new IllegalArgumentException("the route has no partition variable");
    }
    return partition;
  }

  /** The query parameter, or null; the router has checked it occurs at most once. */
  public String param(String name) {
    return Params.param(query, name);
  }

  /** See {@link Params#longParam}. */
  public long longParam(String name, long dflt, long min, long max) {
    return Params.longParam(query, name, dflt, min, max);
  }

  /** The body as one JSON object; 415 unless it is JSON. */
  public ObjectNode body() {
    return Params.body(http);
  }

  /** The underlying request (its content is released when the handler returns). */
  public FullHttpRequest http() {
    return http;
  }

  /**
   * A fetch that may wait: the HTTP timeout grows by {@code millis}, and if {@code holdsSlot} the
   * request takes one of the {@code maxLongPolls} slots until it is answered (503
   * too_many_long_polls when none is free).
   */
  public void waitUpTo(long millis, boolean holdsSlot) {
    if (holdsSlot) {
      ctx.claimLongPoll();
      holdsLongPoll = true;
    }
    waitMillis = millis;
  }

  long waitMillis() {
    return waitMillis;
  }

  boolean holdsLongPoll() {
    return holdsLongPoll;
  }
}
