package dev.loam.http.internal;

import dev.loam.api.Principal;
import dev.loam.api.Role;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * What each route needs of an API key (docs/security.md "Keys and roles"; the table in
 * docs/reference/http-api.md). Keyed by route name; a route missing here needs cluster-admin, so a
 * new route is closed until it is listed (a test checks every route is).
 */
final class Access {
  /** One route's requirement. */
  enum Need {
    /** No key at all: the liveness probe. */
    OPEN,
    /** Any valid key. */
    AUTHENTICATED,
    /** A cluster-wide key with cluster-admin. */
    CLUSTER_ADMIN,
    /** Any role in the path's namespace {@code {ns}}. */
    NAMESPACE,
    /** Produce in {@code {ns}}. */
    PRODUCE,
    /** Consume in {@code {ns}}. */
    CONSUME,
    /** Namespace admin in {@code {ns}}. */
    ADMIN,
    /** Produce in any namespace (producer ids are cluster-wide and name no namespace). */
    PRODUCE_ANYWHERE
  }

  static final Map<String, Need> BY_ROUTE =
      Map.ofEntries(
          // Load balancers and orchestrators probe without a key.
          Map.entry("health", Need.OPEN),
          Map.entry("health_live", Need.OPEN),
          Map.entry("health_ready", Need.OPEN),
          Map.entry("metrics", Need.AUTHENTICATED),
          Map.entry("cluster_nodes", Need.AUTHENTICATED),
          Map.entry("namespace_list", Need.AUTHENTICATED),
          Map.entry("producer_allocate", Need.PRODUCE_ANYWHERE),
          Map.entry("admin_node_slots", Need.CLUSTER_ADMIN),
          Map.entry("admin_stream_transfer", Need.CLUSTER_ADMIN),
          // Journals are shared by every namespace's quorum streams: a cluster resource.
          Map.entry("admin_partition_move", Need.CLUSTER_ADMIN),
          Map.entry("namespace_create", Need.CLUSTER_ADMIN),
          Map.entry("namespace_delete", Need.CLUSTER_ADMIN),
          // Keys: shredding is irreversible and a rotation is a cluster operation on the KMS.
          Map.entry("namespace_key_add", Need.CLUSTER_ADMIN),
          Map.entry("namespace_keys_destroy", Need.CLUSTER_ADMIN),
          Map.entry("namespace_keys_get", Need.ADMIN),
          Map.entry("key_create", Need.CLUSTER_ADMIN),
          Map.entry("key_list", Need.CLUSTER_ADMIN),
          Map.entry("key_revoke", Need.CLUSTER_ADMIN),
          Map.entry("namespace_get", Need.NAMESPACE),
          Map.entry("stream_list", Need.NAMESPACE),
          Map.entry("stream_describe", Need.NAMESPACE),
          Map.entry("stream_schemas", Need.NAMESPACE),
          Map.entry("stream_create", Need.ADMIN),
          Map.entry("stream_update", Need.ADMIN),
          Map.entry("stream_delete", Need.ADMIN),
          Map.entry("stream_add_partitions", Need.ADMIN),
          Map.entry("stream_add_schema", Need.ADMIN),
          Map.entry("produce", Need.PRODUCE),
          Map.entry("events_ingest", Need.PRODUCE),
          Map.entry("events_fetch", Need.CONSUME),
          Map.entry("fetch", Need.CONSUME),
          Map.entry("offsets", Need.CONSUME),
          Map.entry("consumer_get_all", Need.CONSUME),
          Map.entry("consumer_get", Need.CONSUME),
          Map.entry("consumer_lease", Need.CONSUME),
          Map.entry("consumer_commit", Need.CONSUME),
          // A writer lease and its position are the producing side's state.
          Map.entry("writer_get", Need.PRODUCE),
          Map.entry("writer_lease", Need.PRODUCE),
          Map.entry("writer_append", Need.PRODUCE),
          Map.entry("changelog_create", Need.ADMIN));

  private Access() {}

  static Need need(String route) {
    return BY_ROUTE.getOrDefault(route, Need.CLUSTER_ADMIN);
  }

  /**
   * Refuses with 403 {@code forbidden}, naming the missing role or namespace and the key id, unless
   * {@code p} may call {@code route}; {@code p} null means authentication does not apply.
   */
  static void check(Route route, Request r, Principal p) {
    if (p == null) {
      return;
    }
    Need need = need(route.name());
    switch (need) {
      case OPEN, AUTHENTICATED -> {}
      case CLUSTER_ADMIN -> {
        if (!p.clusterAdmin()) {
          throw forbidden(
              "the API key needs a cluster-wide key with role=cluster-admin key=" + p.keyId());
        }
      }
      case PRODUCE_ANYWHERE -> {
        if (!p.roles().contains(Role.PRODUCE)) {
          throw forbidden("the API key needs role=produce key=" + p.keyId());
        }
      }
      case NAMESPACE, PRODUCE, CONSUME, ADMIN -> {
        String ns = r.var("ns");
        if (!p.coversNamespace(ns)) {
          throw forbidden(
              "the API key may not touch namespace="
                  + ns
                  + " (its scope is namespace="
                  + p.namespace()
                  + ") key="
                  + p.keyId());
        }
        Role role =
            switch (need) {
              case PRODUCE -> Role.PRODUCE;
              case CONSUME -> Role.CONSUME;
              case ADMIN -> Role.ADMIN;
              default -> null;
            };
        if (role != null && !p.roles().contains(role)) {
          throw forbidden(
              "the API key needs role=" + role.label() + " namespace=" + ns + " key=" + p.keyId());
        }
      }
    }
  }

  private static ApiException forbidden(String message) {
    return new ApiException(HttpResponseStatus.FORBIDDEN, "forbidden", Kind.INVALID, message);
  }
}
