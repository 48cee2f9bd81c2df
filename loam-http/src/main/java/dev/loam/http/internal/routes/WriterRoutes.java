package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.ChangelogMode;
import dev.loam.api.FencedAppendResult;
import dev.loam.api.SourceGroup;
import dev.loam.api.WriterLease;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.ProduceBody;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Writer leases and fenced appends (docs/reference/http-api.md "Fenced appends",
 * docs/design/changelog.md): a source's lease and position on a partition, taking the lease, and
 * appending source groups exactly once.
 */
public final class WriterRoutes {
  /** The lease a writer gets when it names none, as for named consumers. */
  static final long DEFAULT_LEASE_MILLIS = 30_000;

  /** The longest lease (the metastore's limit, AcquireWriterLease.MAX_LEASE_MILLIS). */
  static final long MAX_LEASE_MILLIS = 3_600_000;

  private static final Set<String> LEASE_FIELDS = Set.of("holder", "lease_ms");
  private static final Set<String> APPEND_FIELDS =
      Set.of("lease_epoch", "groups", "encoding", "key_encoding", "value_encoding");
  private static final Set<String> GROUP_FIELDS = Set.of("source_from", "source_to", "records");

  private static final String WRITER =
      "/v1/namespaces/{ns}/streams/{s}/partitions/{p}/writers/{source}";

  private final ApiContext ctx;

  public WriterRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, WRITER, "writer_get", this::get),
        Route.of(POST, WRITER + "/lease", "writer_lease", this::lease).write(),
        Route.of(POST, WRITER + "/records", "writer_append", this::append).write(),
        Route.of(
            POST,
            "/v1/namespaces/{ns}/streams/{s}/changelogs",
            "changelog_create",
            this::changelog));
  }

  private static final Set<String> CHANGELOG_FIELDS = Set.of("name", "mode");

  /** Creates a changelog of the compacted stream {@code s} (docs/design/changelog.md). */
  private CompletableFuture<HttpReply> changelog(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", CHANGELOG_FIELDS);
    String name = Json.optString(b, "name", "");
    if (name == null) {
      throw ApiException.invalid("missing field name (the changelog stream's name)");
    }
    String mode = Json.optString(b, "mode", "");
    ChangelogMode m;
    if ("full".equals(mode)) {
      m = ChangelogMode.FULL;
    } else if ("upsert".equals(mode)) {
      m = ChangelogMode.UPSERT;
    } else {
      throw ApiException.invalid("mode must be \"full\" or \"upsert\", got mode=" + mode);
    }
    String ns = r.var("ns");
    return ctx.log()
        .createChangelog(ns, name, r.var("s"), m)
        .thenApply(
            d ->
                HttpReply.json(
                        HttpResponseStatus.CREATED,
                        Json.bytes(dev.loam.http.internal.JsonViews.describe(d)))
                    .withHeaders(java.util.Map.of("Location", Locations.of(ns, name))));
  }

  private CompletableFuture<HttpReply> get(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    String source = r.var("source");
    int p = r.partition();
    return ctx.log()
        .writerLease(ns, stream, p, source)
        .thenApply(
            l ->
                l.map(x -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(view(x))))
                    .orElseThrow(
                        () ->
                            new dev.loam.error.LoamException(
                                dev.loam.error.LoamException.Kind.NOT_FOUND,
                                "no writer lease for the source stream="
                                    + ns
                                    + "/"
                                    + stream
                                    + " partition="
                                    + p
                                    + " source="
                                    + source)));
  }

  private CompletableFuture<HttpReply> lease(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", LEASE_FIELDS);
    String holder = Json.optString(b, "holder", "");
    if (holder == null || holder.isEmpty()) {
      throw ApiException.invalid("missing field holder (who takes the lease; 1..249 characters)");
    }
    long leaseMs = Json.optLong(b, "lease_ms", "", DEFAULT_LEASE_MILLIS, 1, MAX_LEASE_MILLIS);
    return ctx.log()
        .acquireWriterLease(
            r.var("ns"),
            r.var("s"),
            r.partition(),
            r.var("source"),
            holder,
            Duration.ofMillis(leaseMs))
        .thenApply(l -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(view(l))));
  }

  private CompletableFuture<HttpReply> append(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", APPEND_FIELDS);
    long epoch = Json.optLong(b, "lease_epoch", "", Long.MIN_VALUE, 1, Long.MAX_VALUE);
    if (epoch == Long.MIN_VALUE) {
      throw ApiException.invalid("missing field lease_epoch (from the writer lease)");
    }
    JsonNode groupsNode = b.get("groups");
    if (groupsNode == null || !groupsNode.isArray() || groupsNode.isEmpty()) {
      throw ApiException.invalid("missing field groups (a non-empty array of source groups)");
    }
    List<SourceGroup> groups = new ArrayList<>(groupsNode.size());
    long quotaBytes = 0;
    for (int i = 0; i < groupsNode.size(); i++) {
      String path = "groups[" + i + "].";
      JsonNode g = groupsNode.get(i);
      if (!g.isObject()) {
        throw ApiException.invalid(path.substring(0, path.length() - 1) + " must be an object");
      }
      Json.onlyFields(g, path, GROUP_FIELDS);
      long from = Json.optLong(g, "source_from", path, Long.MIN_VALUE, 0, Long.MAX_VALUE);
      long to = Json.optLong(g, "source_to", path, Long.MIN_VALUE, 0, Long.MAX_VALUE);
      if (from == Long.MIN_VALUE || to == Long.MIN_VALUE) {
        throw ApiException.invalid(
            "missing field " + path + "source_from or " + path + "source_to");
      }
      // Each group's records are exactly a produce body's: the same fields, encodings and checks.
      ObjectNode produce = Json.MAPPER.createObjectNode();
      produce.set("records", g.get("records"));
      for (String enc : List.of("encoding", "key_encoding", "value_encoding")) {
        if (b.has(enc)) {
          produce.set(enc, b.get(enc));
        }
      }
      ProduceBody body;
      try {
        body = ProduceBody.parseTree(Unpooled.wrappedBuffer(Json.bytes(produce)));
      } catch (ApiException e) {
        throw ApiException.invalid(path + e.getMessage());
      }
      quotaBytes += body.quotaBytes();
      groups.add(new SourceGroup(from, to, body.records()));
    }
    String ns = r.var("ns");
    // Charged once the body parsed, before anything is buffered (over the quota: 429, nothing
    // stored); a fenced append has no admission step of its own.
    ctx.quotas().charge(ns, quotaBytes);
    return ctx.log()
        .appendFenced(ns, r.var("s"), r.partition(), r.var("source"), epoch, groups)
        .thenApply(res -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(view(res))));
  }

  static ObjectNode view(WriterLease l) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", l.namespace());
    o.put("stream", l.stream());
    o.put("partition", l.partition());
    o.put("source", l.source());
    o.put("epoch", l.epoch());
    o.put("holder", l.holder());
    o.put("lease_expires_at_ms", l.leaseExpiresAtMillis());
    if (l.sourceUpto().isPresent()) {
      o.put("source_upto", l.sourceUpto().getAsLong());
    } else {
      o.putNull("source_upto");
    }
    return o;
  }

  static ObjectNode view(FencedAppendResult res) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    ArrayNode a = o.putArray("groups");
    for (FencedAppendResult.Group g : res.groups()) {
      ObjectNode n = a.addObject();
      n.put("source_from", g.sourceFrom());
      n.put("source_to", g.sourceTo());
      n.put("status", g.status().name().toLowerCase(Locale.ROOT));
      if (g.baseOffset() >= 0) {
        n.put("offset", g.baseOffset());
      } else {
        n.putNull("offset");
      }
    }
    o.put("source_upto", res.sourceUpto());
    o.put("token", Long.toString(res.consistencyToken()));
    return o;
  }
}
