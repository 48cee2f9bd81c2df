package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OffsetSpec;
import dev.loam.api.ProducerIdentity;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.Api;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.Errors;
import dev.loam.http.internal.FetchBody;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Json.Encoding;
import dev.loam.http.internal.Params;
import dev.loam.http.internal.ProduceBody;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** A stream's records: produce, fetch (long-poll) and a partition's offsets. */
public final class RecordRoutes {
  private static final String PARTITION = "/v1/namespaces/{ns}/streams/{s}/partitions/{p}";

  private final ApiContext ctx;

  public RecordRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        // The produce body carries everything; the query has never been read.
        Route.of(POST, "/v1/namespaces/{ns}/streams/{s}/records", "produce", this::produce)
            .write()
            .anyParams(),
        Route.of(GET, PARTITION + "/records", "fetch", this::fetch)
            .longPoll()
            .params("offset", "max_bytes", "max_wait_ms", "min_token", "encoding", "columns"),
        Route.of(GET, PARTITION + "/offsets", "offsets", this::offsets)
            .params("spec", "timestamp"));
  }

  // ------------------------------------------------------------------ produce

  private CompletableFuture<HttpReply> produce(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    Params.requireJson(r.http());
    ProduceBody body = ProduceBody.parse(r.http().content());
    List<AppendRecord> records = body.records();
    ProducerIdentity producer = body.producer();
    long quotaBytes = body.quotaBytes();
    long produced = body.bytes();
    Log log = ctx.log();
    // Charged as the node's admission step: only once the body and the node's own checks (stream,
    // partitions, size) accepted the request, and before anything is buffered. A request refused
    // with 400 or 404 is never charged; over the quota it is 429 and nothing is stored
    // (docs/reference/http-api.md "Ingest quota").
    CompletableFuture<AppendResult> f =
        log.append(ns, stream, records, producer, () -> ctx.quotas().charge(ns, quotaBytes));
    return f.thenApply(
        res -> {
          ctx.produced(res.positions().size(), produced);
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

  /** {@code columns}: an arrow stream's projected columns, empty when the read is not projected. */
  private record FetchParams(
      long offset,
      int maxBytes,
      long maxWaitMillis,
      OptionalLong token,
      Encoding encoding,
      java.util.List<String> columns) {}

  private FetchParams fetchParams(Request r) {
    Api.Limits limits = ctx.limits();
    long offset = r.longParam("offset", Long.MIN_VALUE, 0, Long.MAX_VALUE);
    int maxBytes =
        (int) r.longParam("max_bytes", limits.defaultFetchBytes(), 1, limits.maxFetchBytes());
    long wait = r.longParam("max_wait_ms", 0, 0, limits.maxFetchWaitMillis());
    String tok = r.param("min_token");
    OptionalLong token = OptionalLong.empty();
    if (tok != null) {
      token = OptionalLong.of(r.longParam("min_token", 0, 0, Long.MAX_VALUE));
    }
    Encoding enc = Encoding.parse(r.param("encoding"), "encoding", Encoding.UTF8);
    String cols = r.param("columns");
    java.util.List<String> columns = java.util.List.of();
    if (cols != null) {
      // columns=a,b: an arrow stream's projected read (docs/reference/arrow.md "Projected reads").
      columns = java.util.List.of(cols.split(",", -1));
      if (token.isPresent()) {
        throw ApiException.invalid(
            "query parameter columns does not take min_token (a projected read does not wait"
                + " for a consistency token)");
      }
    }
    return new FetchParams(offset, maxBytes, wait, token, enc, columns);
  }

  private CompletableFuture<HttpReply> fetch(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    int p = r.partition();
    FetchParams f = fetchParams(r);
    // Only a fetch that may wait holds a long-poll slot; every fetch's timeout covers its wait.
    r.waitUpTo(f.maxWaitMillis(), f.maxWaitMillis() > 0 || f.token().isPresent());
    if (!f.columns().isEmpty()) {
      return ctx.log()
          .fetchColumns(
              ns,
              stream,
              p,
              f.offset(),
              f.maxBytes(),
              Duration.ofMillis(f.maxWaitMillis()),
              f.columns())
          .exceptionallyCompose(e -> partitionNotFound(ns, stream, p, e))
          .thenApply(res -> fetchReply(res, f.encoding()));
    }
    return ctx.log()
        .fetch(
            ns,
            stream,
            p,
            f.offset(),
            f.maxBytes(),
            Duration.ofMillis(f.maxWaitMillis()),
            f.token())
        .exceptionallyCompose(e -> partitionNotFound(ns, stream, p, e))
        .thenApply(res -> fetchReply(res, f.encoding()));
  }

  private HttpReply fetchReply(FetchResult r, Encoding enc) {
    byte[] body = FetchBody.write(r, enc);
    long bytes = 0;
    for (FetchedRecord rec : r.records()) {
      bytes +=
          (rec.key() == null ? 0 : rec.key().length)
              + (rec.value() == null ? 0 : rec.value().length);
    }
    ctx.fetched(r.records().size(), bytes);
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Loam-Next-Offset", Long.toString(r.nextOffset()));
    h.put("Loam-High-Watermark", Long.toString(r.highWatermark()));
    h.put("Loam-Log-Start-Offset", Long.toString(r.logStartOffset()));
    return HttpReply.json(HttpResponseStatus.OK, body).withHeaders(h);
  }

  private CompletableFuture<HttpReply> offsets(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    int p = r.partition();
    Log log = ctx.log();
    String spec = r.param("spec");
    String ts = r.param("timestamp");
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
          s = OffsetSpec.forTimestamp(r.longParam("timestamp", Long.MIN_VALUE, 0, Long.MAX_VALUE));
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
   * that does not exist, so the HTTP API answers 404. Only on the error path: one local describe
   * decides.
   */
  private <T> CompletableFuture<T> partitionNotFound(
      String ns, String stream, int p, Throwable failure) {
    Throwable t = Errors.unwrap(failure);
    if (!(t instanceof LoamException le)
        || le.kind() != Kind.INVALID
        || t instanceof OffsetOutOfRangeException) {
      return CompletableFuture.failedFuture(t);
    }
    return ctx.log()
        .describeStream(ns, stream)
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
