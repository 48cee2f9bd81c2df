package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.DELETE;
import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.PATCH;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.Compression;
import dev.loam.api.Durability;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.error.LoamException;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.JsonViews;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Streams: create, list, describe (with the owner), update, delete and grow by partitions. */
public final class StreamRoutes {
  /** Partitions a stream may be created with over HTTP. */
  static final int MAX_PARTITIONS = 10_000;

  private static final Set<String> STREAM_FIELDS =
      Set.of(
          "name",
          "partitions",
          "class",
          "retention_ms",
          "retention_bytes",
          "cleanup_policy",
          "compression",
          "arrow_schema");
  private static final Set<String> STREAM_UPDATE_FIELDS =
      Set.of("retention_ms", "retention_bytes", "cleanup_policy");

  private static final String STREAMS = "/v1/namespaces/{ns}/streams";
  private static final String STREAM = STREAMS + "/{s}";

  private final ApiContext ctx;

  public StreamRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order (per path, the order of its Allow header). */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, STREAMS, "stream_list", this::list),
        Route.of(POST, STREAMS, "stream_create", this::create).anyParams(),
        Route.of(GET, STREAM, "stream_describe", this::describe),
        Route.of(PATCH, STREAM, "stream_update", this::update),
        Route.of(DELETE, STREAM, "stream_delete", this::delete),
        Route.of(POST, STREAM + "/partitions", "stream_add_partitions", this::addPartitions),
        Route.of(GET, STREAM + "/schemas", "stream_schemas", this::schemas),
        Route.of(POST, STREAM + "/schemas", "stream_add_schema", this::addSchema));
  }

  private CompletableFuture<HttpReply> create(Request r) {
    String ns = r.var("ns");
    ObjectNode b = r.body();
    Json.onlyFields(b, "", STREAM_FIELDS);
    String name = Json.optString(b, "name", "");
    if (name == null) {
      throw ApiException.invalid("missing field name");
    }
    int partitions = (int) Json.optLong(b, "partitions", "", 1, 1, MAX_PARTITIONS);
    String cls = Json.optString(b, "class", "");
    Durability dc = Durability.STANDARD;
    if (cls != null) {
      try {
        dc = Durability.fromWireName(cls);
      } catch (LoamException e) {
        throw ApiException.invalid(
            "class must be \"standard\", \"express\" or \"quorum\", got class=" + cls);
      }
    }
    long retentionMs = Json.optLong(b, "retention_ms", "", -1, -1, Long.MAX_VALUE);
    long retentionBytes = Json.optLong(b, "retention_bytes", "", -1, -1, Long.MAX_VALUE);
    String cleanup = Json.optString(b, "cleanup_policy", "");
    boolean compacted;
    if (cleanup == null || cleanup.equals("delete")) {
      compacted = false;
    } else if (cleanup.equals("compact")) {
      compacted = true;
    } else {
      throw ApiException.invalid(
          "cleanup_policy must be \"delete\" or \"compact\", got cleanup_policy=" + cleanup);
    }
    String codec = Json.optString(b, "compression", "");
    Compression compression = Compression.NONE;
    if (codec != null) {
      try {
        compression = Compression.fromWireName(codec);
      } catch (LoamException e) {
        throw ApiException.invalid(
            "compression must be \"none\", \"gzip\", \"snappy\", \"lz4\" or \"zstd\", got"
                + " compression="
                + codec);
      }
    }
    StreamSpec spec =
        new StreamSpec(partitions, dc, retentionMs, retentionBytes, compacted, compression);
    String schema = schemaText(b.get("arrow_schema"), "arrow_schema");
    return (schema == null
            ? ctx.log().createStream(ns, name, spec)
            : ctx.log().createArrowStream(ns, name, spec, schema))
        .thenApply(
            d ->
                HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(JsonViews.describe(d)))
                    .withHeaders(Map.of("Location", Locations.of(ns, name))));
  }

  /** An Arrow schema given as a JSON object, as text; null when absent or null. */
  private static String schemaText(com.fasterxml.jackson.databind.JsonNode n, String field) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw ApiException.invalid(
          field + " must be an Arrow schema object {\"fields\":[...]} field=" + field);
    }
    return new String(Json.bytes(n), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** {@code GET …/streams/{s}/schemas}: every schema version, version 1 first. */
  private CompletableFuture<HttpReply> schemas(Request r) {
    return ctx.log()
        .streamSchemas(r.var("ns"), r.var("s"))
        .thenApply(
            versions -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("versions");
              for (int i = 0; i < versions.size(); i++) {
                ObjectNode v = a.addObject();
                v.put("version", i + 1);
                try {
                  v.set("schema", Json.MAPPER.readTree(versions.get(i)));
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              }
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  /** {@code POST …/streams/{s}/schemas}: the body is the next schema version. */
  private CompletableFuture<HttpReply> addSchema(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    String schema = schemaText(r.body(), "body");
    return ctx.log()
        .addStreamSchema(ns, stream, schema)
        .thenApply(
            version -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("version", version);
              return HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> list(Request r) {
    return ctx.log()
        .listStreams(r.var("ns"))
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("streams");
              list.forEach(d -> a.add(JsonViews.describe(d)));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> describe(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    return ctx.log()
        .describeStream(ns, stream)
        .thenCombine(
            ctx.log().streamOwner(ns, stream),
            (d, o) -> {
              ObjectNode body = JsonViews.describe(d);
              body.set("owner", JsonViews.owner(o));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(body));
            });
  }

  /**
   * {@code PATCH …/streams/{s}}: a merge patch of the retention and cleanup policy. The partition
   * count (grown by {@code POST …/partitions}), the durability class and the name cannot change:
   * naming them is a 400 naming the field.
   */
  private CompletableFuture<HttpReply> update(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    ObjectNode b = r.body();
    for (String fixed : List.of("partitions", "class", "name")) {
      if (b.has(fixed)) {
        throw ApiException.invalid(
            fixed
                + " cannot be changed by PATCH"
                + (fixed.equals("partitions")
                    ? "; grow a stream with POST " + Locations.of(ns, stream) + "/partitions"
                    : "")
                + " field="
                + fixed);
      }
    }
    Json.onlyFields(b, "", STREAM_UPDATE_FIELDS);
    if (b.isEmpty()) {
      throw ApiException.invalid(
          "the patch names no field; allowed: "
              + String.join(", ", STREAM_UPDATE_FIELDS.stream().sorted().toList()));
    }
    StreamUpdate u = StreamUpdate.none();
    if (b.hasNonNull("retention_ms")) {
      u = u.withRetentionMillis(retention(b, "retention_ms"));
    }
    if (b.hasNonNull("retention_bytes")) {
      u = u.withRetentionBytes(retention(b, "retention_bytes"));
    }
    String cleanup = Json.optString(b, "cleanup_policy", "");
    if (cleanup != null) {
      u = u.withCompacted(cleanupCompacted(cleanup));
    }
    if (u.isEmpty()) {
      throw ApiException.invalid("the patch sets no field to a value (null is not a value)");
    }
    return ctx.log()
        .updateStream(ns, stream, u)
        .thenApply(d -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(JsonViews.describe(d))));
  }

  /** A retention value: -1 (unlimited) or positive; 0 and other negatives are refused. */
  private static long retention(ObjectNode b, String field) {
    long v = Json.optLong(b, field, "", -1, -1, Long.MAX_VALUE);
    if (v == 0) {
      throw ApiException.invalid(field + " must be -1 (unlimited) or > 0, got " + field + "=0");
    }
    return v;
  }

  private static boolean cleanupCompacted(String cleanup) {
    if (cleanup.equals("delete")) {
      return false;
    }
    if (cleanup.equals("compact")) {
      return true;
    }
    throw ApiException.invalid(
        "cleanup_policy must be \"delete\" or \"compact\", got cleanup_policy=" + cleanup);
  }

  private CompletableFuture<HttpReply> delete(Request r) {
    return ctx.log().deleteStream(r.var("ns"), r.var("s")).thenApply(v -> HttpReply.noContent());
  }

  /** {@code POST …/streams/{s}/partitions {"count": N}}: N is the new total partition count. */
  private CompletableFuture<HttpReply> addPartitions(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", Set.of("count"));
    if (!b.hasNonNull("count")) {
      throw ApiException.invalid("missing field count (the new total partition count)");
    }
    int count = (int) Json.optLong(b, "count", "", 0, 1, MAX_PARTITIONS);
    return ctx.log()
        .addPartitions(r.var("ns"), r.var("s"), count)
        .thenApply(d -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(JsonViews.describe(d))));
  }
}
