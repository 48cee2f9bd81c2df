package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.JsonViews;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import dev.loam.http.internal.Router;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Named consumers (docs/reference/http-api.md "Named consumers"): a stream's or a partition's
 * state, taking a lease, committing an offset.
 */
public final class ConsumerRoutes {
  /**
   * Every consumer path refused before its call starts is counted as {@code consumer}, as the route
   * labels of docs/reference/http-api.md "Metrics" say; and the consumer routes take no query
   * parameters, refused as soon as the path names a stream, before the rest of it is read.
   */
  public static final List<Router.Group> GROUPS =
      List.of(
          new Router.Group("/v1/namespaces/{ns}/consumers", "consumer", null),
          new Router.Group("/v1/namespaces/{ns}/consumers/{c}/streams/{s}", "consumer", Set.of()));

  /**
   * The lease a consumer gets when it names none (docs/reference/http-api.md "Named consumers").
   */
  static final long DEFAULT_LEASE_MILLIS = 30_000;

  /** The longest lease (the metastore's limit, AcquireConsumerLease.MAX_LEASE_MILLIS). */
  static final long MAX_LEASE_MILLIS = 3_600_000;

  private static final Set<String> LEASE_FIELDS = Set.of("holder", "lease_ms");
  private static final Set<String> COMMIT_FIELDS = Set.of("generation", "offset");

  private static final String STREAM = "/v1/namespaces/{ns}/consumers/{c}/streams/{s}";
  private static final String PARTITION = STREAM + "/partitions/{p}";

  private final ApiContext ctx;

  public ConsumerRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(GET, STREAM, "consumer_get_all", this::getAll),
        Route.of(GET, PARTITION, "consumer_get", this::get),
        Route.of(POST, PARTITION + "/lease", "consumer_lease", this::lease).write(),
        Route.of(POST, PARTITION + "/offset", "consumer_commit", this::commit).write());
  }

  private CompletableFuture<HttpReply> getAll(Request r) {
    String ns = r.var("ns");
    String consumer = r.var("c");
    String stream = r.var("s");
    return ctx.log()
        .consumerStates(ns, consumer, stream)
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("namespace", ns);
              o.put("consumer", consumer);
              o.put("stream", stream);
              ArrayNode a = o.putArray("partitions");
              list.forEach(st -> a.add(JsonViews.consumer(st)));
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> get(Request r) {
    String ns = r.var("ns");
    String consumer = r.var("c");
    String stream = r.var("s");
    int p = r.partition();
    return ctx.log()
        .consumerState(ns, consumer, stream, p)
        .thenApply(
            st ->
                HttpReply.json(
                    HttpResponseStatus.OK,
                    Json.bytes(
                        st.map(JsonViews::consumer)
                            .orElseGet(() -> JsonViews.noConsumer(ns, consumer, stream, p)))));
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
        .acquireConsumerLease(
            r.var("ns"), r.var("c"), r.var("s"), r.partition(), holder, Duration.ofMillis(leaseMs))
        .thenApply(st -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(JsonViews.consumer(st))));
  }

  private CompletableFuture<HttpReply> commit(Request r) {
    ObjectNode b = r.body();
    Json.onlyFields(b, "", COMMIT_FIELDS);
    long generation = Json.optLong(b, "generation", "", Long.MIN_VALUE, 1, Long.MAX_VALUE);
    long offset = Json.optLong(b, "offset", "", Long.MIN_VALUE, 0, Long.MAX_VALUE);
    if (generation == Long.MIN_VALUE) {
      throw ApiException.invalid("missing field generation (from the lease)");
    }
    if (offset == Long.MIN_VALUE) {
      throw ApiException.invalid("missing field offset (the next offset to read)");
    }
    return ctx.log()
        .commitConsumerOffset(
            r.var("ns"), r.var("c"), r.var("s"), r.partition(), generation, offset)
        .thenApply(st -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(JsonViews.consumer(st))));
  }
}
