package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeHealth;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.Errors;
import dev.loam.http.internal.HttpMetrics;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What an operator or a load balancer asks a node (docs/reference/http-api.md "Health"): liveness
 * ({@code /v1/health/live}: the process serves HTTP), readiness ({@code /v1/health/ready}: the node
 * can serve, from {@link LoamNode#health()}), {@code /v1/health} (the readiness check with its
 * older body) and {@code /metrics}.
 */
public final class OpsRoutes {
  private final ApiContext ctx;

  public OpsRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, "/metrics", "metrics", this::metrics).anyParams(),
        Route.of(GET, "/v1/health", "health", r -> ready(r, "ok", "unavailable")).anyParams(),
        Route.of(GET, "/v1/health/live", "health_live", this::live).anyParams(),
        Route.of(GET, "/v1/health/ready", "health_ready", r -> ready(r, "ready", "not_ready"))
            .anyParams());
  }

  private CompletableFuture<HttpReply> live(Request r) {
    ObjectNode o = identity("live");
    return CompletableFuture.completedFuture(HttpReply.json(HttpResponseStatus.OK, Json.bytes(o)));
  }

  /**
   * 200 with {@code okWord} when the node is ready, else 503 with {@code notWord}, one {@code
   * reasons} entry per failing check and {@code Retry-After}. Without a node (a server given only a
   * {@code Log}) the check is a read of the metastore replica through the log.
   */
  private CompletableFuture<HttpReply> ready(Request r, String okWord, String notWord) {
    LoamNode node = ctx.node();
    if (node != null) {
      NodeHealth h = node.health();
      return CompletableFuture.completedFuture(reply(h.reasons(), okWord, notWord));
    }
    return ctx.log()
        .listNamespaces()
        .handle(
            (ns, e) ->
                reply(
                    e == null
                        ? List.of()
                        : List.of(
                            new NodeHealth.Reason(
                                NodeHealth.METASTORE, Errors.unwrap(e).getMessage())),
                    okWord,
                    notWord));
  }

  private HttpReply reply(List<NodeHealth.Reason> reasons, String okWord, String notWord) {
    if (reasons.isEmpty()) {
      return HttpReply.json(HttpResponseStatus.OK, Json.bytes(identity(okWord)));
    }
    ObjectNode o = identity(notWord);
    ArrayNode a = o.putArray("reasons");
    StringBuilder detail = new StringBuilder();
    for (NodeHealth.Reason reason : reasons) {
      ObjectNode ro = a.addObject();
      ro.put("check", reason.check());
      ro.put("detail", reason.detail());
      detail.append(detail.length() == 0 ? "" : "; ").append(reason.check()).append(": ");
      detail.append(reason.detail());
    }
    o.put("detail", detail.toString());
    return new HttpReply(
        HttpResponseStatus.SERVICE_UNAVAILABLE,
        HttpReply.JSON,
        Json.bytes(o),
        Map.of("Retry-After", Errors.RETRY_AFTER_SECONDS));
  }

  private ObjectNode identity(String status) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("status", status);
    LoamNode node = ctx.node();
    if (node != null) {
      o.put("node_id", node.nodeId());
      o.put("epoch", node.epoch());
    }
    return o;
  }

  private CompletableFuture<HttpReply> metrics(Request r) {
    HttpMetrics.Exposition e =
        ctx.metricsExposition()
            .orElseThrow(
                () ->
                    new ApiException(
                        HttpResponseStatus.NOT_FOUND,
                        "not_found",
                        Kind.NOT_FOUND,
                        "/metrics needs io.micrometer:micrometer-registry-prometheus on the"
                            + " class path"));
    byte[] text = e.scrape().getBytes(StandardCharsets.UTF_8);
    return CompletableFuture.completedFuture(
        new HttpReply(HttpResponseStatus.OK, e.contentType(), text, Map.of()));
  }
}
