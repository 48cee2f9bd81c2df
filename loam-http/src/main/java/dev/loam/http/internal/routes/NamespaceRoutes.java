package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.DELETE;
import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Namespaces: create (plain or encrypted), list, get (its stream names) and delete. */
public final class NamespaceRoutes {
  private final ApiContext ctx;

  public NamespaceRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order (GET before POST: the order of the path's Allow header). */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, "/v1/namespaces", "namespace_list", this::list),
        Route.of(POST, "/v1/namespaces", "namespace_create", this::create).anyParams(),
        Route.of(GET, "/v1/namespaces/{ns}", "namespace_get", this::get),
        Route.of(DELETE, "/v1/namespaces/{ns}", "namespace_delete", this::delete));
  }

  private CompletableFuture<HttpReply> create(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", Set.of("name", "encrypted"));
    String name = Json.optString(b, "name", "");
    if (name == null) {
      throw ApiException.invalid("missing field name");
    }
    boolean encrypted = false;
    if (b.has("encrypted")) {
      if (!b.get("encrypted").isBoolean()) {
        throw ApiException.invalid("field encrypted must be true or false field=encrypted");
      }
      encrypted = b.get("encrypted").booleanValue();
    }
    CompletableFuture<ObjectNode> created =
        encrypted
            ? ctx.log()
                .createEncryptedNamespace(name)
                .thenApply(
                    k -> {
                      ObjectNode o = Json.MAPPER.createObjectNode();
                      o.put("name", name);
                      o.set("keys", NamespaceKeyRoutes.json(k));
                      return o;
                    })
            : ctx.log()
                .createNamespace(name)
                .thenApply(
                    v -> {
                      ObjectNode o = Json.MAPPER.createObjectNode();
                      o.put("name", name);
                      return o;
                    });
    return created.thenApply(
        o ->
            HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(o))
                .withHeaders(Map.of("Location", Locations.of(name))));
  }

  /** Every namespace; to a namespace-scoped key, its own alone (if it exists). */
  private CompletableFuture<HttpReply> list(Request r) {
    String only = r.principal().filter(p -> !p.clusterWide()).map(p -> p.namespace()).orElse(null);
    return ctx.log()
        .listNamespaces()
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("namespaces");
              list.stream().filter(n -> only == null || only.equals(n)).forEach(a::add);
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> get(Request r) {
    String ns = r.var("ns");
    return ctx.log()
        .listStreams(ns)
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("name", ns);
              ArrayNode a = o.putArray("streams");
              list.forEach(d -> a.add(d.name()));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> delete(Request r) {
    return ctx.log().deleteNamespace(r.var("ns")).thenApply(v -> HttpReply.noContent());
  }
}
