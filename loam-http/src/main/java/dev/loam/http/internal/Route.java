package dev.loam.http.internal;

import io.netty.handler.codec.http.HttpMethod;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One entry of the HTTP API's route table, the single definition of what a path answers
 * (docs/reference/http-api.md "Routes"; a test keeps the two in step). The {@link Router} matches
 * the template, refuses other methods with 405 and unknown query parameters with 400, then calls
 * the handler.
 *
 * @param method the one method this route answers; other routes may share the template
 * @param template the path with {@code {name}} variables, e.g. {@code /v1/namespaces/{ns}}; a
 *     {@code {p}} variable is a partition number, checked as soon as the path reaches it
 * @param name the {@code route} label of the request metrics
 * @param kind how the HTTP layer times the call out
 * @param params the query parameters the route allows, or {@code null} if it does not check them
 * @param handler starts the call; it runs on the event loop and must not block
 */
public record Route(
    HttpMethod method,
    String template,
    String name,
    Kind kind,
    Set<String> params,
    Handler handler) {

  /** How a route's call is timed out. */
  public enum Kind {
    /** Reads and admin calls: a call that does not finish in time is answered 503 "timeout". */
    PLAIN,
    /**
     * Calls that append or change consumer state: a timeout means the outcome is unknown (504),
     * since the call may still take effect after the client was answered.
     */
    WRITE,
    /**
     * A fetch: its timeout is extended by its wait, and a waiting fetch holds one of the bounded
     * long-poll slots ({@link Request#waitUpTo}).
     */
    LONG_POLL
  }

  /** Starts a routed request's call; a failure is thrown here or arrives through the future. */
  @FunctionalInterface
  public interface Handler {
    CompletableFuture<HttpReply> handle(Request request);
  }

  /** A {@link Kind#PLAIN} route that takes no query parameters. */
  public static Route of(HttpMethod method, String template, String name, Handler handler) {
    return new Route(method, template, name, Kind.PLAIN, Set.of(), handler);
  }

  /** This route as a {@link Kind#WRITE}. */
  public Route write() {
    return new Route(method, template, name, Kind.WRITE, params, handler);
  }

  /** This route as a {@link Kind#LONG_POLL}. */
  public Route longPoll() {
    return new Route(method, template, name, Kind.LONG_POLL, params, handler);
  }

  /** This route taking exactly these query parameters (each at most once). */
  public Route params(String... allowed) {
    return new Route(method, template, name, kind, Set.of(allowed), handler);
  }

  /**
   * This route leaving its query parameters unchecked: the routes that read only their body (or
   * nothing) have always ignored the query, and refusing it now would break callers that send one.
   */
  public Route anyParams() {
    return new Route(method, template, name, kind, null, handler);
  }
}
