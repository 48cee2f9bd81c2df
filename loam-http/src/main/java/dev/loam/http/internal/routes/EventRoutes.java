package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.StreamDescription;
import dev.loam.cloudevents.CloudEvent;
import dev.loam.cloudevents.CloudEventIngest;
import dev.loam.cloudevents.ContentTypes;
import dev.loam.cloudevents.HttpBinaryMode;
import dev.loam.cloudevents.IngestResult;
import dev.loam.cloudevents.JsonFormat;
import dev.loam.cloudevents.ProtobufFormat;
import dev.loam.cloudevents.RecordLayout;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.Api;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * CloudEvents 1.0 over the native API (docs/reference/cloudevents.md): ingest in structured,
 * batched, protobuf and binary mode, and consume in structured, binary and protobuf mode. The codec
 * and the ingest logic live in loam-cloudevents; this class maps HTTP onto them.
 */
public final class EventRoutes {
  private static final String PARTITION = "/v1/namespaces/{ns}/streams/{s}/partitions/{p}";

  private final ApiContext ctx;

  public EventRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(POST, "/v1/namespaces/{ns}/streams/{s}/events", "events_ingest", this::ingest)
            .write()
            .params("partition"),
        Route.of(GET, PARTITION + "/events", "events_fetch", this::fetch)
            .longPoll()
            .params("offset", "max_bytes", "max_wait_ms", "min_token", "mode"));
  }

  // ------------------------------------------------------------------ ingest

  private CompletableFuture<HttpReply> ingest(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    OptionalInt partition = OptionalInt.empty();
    if (r.param("partition") != null) {
      partition = OptionalInt.of((int) r.longParam("partition", 0, 0, Integer.MAX_VALUE));
    }
    byte[] body = new byte[r.http().content().readableBytes()];
    r.http().content().getBytes(r.http().content().readerIndex(), body);
    List<CloudEvent> events = parse(r, body);
    long bytes = body.length;
    return new CloudEventIngest(ctx.log())
        .ingest(
            ns, stream, events, partition, () -> ctx.quotas().charge(ns, bytes), ctx.dedupWindow())
        .thenApply(res -> reply(res, bytes));
  }

  private static List<CloudEvent> parse(Request r, byte[] body) {
    String ct = r.http().headers().get(HttpHeaderNames.CONTENT_TYPE);
    String media = ct == null ? "" : ContentTypes.mediaType(ct);
    switch (media) {
      case ContentTypes.STRUCTURED_JSON:
        return List.of(JsonFormat.parseEvent(body));
      case ContentTypes.BATCH_JSON:
        return JsonFormat.parseBatch(body);
      case ContentTypes.STRUCTURED_PROTOBUF:
        return List.of(ProtobufFormat.parseEvent(body));
      case ContentTypes.BATCH_PROTOBUF:
        return ProtobufFormat.parseBatch(body);
      default:
        break;
    }
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (Map.Entry<String, String> h : r.http().headers()) {
      headers.add(h);
    }
    if (HttpBinaryMode.isBinaryMode(headers)) {
      return List.of(HttpBinaryMode.parse(headers, body));
    }
    throw new ApiException(
        HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        Kind.INVALID,
        "a CloudEvents request has a ce-specversion header (binary mode) or content-type "
            + ContentTypes.STRUCTURED_JSON
            + ", "
            + ContentTypes.BATCH_JSON
            + ", "
            + ContentTypes.STRUCTURED_PROTOBUF
            + " or "
            + ContentTypes.BATCH_PROTOBUF
            + ", got content-type="
            + ct);
  }

  private HttpReply reply(IngestResult res, long bytes) {
    int appended = 0;
    ObjectNode o = Json.MAPPER.createObjectNode();
    ArrayNode a = o.putArray("events");
    for (IngestResult.EventAnswer e : res.answers()) {
      ObjectNode eo = a.addObject();
      eo.put("status", e.status().name().toLowerCase(Locale.ROOT));
      if (e.status() != IngestResult.Status.IN_FLIGHT) {
        eo.put("partition", e.partition());
        eo.put("offset", e.offset());
      }
      if (e.status() == IngestResult.Status.APPENDED) {
        appended++;
      }
    }
    o.put("token", Long.toString(res.consistencyToken()));
    ctx.produced(appended, appended == 0 ? 0 : bytes);
    if (res.anyInFlight()) {
      // the claim lapses on the metastore clock, which follows the nodes' clocks
      long wait = res.retryAtMillis() - System.currentTimeMillis();
      long seconds = Math.max(1, (wait + 999) / 1000);
      return HttpReply.json(HttpResponseStatus.CONFLICT, Json.bytes(o))
          .withHeaders(Map.of("Retry-After", Long.toString(seconds)));
    }
    return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
  }

  // ------------------------------------------------------------------ consume

  private enum Mode {
    STRUCTURED,
    BINARY,
    PROTOBUF
  }

  private CompletableFuture<HttpReply> fetch(Request r) {
    String ns = r.var("ns");
    String stream = r.var("s");
    int p = r.partition();
    Api.Limits limits = ctx.limits();
    long offset = r.longParam("offset", Long.MIN_VALUE, 0, Long.MAX_VALUE);
    int maxBytes =
        (int) r.longParam("max_bytes", limits.defaultFetchBytes(), 1, limits.maxFetchBytes());
    long wait = r.longParam("max_wait_ms", 0, 0, limits.maxFetchWaitMillis());
    OptionalLong token = OptionalLong.empty();
    if (r.param("min_token") != null) {
      token = OptionalLong.of(r.longParam("min_token", 0, 0, Long.MAX_VALUE));
    }
    String m = r.param("mode");
    Mode mode;
    if (m == null || m.equals("structured")) {
      mode = Mode.STRUCTURED;
    } else if (m.equals("binary")) {
      mode = Mode.BINARY;
    } else if (m.equals("protobuf")) {
      mode = Mode.PROTOBUF;
    } else {
      throw ApiException.invalid(
          "mode must be \"structured\", \"binary\" or \"protobuf\", got mode=" + m);
    }
    OptionalLong minToken = token;
    r.waitUpTo(wait, wait > 0 || token.isPresent());
    return ctx.log()
        .describeStream(ns, stream)
        .thenCompose(
            d -> {
              if (p >= d.spec().partitions()) {
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
              return ctx.log()
                  .fetch(ns, stream, p, offset, maxBytes, Duration.ofMillis(wait), minToken)
                  .thenApply(res -> fetchReply(d, p, offset, res, mode));
            });
  }

  private HttpReply fetchReply(
      StreamDescription d, int p, long offset, FetchResult res, Mode mode) {
    RecordLayout.Origin origin = new RecordLayout.Origin(d.id(), d.namespace(), d.name(), p);
    List<FetchedRecord> records = res.records();
    if (mode == Mode.BINARY) {
      if (records.isEmpty()) {
        return HttpReply.noContent();
      }
      FetchedRecord rec = records.get(0);
      CloudEvent e = RecordLayout.fromRecord(rec, origin).event();
      ctx.fetched(1, size(rec));
      Map<String, String> h = new LinkedHashMap<>();
      String ct = null;
      for (Map.Entry<String, String> x : HttpBinaryMode.headers(e)) {
        if (x.getKey().equals("content-type")) {
          ct = x.getValue();
        } else {
          h.put(x.getKey(), x.getValue());
        }
      }
      h.put("Loam-Offset", Long.toString(rec.offset()));
      h.put("Loam-Next-Offset", Long.toString(rec.offset() + 1));
      byte[] body = e.hasData() ? e.data() : new byte[0];
      return new HttpReply(HttpResponseStatus.OK, ct, body, h);
    }
    List<CloudEvent> events = new ArrayList<>(records.size());
    List<byte[]> raw = new ArrayList<>(records.size());
    long bytes = 0;
    for (FetchedRecord rec : records) {
      RecordLayout.ReadEvent e = RecordLayout.fromRecord(rec, origin);
      events.add(e.event());
      raw.add(e.rawJson());
      bytes += size(rec);
    }
    ctx.fetched(records.size(), bytes);
    byte[] body;
    String ct;
    if (mode == Mode.PROTOBUF) {
      body = ProtobufFormat.writeBatch(events);
      ct = ContentTypes.BATCH_PROTOBUF;
    } else {
      body = JsonFormat.writeBatch(events, raw);
      ct = ContentTypes.BATCH_JSON;
    }
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Loam-Next-Offset", Long.toString(res.nextOffset()));
    h.put("Loam-High-Watermark", Long.toString(res.highWatermark()));
    h.put("Loam-Log-Start-Offset", Long.toString(res.logStartOffset()));
    return new HttpReply(HttpResponseStatus.OK, ct, body, h);
  }

  private static long size(FetchedRecord r) {
    return (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
  }
}
