package dev.loam.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.ConsumerState;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeDescription;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OffsetSpec;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamOwner;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.Json.Encoding;
import dev.loam.wal.DurabilityClass;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The routes of docs/http-api.md. {@link #route} parses and validates the request on the calling
 * (event-loop) thread, starts the asynchronous {@link Log} call and returns at once; nothing here
 * blocks. The request's buffers may be released as soon as {@link #route} returns.
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

  private static final Set<String> STREAM_FIELDS =
      Set.of("name", "partitions", "class", "retention_ms", "retention_bytes", "cleanup_policy");
  private static final Set<String> STREAM_UPDATE_FIELDS =
      Set.of("retention_ms", "retention_bytes", "cleanup_policy");
  private static final Set<String> FETCH_PARAMS =
      Set.of("offset", "max_bytes", "max_wait_ms", "min_token", "encoding");
  private static final Set<String> OFFSET_PARAMS = Set.of("spec", "timestamp");
  private static final Set<String> LEASE_FIELDS = Set.of("holder", "lease_ms");
  private static final Set<String> COMMIT_FIELDS = Set.of("generation", "offset");

  /** The lease a consumer gets when it names none (docs/http-api.md "Named consumers"). */
  static final long DEFAULT_LEASE_MILLIS = 30_000;

  /** The longest lease (the metastore's limit, AcquireConsumerLease.MAX_LEASE_MILLIS). */
  static final long MAX_LEASE_MILLIS = 3_600_000;

  /** Partitions a stream may be created with over HTTP. */
  static final int MAX_PARTITIONS = 10_000;

  private final Log log;
  private final LoamNode node;
  private final HttpMetrics metrics;
  private final Limits limits;
  private final IngestQuotas quotas;

  public Api(Log log, LoamNode node, HttpMetrics metrics, Limits limits) {
    this(log, node, metrics, limits, IngestQuotas.unlimited());
  }

  public Api(Log log, LoamNode node, HttpMetrics metrics, Limits limits, IngestQuotas quotas) {
    this.log = log;
    this.node = node;
    this.metrics = metrics;
    this.limits = limits;
    this.quotas = quotas;
  }

  /** Routes a request; never throws (failures are answered as problem documents). */
  public Call route(FullHttpRequest req) {
    String uri = req.uri();
    Call c = routeRequest(req);
    return new Call(
        c.route(),
        c.reply().exceptionallyCompose(t -> redirectIfNotOwner(t, uri)),
        c.timeoutMillis(),
        c.longPoll(),
        c.write());
  }

  /**
   * An owner-bound request reached a node that does not own the stream: 307 to the owner's
   * advertised address with the same path and query (ownership-and-routing.txt "Routing"), so
   * clients that follow redirects (curl -L, java.net.http with Redirect.NORMAL) resend it there. A
   * 307 keeps the method and body. Without an advertised address the problem document names the
   * owner instead (409 not_owner).
   */
  private static CompletableFuture<HttpReply> redirectIfNotOwner(Throwable t, String uri) {
    Throwable cause = Errors.unwrap(t);
    if (!(cause instanceof NotOwnerException ne) || ne.ownerAddress().isEmpty()) {
      return CompletableFuture.failedFuture(cause);
    }
    String base = ne.ownerAddress();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    if (!base.contains("://")) {
      base = "http://" + base;
    }
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("type", "urn:loam:problem:not_owner");
    body.put("title", HttpResponseStatus.TEMPORARY_REDIRECT.reasonPhrase());
    body.put("status", 307);
    body.put("detail", ne.getMessage());
    body.put("code", "not_owner");
    body.put("owner", ne.ownerNodeId());
    body.put("owner_address", ne.ownerAddress());
    return CompletableFuture.completedFuture(
        new HttpReply(
            HttpResponseStatus.TEMPORARY_REDIRECT,
            HttpReply.PROBLEM_JSON,
            Json.bytes(body),
            Map.of("Location", base + uri, "Loam-Owner", ne.ownerNodeId())));
  }

  private Call routeRequest(FullHttpRequest req) {
    String route = "unmatched";
    boolean longPoll = false;
    long timeout = limits.requestTimeoutMillis();
    HttpMethod m = req.method();
    QueryStringDecoder q;
    List<String> seg;
    try {
      q = new QueryStringDecoder(req.uri());
      seg = segments(q.rawPath());
    } catch (RuntimeException e) {
      return failed("unmatched", ApiException.invalid("malformed request target: " + req.uri()));
    }
    try {
      int n = seg.size();
      if (n == 1 && seg.get(0).equals("metrics")) {
        route = "metrics";
        allow(m, "GET");
        return done(route, metrics());
      }
      if (n < 2 || !seg.get(0).equals("v1")) {
        throw notFoundRoute(q.rawPath());
      }
      String top = seg.get(1);
      if (n == 2 && top.equals("health")) {
        route = "health";
        allow(m, "GET");
        return new Call(route, health(), timeout, false, false);
      }
      if (n == 2 && top.equals("producers")) {
        route = "producer_allocate";
        allow(m, "POST");
        noParams(q);
        return new Call(route, allocateProducer(req), timeout, false, true);
      }
      if (n == 3 && top.equals("cluster") && seg.get(2).equals("nodes")) {
        route = "cluster_nodes";
        allow(m, "GET");
        onlyParams(q, Set.of("zone"));
        return new Call(route, nodes(param(q, "zone")), timeout, false, false);
      }
      if (n == 5
          && top.equals("admin")
          && seg.get(2).equals("nodes")
          && seg.get(4).equals("slots")) {
        route = "admin_node_slots";
        allow(m, "PUT");
        noParams(q);
        return new Call(route, setSlots(seg.get(3), req), timeout, false, false);
      }
      if (n == 6
          && top.equals("admin")
          && seg.get(2).equals("streams")
          && seg.get(5).equals("transfer")) {
        route = "admin_stream_transfer";
        allow(m, "POST");
        onlyParams(q, Set.of("to"));
        String to = param(q, "to");
        if (to == null || to.isEmpty()) {
          throw ApiException.invalid("a transfer names its target: ?to=<node id>");
        }
        return new Call(
            route,
            log.transferStream(seg.get(3), seg.get(4), to)
                .thenApply(o -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(ownerJson(o)))),
            timeout,
            false,
            false);
      }
      if (!top.equals("namespaces")) {
        throw notFoundRoute(q.rawPath());
      }
      if (n == 2) {
        allow(m, "GET, POST");
        if (m.equals(HttpMethod.POST)) {
          route = "namespace_create";
          return new Call(route, createNamespace(req), timeout, false, false);
        }
        route = "namespace_list";
        noParams(q);
        return new Call(route, listNamespaces(), timeout, false, false);
      }
      String ns = seg.get(2);
      if (n == 3) {
        allow(m, "GET, DELETE");
        noParams(q);
        if (m.equals(HttpMethod.DELETE)) {
          route = "namespace_delete";
          return new Call(
              route,
              log.deleteNamespace(ns).thenApply(v -> HttpReply.noContent()),
              timeout,
              false,
              false);
        }
        route = "namespace_get";
        return new Call(route, getNamespace(ns), timeout, false, false);
      }
      if (seg.get(3).equals("consumers")) {
        route = "consumer";
        return consumerRoute(req, q, seg, ns, timeout);
      }
      if (!seg.get(3).equals("streams")) {
        throw notFoundRoute(q.rawPath());
      }
      if (n == 4) {
        allow(m, "GET, POST");
        if (m.equals(HttpMethod.POST)) {
          route = "stream_create";
          return new Call(route, createStream(ns, req), timeout, false, false);
        }
        route = "stream_list";
        noParams(q);
        return new Call(route, listStreams(ns), timeout, false, false);
      }
      String stream = seg.get(4);
      if (n == 5) {
        allow(m, "GET, PATCH, DELETE");
        noParams(q);
        if (m.equals(HttpMethod.PATCH)) {
          route = "stream_update";
          return new Call(route, updateStream(ns, stream, req), timeout, false, false);
        }
        if (m.equals(HttpMethod.DELETE)) {
          route = "stream_delete";
          return new Call(
              route,
              log.deleteStream(ns, stream).thenApply(v -> HttpReply.noContent()),
              timeout,
              false,
              false);
        }
        route = "stream_describe";
        return new Call(
            route,
            log.describeStream(ns, stream)
                .thenCombine(
                    log.streamOwner(ns, stream),
                    (d, o) -> {
                      ObjectNode body = describe(d);
                      body.set("owner", ownerJson(o));
                      return HttpReply.json(HttpResponseStatus.OK, Json.bytes(body));
                    }),
            timeout,
            false,
            false);
      }
      if (n == 6 && seg.get(5).equals("partitions")) {
        route = "stream_add_partitions";
        allow(m, "POST");
        noParams(q);
        return new Call(route, addPartitions(ns, stream, req), timeout, false, false);
      }
      if (n == 6 && seg.get(5).equals("records")) {
        route = "produce";
        allow(m, "POST");
        return new Call(route, produce(ns, stream, req), timeout, false, true);
      }
      if (n == 8 && seg.get(5).equals("partitions")) {
        int p = partition(seg.get(6));
        if (seg.get(7).equals("records")) {
          route = "fetch";
          allow(m, "GET");
          FetchParams f = fetchParams(q);
          longPoll = f.maxWaitMillis() > 0 || f.token().isPresent();
          if (longPoll && metrics.longPolls.incrementAndGet() > limits.maxLongPolls()) {
            metrics.longPolls.decrementAndGet();
            longPoll = false;
            throw new ApiException(
                HttpResponseStatus.SERVICE_UNAVAILABLE,
                "too_many_long_polls",
                Kind.UNAVAILABLE,
                "too many long-polls in flight maxLongPolls=" + limits.maxLongPolls());
          }
          return new Call(
              route, fetch(ns, stream, p, f), timeout + f.maxWaitMillis(), longPoll, false);
        }
        if (seg.get(7).equals("offsets")) {
          route = "offsets";
          allow(m, "GET");
          return new Call(route, offsets(ns, stream, p, q), timeout, false, false);
        }
      }
      throw notFoundRoute(q.rawPath());
    } catch (RuntimeException e) {
      if (longPoll) {
        metrics.longPolls.decrementAndGet();
      }
      return failed(route, e);
    }
  }

  /**
   * {@code /v1/namespaces/{ns}/consumers/{c}/streams/{s}[/partitions/{p}[/lease|/offset]]}; a
   * failure is thrown and answered by {@link #route} under the route name it has reached.
   */
  private Call consumerRoute(
      FullHttpRequest req, QueryStringDecoder q, List<String> seg, String ns, long timeout) {
    int n = seg.size();
    HttpMethod m = req.method();
    if (n < 7 || !seg.get(5).equals("streams")) {
      throw notFoundRoute(q.rawPath());
    }
    String consumer = seg.get(4);
    String stream = seg.get(6);
    noParams(q);
    if (n == 7) {
      allow(m, "GET");
      return new Call(
          "consumer_get_all",
          log.consumerStates(ns, consumer, stream)
              .thenApply(
                  list -> {
                    ObjectNode o = Json.MAPPER.createObjectNode();
                    o.put("namespace", ns);
                    o.put("consumer", consumer);
                    o.put("stream", stream);
                    ArrayNode a = o.putArray("partitions");
                    list.forEach(st -> a.add(consumerJson(st)));
                    return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
                  }),
          timeout,
          false,
          false);
    }
    if (!seg.get(7).equals("partitions") || n < 9 || n > 10) {
      throw notFoundRoute(q.rawPath());
    }
    int p = partition(seg.get(8));
    if (n == 9) {
      allow(m, "GET");
      return new Call(
          "consumer_get",
          log.consumerState(ns, consumer, stream, p)
              .thenApply(
                  st ->
                      HttpReply.json(
                          HttpResponseStatus.OK,
                          Json.bytes(
                              st.map(Api::consumerJson)
                                  .orElseGet(() -> noConsumerJson(ns, consumer, stream, p))))),
          timeout,
          false,
          false);
    }
    String leaf = seg.get(9);
    if (leaf.equals("lease")) {
      allow(m, "POST");
      ObjectNode b = body(req);
      Json.onlyFields(b, "", LEASE_FIELDS);
      String holder = Json.optString(b, "holder", "");
      if (holder == null || holder.isEmpty()) {
        throw ApiException.invalid("missing field holder (who takes the lease; 1..249 characters)");
      }
      long leaseMs = Json.optLong(b, "lease_ms", "", DEFAULT_LEASE_MILLIS, 1, MAX_LEASE_MILLIS);
      return new Call(
          "consumer_lease",
          log.acquireConsumerLease(ns, consumer, stream, p, holder, Duration.ofMillis(leaseMs))
              .thenApply(st -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(consumerJson(st)))),
          timeout,
          false,
          true);
    }
    if (leaf.equals("offset")) {
      allow(m, "POST");
      ObjectNode b = body(req);
      Json.onlyFields(b, "", COMMIT_FIELDS);
      long generation = Json.optLong(b, "generation", "", Long.MIN_VALUE, 1, Long.MAX_VALUE);
      long offset = Json.optLong(b, "offset", "", Long.MIN_VALUE, 0, Long.MAX_VALUE);
      if (generation == Long.MIN_VALUE) {
        throw ApiException.invalid("missing field generation (from the lease)");
      }
      if (offset == Long.MIN_VALUE) {
        throw ApiException.invalid("missing field offset (the next offset to read)");
      }
      return new Call(
          "consumer_commit",
          log.commitConsumerOffset(ns, consumer, stream, p, generation, offset)
              .thenApply(st -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(consumerJson(st)))),
          timeout,
          false,
          true);
    }
    throw notFoundRoute(q.rawPath());
  }

  static ObjectNode consumerJson(ConsumerState st) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", st.namespace());
    o.put("consumer", st.consumer());
    o.put("stream", st.stream());
    o.put("partition", st.partition());
    o.put("generation", st.generation());
    o.put("holder", st.holder());
    o.put("lease_expires_at_ms", st.leaseExpiresAtMillis());
    if (st.committedOffset().isPresent()) {
      o.put("committed_offset", st.committedOffset().getAsLong());
    } else {
      o.putNull("committed_offset");
    }
    return o;
  }

  private static ObjectNode noConsumerJson(String ns, String consumer, String stream, int p) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", ns);
    o.put("consumer", consumer);
    o.put("stream", stream);
    o.put("partition", p);
    o.put("generation", 0);
    o.putNull("holder");
    o.putNull("lease_expires_at_ms");
    o.putNull("committed_offset");
    return o;
  }

  private CompletableFuture<HttpReply> allocateProducer(FullHttpRequest req) {
    if (req.content().isReadable()) {
      Json.onlyFields(body(req), "", Set.of());
    }
    return log.allocateProducerId()
        .thenApply(
            id -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("producer_id", id.producerId());
              o.put("producer_epoch", id.producerEpoch());
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private static ObjectNode ownerJson(StreamOwner o) {
    ObjectNode j = Json.MAPPER.createObjectNode();
    j.put("state", o.state());
    j.put("node_id", o.ownerNodeId());
    j.put("address", o.ownerAddress());
    j.put("stream_epoch", o.streamEpoch());
    j.put("transfer_target", o.transferTarget());
    return j;
  }

  /** {@code PUT /v1/admin/nodes/{id}/slots} {@code {"slots":n}}. */
  private CompletableFuture<HttpReply> setSlots(String node, FullHttpRequest req) {
    ObjectNode body = body(req);
    Json.onlyFields(body, "", Set.of("slots"));
    JsonNode slots = body.get("slots");
    if (slots == null || !slots.isIntegralNumber() || !slots.canConvertToInt()) {
      throw ApiException.invalid("slots must be an integer field=slots");
    }
    return log.setNodeSlots(node, slots.intValue())
        .thenApply(
            d -> {
              ObjectNode no = Json.MAPPER.createObjectNode();
              no.put("node_id", d.nodeId());
              no.put("epoch", d.epoch());
              no.put("address", d.advertisedAddress());
              no.put("zone", d.zone());
              no.put("slots", d.slots());
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(no));
            });
  }

  private CompletableFuture<HttpReply> nodes(String zone) {
    return log.listNodes(Optional.ofNullable(zone))
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("nodes");
              for (NodeDescription d : list) {
                ObjectNode no = a.addObject();
                no.put("node_id", d.nodeId());
                no.put("epoch", d.epoch());
                no.put("address", d.advertisedAddress());
                no.put("zone", d.zone());
                no.put("slots", d.slots());
              }
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private static Call done(String route, HttpReply r) {
    return new Call(route, CompletableFuture.completedFuture(r), 0, false, false);
  }

  private Call failed(String route, RuntimeException e) {
    return new Call(route, CompletableFuture.failedFuture(e), 0, false, false);
  }

  private static List<String> segments(String rawPath) {
    List<String> out = new ArrayList<>();
    for (String s : rawPath.split("/")) {
      if (!s.isEmpty()) {
        out.add(QueryStringDecoder.decodeComponent(s, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static ApiException notFoundRoute(String path) {
    return new ApiException(
        HttpResponseStatus.NOT_FOUND,
        "route_not_found",
        Kind.NOT_FOUND,
        "no such route path=" + path);
  }

  private static void allow(HttpMethod m, String allowed) {
    for (String a : allowed.split(", ")) {
      if (m.name().equals(a)) {
        return;
      }
    }
    throw new ApiException(
        HttpResponseStatus.METHOD_NOT_ALLOWED,
        "method_not_allowed",
        Kind.INVALID,
        "method not allowed method=" + m.name() + " allowed=" + allowed,
        Map.of("allow", allowed));
  }

  private static void noParams(QueryStringDecoder q) {
    onlyParams(q, Set.of());
  }

  private static void onlyParams(QueryStringDecoder q, Set<String> allowed) {
    for (Map.Entry<String, List<String>> e : q.parameters().entrySet()) {
      if (!allowed.contains(e.getKey())) {
        throw ApiException.invalid(
            "unknown query parameter "
                + e.getKey()
                + (allowed.isEmpty()
                    ? "; this route takes none"
                    : "; allowed: " + String.join(", ", allowed.stream().sorted().toList())));
      }
      if (e.getValue().size() > 1) {
        throw ApiException.invalid("query parameter " + e.getKey() + " is given more than once");
      }
    }
  }

  private static String param(QueryStringDecoder q, String name) {
    List<String> v = q.parameters().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  private static long longParam(QueryStringDecoder q, String name, long dflt, long min, long max) {
    String s = param(q, name);
    if (s == null) {
      if (dflt == Long.MIN_VALUE) {
        throw ApiException.invalid("missing query parameter " + name);
      }
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw ApiException.invalid(
          "query parameter " + name + " must be an integer, got " + name + "=" + s);
    }
    if (v < min || v > max) {
      throw ApiException.invalid(
          "query parameter "
              + name
              + " must be in ["
              + min
              + ", "
              + max
              + "], got "
              + name
              + "="
              + v);
    }
    return v;
  }

  private static int partition(String s) {
    try {
      int p = Integer.parseInt(s);
      if (p >= 0) {
        return p;
      }
    } catch (NumberFormatException e) {
      // Fall through to the error below.
    }
    throw ApiException.invalid("partition must be a non-negative integer, got partition=" + s);
  }

  private static void requireJson(FullHttpRequest req) {
    String ct = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
    if (ct == null) {
      return; // Lenient: a body without a declared type is read as JSON.
    }
    String base = ct.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    if (!base.equals("application/json") && !base.endsWith("+json")) {
      throw new ApiException(
          HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
          "unsupported_media_type",
          Kind.INVALID,
          "the body must be application/json, got content-type=" + ct);
    }
  }

  private static ObjectNode body(FullHttpRequest req) {
    requireJson(req);
    byte[] b = new byte[req.content().readableBytes()];
    req.content().getBytes(req.content().readerIndex(), b);
    return Json.parseObject(b);
  }

  private static String path(String... segments) {
    StringBuilder b = new StringBuilder("/v1/namespaces");
    for (int i = 0; i < segments.length; i++) {
      b.append('/')
          .append(URLEncoder.encode(segments[i], StandardCharsets.UTF_8).replace("+", "%20"));
      if (i == 0 && segments.length > 1) {
        b.append("/streams");
      }
    }
    return b.toString();
  }

  // ------------------------------------------------------------------ health and metrics

  private CompletableFuture<HttpReply> health() {
    // A read of the local metastore replica proves the node answers; it does not block.
    return log.listNamespaces()
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

  private HttpReply metrics() {
    byte[] text =
        metrics
            .render(
                node == null ? null : node.writerStats(), node == null ? null : node.readStats())
            .getBytes(StandardCharsets.UTF_8);
    return new HttpReply(
        HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8", text, Map.of());
  }

  // ------------------------------------------------------------------ namespaces

  private CompletableFuture<HttpReply> createNamespace(FullHttpRequest req) {
    ObjectNode b = body(req);
    Json.onlyFields(b, "", Set.of("name"));
    String name = Json.optString(b, "name", "");
    if (name == null) {
      throw ApiException.invalid("missing field name");
    }
    return log.createNamespace(name)
        .thenApply(
            v -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("name", name);
              return HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(o))
                  .withHeaders(Map.of("Location", path(name)));
            });
  }

  private CompletableFuture<HttpReply> listNamespaces() {
    return log.listNamespaces()
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("namespaces");
              list.forEach(a::add);
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> getNamespace(String ns) {
    return log.listStreams(ns)
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("name", ns);
              ArrayNode a = o.putArray("streams");
              list.forEach(d -> a.add(d.name()));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  // ------------------------------------------------------------------ streams

  private CompletableFuture<HttpReply> createStream(String ns, FullHttpRequest req) {
    ObjectNode b = body(req);
    Json.onlyFields(b, "", STREAM_FIELDS);
    String name = Json.optString(b, "name", "");
    if (name == null) {
      throw ApiException.invalid("missing field name");
    }
    int partitions = (int) Json.optLong(b, "partitions", "", 1, 1, MAX_PARTITIONS);
    String cls = Json.optString(b, "class", "");
    DurabilityClass dc = DurabilityClass.STANDARD;
    if (cls != null) {
      try {
        dc = DurabilityClass.fromWireName(cls);
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
    StreamSpec spec = new StreamSpec(partitions, dc, retentionMs, retentionBytes, compacted);
    return log.createStream(ns, name, spec)
        .thenApply(
            d ->
                HttpReply.json(HttpResponseStatus.CREATED, Json.bytes(describe(d)))
                    .withHeaders(Map.of("Location", path(ns, name))));
  }

  /**
   * {@code PATCH …/streams/{s}}: a merge patch of the retention and cleanup policy. The partition
   * count (grown by {@code POST …/partitions}), the durability class and the name cannot change:
   * naming them is a 400 naming the field.
   */
  private CompletableFuture<HttpReply> updateStream(String ns, String stream, FullHttpRequest req) {
    ObjectNode b = body(req);
    for (String fixed : List.of("partitions", "class", "name")) {
      if (b.has(fixed)) {
        throw ApiException.invalid(
            fixed
                + " cannot be changed by PATCH"
                + (fixed.equals("partitions")
                    ? "; grow a stream with POST " + path(ns, stream) + "/partitions"
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
    return log.updateStream(ns, stream, u)
        .thenApply(d -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(describe(d))));
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

  /** {@code POST …/streams/{s}/partitions {"count": N}}: N is the new total partition count. */
  private CompletableFuture<HttpReply> addPartitions(
      String ns, String stream, FullHttpRequest req) {
    ObjectNode b = body(req);
    Json.onlyFields(b, "", Set.of("count"));
    if (!b.hasNonNull("count")) {
      throw ApiException.invalid("missing field count (the new total partition count)");
    }
    int count = (int) Json.optLong(b, "count", "", 0, 1, MAX_PARTITIONS);
    return log.addPartitions(ns, stream, count)
        .thenApply(d -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(describe(d))));
  }

  private CompletableFuture<HttpReply> listStreams(String ns) {
    return log.listStreams(ns)
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("streams");
              list.forEach(d -> a.add(describe(d)));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  static ObjectNode describe(StreamDescription d) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", d.namespace());
    o.put("name", d.name());
    o.put("id", d.id());
    o.put("partitions", d.spec().partitions());
    o.put("class", d.spec().durabilityClass().wireName());
    o.put("retention_ms", d.spec().retentionMillis());
    o.put("retention_bytes", d.spec().retentionBytes());
    o.put("cleanup_policy", d.spec().compacted() ? "compact" : "delete");
    ArrayNode a = o.putArray("partition_bounds");
    for (StreamDescription.PartitionBounds p : d.partitions()) {
      ObjectNode po = a.addObject();
      po.put("partition", p.partition());
      po.put("log_start_offset", p.logStartOffset());
      po.put("high_watermark", p.highWatermark());
    }
    return o;
  }

  // ------------------------------------------------------------------ produce

  private CompletableFuture<HttpReply> produce(String ns, String stream, FullHttpRequest req) {
    requireJson(req);
    ProduceBody body = ProduceBody.parse(req.content());
    List<AppendRecord> records = body.records();
    ProducerIdentity producer = body.producer();
    long quotaBytes = body.quotaBytes();
    // Charged once the request is valid and before anything is appended: over the quota it is 429
    // and nothing is stored (docs/http-api.md "Ingest quota").
    quotas.charge(ns, quotaBytes);
    long produced = body.bytes();
    CompletableFuture<AppendResult> f =
        producer == null
            ? log.append(ns, stream, records)
            : log.append(ns, stream, records, producer);
    return f.thenApply(
        res -> {
          metrics.producedRecords.add(res.positions().size());
          metrics.producedBytes.add(produced);
          ObjectNode o = Json.MAPPER.createObjectNode();
          ArrayNode a = o.putArray("records");
          for (AppendResult.RecordPosition pos : res.positions()) {
            ObjectNode po = a.addObject();
            po.put("partition", pos.partition());
            po.put("offset", pos.offset());
          }
          o.put("token", Long.toString(res.consistencyToken()));
          o.put("duplicate", res.duplicate());
          return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
        });
  }

  // ------------------------------------------------------------------ fetch and offsets

  private record FetchParams(
      long offset, int maxBytes, long maxWaitMillis, OptionalLong token, Encoding encoding) {}

  private FetchParams fetchParams(QueryStringDecoder q) {
    onlyParams(q, FETCH_PARAMS);
    long offset = longParam(q, "offset", Long.MIN_VALUE, 0, Long.MAX_VALUE);
    int maxBytes =
        (int) longParam(q, "max_bytes", limits.defaultFetchBytes(), 1, limits.maxFetchBytes());
    long wait = longParam(q, "max_wait_ms", 0, 0, limits.maxFetchWaitMillis());
    String tok = param(q, "min_token");
    OptionalLong token = OptionalLong.empty();
    if (tok != null) {
      token = OptionalLong.of(longParam(q, "min_token", 0, 0, Long.MAX_VALUE));
    }
    Encoding enc = Encoding.parse(param(q, "encoding"), "encoding", Encoding.UTF8);
    return new FetchParams(offset, maxBytes, wait, token, enc);
  }

  private CompletableFuture<HttpReply> fetch(String ns, String stream, int p, FetchParams f) {
    return log.fetch(
            ns,
            stream,
            p,
            f.offset(),
            f.maxBytes(),
            Duration.ofMillis(f.maxWaitMillis()),
            f.token())
        .exceptionallyCompose(e -> partitionNotFound(ns, stream, p, e))
        .thenApply(r -> fetchReply(r, f.encoding()));
  }

  private HttpReply fetchReply(FetchResult r, Encoding enc) {
    byte[] body = FetchBody.write(r, enc);
    long bytes = 0;
    for (FetchedRecord rec : r.records()) {
      bytes +=
          (rec.key() == null ? 0 : rec.key().length)
              + (rec.value() == null ? 0 : rec.value().length);
    }
    metrics.fetchedRecords.add(r.records().size());
    metrics.fetchedBytes.add(bytes);
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Loam-Next-Offset", Long.toString(r.nextOffset()));
    h.put("Loam-High-Watermark", Long.toString(r.highWatermark()));
    h.put("Loam-Log-Start-Offset", Long.toString(r.logStartOffset()));
    return HttpReply.json(HttpResponseStatus.OK, body).withHeaders(h);
  }

  private CompletableFuture<HttpReply> offsets(
      String ns, String stream, int p, QueryStringDecoder q) {
    onlyParams(q, OFFSET_PARAMS);
    String spec = param(q, "spec");
    String ts = param(q, "timestamp");
    if (spec == null && ts != null) {
      spec = "timestamp";
    }
    if (spec == null) {
      CompletableFuture<Long> earliest = log.listOffset(ns, stream, p, OffsetSpec.earliest());
      CompletableFuture<Long> latest = log.listOffset(ns, stream, p, OffsetSpec.latest());
      return earliest
          .thenCombine(
              latest,
              (e, l) -> {
                ObjectNode o = Json.MAPPER.createObjectNode();
                o.put("partition", p);
                o.put("earliest", e);
                o.put("latest", l);
                return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
              })
          .exceptionallyCompose(e -> partitionNotFound(ns, stream, p, e));
    }
    OffsetSpec s;
    switch (spec) {
      case "earliest" -> {
        if (ts != null) {
          throw ApiException.invalid("timestamp is only allowed with spec=timestamp");
        }
        s = OffsetSpec.earliest();
      }
      case "latest" -> {
        if (ts != null) {
          throw ApiException.invalid("timestamp is only allowed with spec=timestamp");
        }
        s = OffsetSpec.latest();
      }
      case "timestamp" ->
          s = OffsetSpec.forTimestamp(longParam(q, "timestamp", Long.MIN_VALUE, 0, Long.MAX_VALUE));
      default ->
          throw ApiException.invalid(
              "spec must be \"earliest\", \"latest\" or \"timestamp\", got spec=" + spec);
    }
    String specName = spec;
    return log.listOffset(ns, stream, p, s)
        .thenApply(
            off -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("partition", p);
              o.put("spec", specName);
              if (s instanceof OffsetSpec.ForTimestamp t) {
                o.put("timestamp", t.millis());
              }
              o.put("offset", off);
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            })
        .exceptionallyCompose(e -> partitionNotFound(ns, stream, p, e));
  }

  /**
   * Log reports a partition beyond the stream's count as INVALID; in a URL path it is a resource
   * that does not exist, so the HTTP API answers 404 (issue 6). Only on the error path: one local
   * describe decides.
   */
  private <T> CompletableFuture<T> partitionNotFound(
      String ns, String stream, int p, Throwable failure) {
    Throwable t = Errors.unwrap(failure);
    if (!(t instanceof LoamException le)
        || le.kind() != Kind.INVALID
        || t instanceof OffsetOutOfRangeException) {
      return CompletableFuture.failedFuture(t);
    }
    return log.describeStream(ns, stream)
        .handle(
            (d, e) -> {
              if (d != null && p >= d.spec().partitions()) {
                throw new ApiException(
                    HttpResponseStatus.NOT_FOUND,
                    "not_found",
                    Kind.NOT_FOUND,
                    "partition not found stream="
                        + ns
                        + "/"
                        + stream
                        + " partition="
                        + p
                        + " partitions="
                        + d.spec().partitions());
              }
              throw t instanceof RuntimeException re ? re : new IllegalStateException(t);
            });
  }
}
