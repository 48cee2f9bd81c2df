package dev.loam.http.internal;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.http.internal.routes.ClusterRoutes;
import dev.loam.http.internal.routes.ConsumerRoutes;
import dev.loam.http.internal.routes.NamespaceRoutes;
import dev.loam.http.internal.routes.OpsRoutes;
import dev.loam.http.internal.routes.RecordRoutes;
import dev.loam.http.internal.routes.StreamRoutes;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The routes of docs/reference/http-api.md. {@link #route} parses and validates the request on the
 * calling (event-loop) thread, starts the asynchronous {@link Log} call and returns at once;
 * nothing here blocks. The request's buffers may be released as soon as {@link #route} returns.
 *
 * <p>The route table is assembled here from one class per resource in {@code routes/}; the {@link
 * Router} matches it.
 */
public final class Api {
  /** Limits the routes enforce; see {@code LoamHttpServer.Builder}. */
  public record Limits(
      int maxRequestBytes,
      int maxLongPolls,
      int maxFetchBytes,
      int defaultFetchBytes,
      long maxFetchWaitMillis,
      long requestTimeoutMillis) {}

  /**
   * One routed request: the metrics route name, the pending reply, how long the HTTP layer waits
   * for it, and whether it holds a long-poll slot or is a write (whose timeout means "outcome
   * unknown").
   */
  public record Call(
      String route,
      CompletableFuture<HttpReply> reply,
      long timeoutMillis,
      boolean longPoll,
      boolean write) {}

  private final Router router;

  public Api(Log log, LoamNode node, HttpMetrics metrics, Limits limits) {
    this(log, node, metrics, limits, IngestQuotas.unlimited());
  }

  public Api(Log log, LoamNode node, HttpMetrics metrics, Limits limits, IngestQuotas quotas) {
    ApiContext ctx = new ApiContext(log, node, metrics, limits, quotas);
    // Table order matters twice: it is the order of the Allow header's methods, and the first
    // template that matches wins (no two templates of equal length match the same path today).
    List<Route> routes = new ArrayList<>();
    routes.addAll(new OpsRoutes(ctx).routes());
    routes.addAll(new ClusterRoutes(ctx).routes());
    routes.addAll(new NamespaceRoutes(ctx).routes());
    routes.addAll(new StreamRoutes(ctx).routes());
    routes.addAll(new RecordRoutes(ctx).routes());
    routes.addAll(new ConsumerRoutes(ctx).routes());
    this.router = new Router(routes, ConsumerRoutes.GROUPS, ctx);
  }

  /** Routes a request; never throws (failures are answered as problem documents). */
  public Call route(FullHttpRequest req) {
    String uri = req.uri();
    Call c = router.route(req);
    return new Call(
        c.route(),
        c.reply().exceptionallyCompose(t -> Redirects.redirectIfNotOwner(t, uri)),
        c.timeoutMillis(),
        c.longPoll(),
        c.write());
  }

  /** The route table, in table order. */
  public List<Route> routes() {
    return router.routes();
  }
}
