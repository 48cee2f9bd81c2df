package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.LoamNode;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.Errors;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** What an operator or a load balancer asks a node: {@code /v1/health} and {@code /metrics}. */
public final class OpsRoutes {
  private final ApiContext ctx;

  public OpsRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, "/metrics", "metrics", this::metrics).anyParams(),
        Route.of(GET, "/v1/health", "health", this::health).anyParams());
  }

  private CompletableFuture<HttpReply> health(Request r) {
    LoamNode node = ctx.node();
    // A read of the local metastore replica proves the node answers; it does not block.
    return ctx.log()
        .listNamespaces()
        .handle(
            (ns, e) -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("status", e == null ? "ok" : "unavailable");
              if (node != null) {
                o.put("node_id", node.nodeId());
                o.put("epoch", node.epoch());
              }
              if (e != null) {
                o.put("detail", Errors.unwrap(e).getMessage());
                return new HttpReply(
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    HttpReply.JSON,
                    Json.bytes(o),
                    Map.of("Retry-After", Errors.RETRY_AFTER_SECONDS));
              }
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> metrics(Request r) {
    byte[] text = ctx.renderMetrics().getBytes(StandardCharsets.UTF_8);
    return CompletableFuture.completedFuture(
        new HttpReply(
            HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8", text, Map.of()));
  }
}
