package dev.loam.http.internal;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.Principal;
import dev.loam.http.Authentication;
import dev.loam.http.internal.routes.ClusterRoutes;
import dev.loam.http.internal.routes.ConsumerRoutes;
import dev.loam.http.internal.routes.EventRoutes;
import dev.loam.http.internal.routes.KeyRoutes;
import dev.loam.http.internal.routes.NamespaceKeyRoutes;
import dev.loam.http.internal.routes.NamespaceRoutes;
import dev.loam.http.internal.routes.OpsRoutes;
import dev.loam.http.internal.routes.RecordRoutes;
import dev.loam.http.internal.routes.StreamRoutes;
import dev.loam.http.internal.routes.WriterRoutes;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
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
  private final ApiContext ctx;
  private final Authentication authentication;

  public Api(Log log, LoamNode node, HttpMetrics metrics, Limits limits) {
    this(log, node, metrics, limits, IngestQuotas.unlimited());
  }

  public Api(Log log, LoamNode node, HttpMetrics metrics, Limits limits, IngestQuotas quotas) {
    this(log, node, metrics, limits, quotas, Authentication.NONE);
  }

  public Api(
      Log log,
      LoamNode node,
      HttpMetrics metrics,
      Limits limits,
      IngestQuotas quotas,
      Authentication authentication) {
    this.authentication = authentication;
    ApiContext ctx = new ApiContext(log, node, metrics, limits, quotas);
    this.ctx = ctx;
    // Table order matters twice: it is the order of the Allow header's methods, and the first
    // template that matches wins (no two templates of equal length match the same path today).
    List<Route> routes = new ArrayList<>();
    routes.addAll(new OpsRoutes(ctx).routes());
    routes.addAll(new ClusterRoutes(ctx).routes());
    routes.addAll(new NamespaceRoutes(ctx).routes());
    routes.addAll(new NamespaceKeyRoutes(ctx).routes());
    routes.addAll(new StreamRoutes(ctx).routes());
    routes.addAll(new RecordRoutes(ctx).routes());
    routes.addAll(new EventRoutes(ctx).routes());
    routes.addAll(new ConsumerRoutes(ctx).routes());
    routes.addAll(new WriterRoutes(ctx).routes());
    routes.addAll(new KeyRoutes(ctx).routes());
    this.router = new Router(routes, ConsumerRoutes.GROUPS, ctx);
  }

  /** Routes a request from a loopback peer; see {@link #route(FullHttpRequest, SocketAddress)}. */
  public Call route(FullHttpRequest req) {
    return route(req, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  /**
   * Routes a request from {@code peer}; never throws (failures are answered as problem documents).
   * Authentication (docs/security.md) comes first: a request that needs a key and has none, or a
   * bad one, is answered 401 before anything else is checked.
   */
  public Call route(FullHttpRequest req, SocketAddress peer) {
    String uri = req.uri();
    Call c = authenticateAndRoute(req, peer);
    return new Call(
        c.route(),
        c.reply().exceptionallyCompose(t -> Redirects.redirectIfNotOwner(t, uri)),
        c.timeoutMillis(),
        c.longPoll(),
        c.write());
  }

  /** Whether a request must present a key: the mode, the liveness probe and the bootstrap rule. */
  private boolean needsKey(FullHttpRequest req, SocketAddress peer) {
    if (authentication == Authentication.NONE) {
      return false;
    }
    Route r = router.peek(req);
    if (r != null && Access.need(r.name()) == Access.Need.OPEN) {
      return false;
    }
    boolean keysExist;
    try {
      keysExist = ctx.log().hasActiveApiKeys();
    } catch (RuntimeException e) {
      // Cannot tell: ask for a key rather than open the door.
      keysExist = true;
    }
    if (keysExist) {
      return true;
    }
    if (authentication == Authentication.WHEN_KEYS_EXIST) {
      return false;
    }
    // REQUIRED without an active key: only the first key's creation, and only from this machine.
    boolean bootstrap =
        r != null
            && r.name().equals(KeyRoutes.CREATE)
            && peer instanceof InetSocketAddress a
            && a.getAddress() != null
            && a.getAddress().isLoopbackAddress();
    return !bootstrap;
  }

  private Call authenticateAndRoute(FullHttpRequest req, SocketAddress peer) {
    if (!needsKey(req, peer)) {
      return router.route(req, null);
    }
    BearerToken token;
    try {
      token = BearerToken.parse(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    } catch (ApiException e) {
      return router.refused(req, e);
    }
    CompletableFuture<Principal> verified = ctx.log().authenticate(token.keyId(), token.secret());
    if (verified.isDone()) {
      Principal p;
      try {
        p = verified.join();
      } catch (RuntimeException e) {
        return router.refused(req, Errors.toApi(e));
      }
      return router.route(req, p);
    }
    // The verification derives the key (milliseconds, off this thread): the request is routed
    // once it completes, so its buffers are kept until then.
    Route peeked = router.peek(req);
    req.retain();
    CompletableFuture<HttpReply> reply =
        verified
            .handle(
                (p, t) -> {
                  if (t != null) {
                    req.release();
                    throw Errors.toApi(t);
                  }
                  Call inner;
                  try {
                    inner = router.route(req, p);
                  } finally {
                    req.release();
                  }
                  if (inner.longPoll()) {
                    // This call did not claim the slot as such: give it back here.
                    inner.reply().whenComplete((x, e) -> ctx.releaseLongPoll());
                  }
                  return inner.reply();
                })
            .thenCompose(f -> f);
    long timeout =
        ctx.limits().requestTimeoutMillis()
            + (peeked != null && peeked.kind() == Route.Kind.LONG_POLL
                ? ctx.limits().maxFetchWaitMillis()
                : 0);
    return new Call(
        peeked == null ? Router.UNMATCHED : peeked.name(),
        reply,
        timeout,
        false,
        peeked != null && peeked.kind() == Route.Kind.WRITE);
  }

  /** The route table, in table order. */
  public List<Route> routes() {
    return router.routes();
  }

  /** Sets how long CloudEvents ingest deduplicates a source + id (1 s to 24 h). */
  public void cloudEventsDedupWindow(java.time.Duration window) {
    ctx.dedupWindow(window);
  }
}
