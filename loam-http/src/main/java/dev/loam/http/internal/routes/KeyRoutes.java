package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.DELETE;
import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.ApiKey;
import dev.loam.api.ApiKeySpec;
import dev.loam.api.Role;
import dev.loam.error.LoamException;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * API keys (docs/security.md): create (the answer carries the secret, the one time it is shown),
 * list (never a secret) and revoke. Cluster-admin only, but for the first key's creation from a
 * loopback address while the cluster holds no active key.
 */
public final class KeyRoutes {
  /** The create route's name: the one a bootstrap request may call without a key. */
  public static final String CREATE = "key_create";

  private final ApiContext ctx;

  public KeyRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, "/v1/admin/keys", "key_list", this::list),
        Route.of(POST, "/v1/admin/keys", CREATE, this::create),
        Route.of(DELETE, "/v1/admin/keys/{id}", "key_revoke", this::revoke));
  }

  private CompletableFuture<HttpReply> create(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", Set.of("namespace", "roles"));
    String namespace = Json.optString(b, "namespace", "");
    JsonNode roles = b.get("roles");
    if (roles == null || !roles.isArray() || roles.isEmpty()) {
      throw ApiException.invalid(
          "field roles must be a non-empty array of produce, consume, admin, cluster-admin");
    }
    EnumSet<Role> set = EnumSet.noneOf(Role.class);
    for (JsonNode n : roles) {
      if (!n.isTextual()) {
        throw ApiException.invalid("field roles must hold strings");
      }
      set.add(parseRole(n.asText()));
    }
    ApiKeySpec spec;
    try {
      spec = new ApiKeySpec(namespace, set);
    } catch (LoamException e) {
      throw ApiException.invalid(e.getMessage());
    }
    return ctx.log()
        .createApiKey(spec)
        .thenApply(
            created -> {
              ObjectNode o = view(created.key());
              o.put("secret", created.secret());
              o.put("token", created.token());
              return HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(o));
            });
  }

  private static Role parseRole(String s) {
    try {
      return Role.parse(s);
    } catch (LoamException e) {
      throw ApiException.invalid(e.getMessage());
    }
  }

  private CompletableFuture<HttpReply> list(Request r) {
    return ctx.log()
        .listApiKeys()
        .thenApply(
            keys -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("keys");
              keys.forEach(k -> a.add(view(k)));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> revoke(Request r) {
    return ctx.log()
        .revokeApiKey(r.var("id"))
        .thenApply(k -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(view(k))));
  }

  /** A key as JSON: id, namespace (null: cluster-wide), roles, times; never a secret. */
  static ObjectNode view(ApiKey k) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("id", k.id());
    if (k.namespace() == null) {
      o.putNull("namespace");
    } else {
      o.put("namespace", k.namespace());
    }
    ArrayNode roles = o.putArray("roles");
    for (Role role : Role.values()) {
      if (k.roles().contains(role)) {
        roles.add(role.label());
      }
    }
    o.put("created_at_ms", k.createdAtMillis());
    o.put("revoked", k.revoked());
    if (k.revoked()) {
      o.put("revoked_at_ms", k.revokedAtMillis());
    }
    return o;
  }
}
