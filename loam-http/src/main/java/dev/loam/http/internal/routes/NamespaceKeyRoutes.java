package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.DELETE;
import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.NamespaceKeyInfo;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A namespace's envelope-encryption keys (docs/security.md, "Data at rest"): describe them, give
 * the namespace a new key (its first, or a rotation) and shred it. The key material never crosses
 * the API: only key ids, {@code <namespace>/<ulid>}.
 */
public final class NamespaceKeyRoutes {
  static final String PATH = "/v1/namespaces/{ns}/keys";

  private final ApiContext ctx;

  public NamespaceKeyRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order (GET before POST and DELETE: the path's Allow header order). */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, PATH, "namespace_keys_get", this::get),
        Route.of(POST, PATH, "namespace_key_add", this::add).anyParams(),
        Route.of(DELETE, PATH, "namespace_keys_destroy", this::destroy));
  }

  private CompletableFuture<HttpReply> get(Request r) {
    String ns = r.var("ns");
    return ctx.log()
        .describeNamespaceKeys(ns)
        .thenApply(
            k ->
                HttpReply.json(
                    HttpResponseStatus.OK,
                    Json.bytes(
                        k.map(NamespaceKeyRoutes::json)
                            .orElseGet(
                                () -> {
                                  ObjectNode o = Json.MAPPER.createObjectNode();
                                  o.put("namespace", ns);
                                  o.put("encrypted", false);
                                  o.putArray("key_ids");
                                  o.putNull("current_key_id");
                                  o.put("destroyed", false);
                                  return o;
                                }))));
  }

  private CompletableFuture<HttpReply> add(Request r) {
    return ctx.log()
        .addNamespaceKey(r.var("ns"))
        .thenApply(k -> HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(json(k))));
  }

  private CompletableFuture<HttpReply> destroy(Request r) {
    return ctx.log()
        .destroyNamespaceKeys(r.var("ns"))
        .thenApply(k -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(json(k))));
  }

  /**
   * A namespace's keys as JSON: {@code namespace, encrypted, key_ids, current_key_id, destroyed}.
   */
  static ObjectNode json(NamespaceKeyInfo k) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", k.namespace());
    o.put("encrypted", !k.destroyed());
    ArrayNode a = o.putArray("key_ids");
    k.keyIds().forEach(a::add);
    o.put("current_key_id", k.currentKeyId());
    o.put("destroyed", k.destroyed());
    return o;
  }
}
