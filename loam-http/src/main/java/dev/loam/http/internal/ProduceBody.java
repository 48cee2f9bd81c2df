package dev.loam.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.Header;
import dev.loam.api.ProducerIdentity;
import dev.loam.http.internal.Json.Encoding;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A parsed and validated produce body ({@code POST .../records}, docs/http-api.md "Produce"): the
 * records to append, their key+value bytes (the produced-bytes metric), the bytes the ingest quota
 * charges (keys, values, header names and values) and the optional producer identity.
 *
 * <p>Public so that loam-bench can measure the exact entry point the server uses; not an API.
 */
public record ProduceBody(
    List<AppendRecord> records, long bytes, long quotaBytes, ProducerIdentity producer) {

  static final Set<String> RECORD_FIELDS =
      Set.of("key", "value", "headers", "timestamp", "partition");
  static final Set<String> PRODUCE_FIELDS =
      Set.of(
          "records",
          "encoding",
          "key_encoding",
          "value_encoding",
          "producer_id",
          "producer_epoch",
          "sequence");

  /**
   * Parses a request body as the produce route does; invalid bodies throw {@link ApiException}.
   */
  public static ProduceBody parse(ByteBuf content) {
    return parseTree(bytes(content));
  }

  static byte[] bytes(ByteBuf content) {
    byte[] b = new byte[content.readableBytes()];
    content.getBytes(content.readerIndex(), b);
    return b;
  }

  /** The JSON-tree parse: the reference semantics of every validation and error message. */
  static ProduceBody parseTree(byte[] body) {
    ObjectNode b = Json.parseObject(body);
    Json.onlyFields(b, "", PRODUCE_FIELDS);
    Encoding enc = Encoding.parse(Json.optString(b, "encoding", ""), "encoding", Encoding.UTF8);
    Encoding keyEnc = Encoding.parse(Json.optString(b, "key_encoding", ""), "key_encoding", enc);
    Encoding valueEnc =
        Encoding.parse(Json.optString(b, "value_encoding", ""), "value_encoding", enc);
    JsonNode recs = b.get("records");
    if (recs == null || !recs.isArray() || recs.isEmpty()) {
      throw ApiException.invalid("records must be a non-empty array");
    }
    List<AppendRecord> records = new ArrayList<>(recs.size());
    long bytes = 0;
    long quotaBytes = 0;
    for (int i = 0; i < recs.size(); i++) {
      String at = "records[" + i + "].";
      JsonNode r = recs.get(i);
      if (!r.isObject()) {
        throw ApiException.invalid("records[" + i + "] must be an object, got " + r.getNodeType());
      }
      Json.onlyFields(r, at, RECORD_FIELDS);
      byte[] key = keyEnc.decode(Json.optString(r, "key", at), at + "key");
      byte[] value = valueEnc.decode(Json.optString(r, "value", at), at + "value");
      List<Header> headers = headers(r.get("headers"), at + "headers", enc);
      long ts = Json.optLong(r, "timestamp", at, -1, 0, Long.MAX_VALUE);
      long p = Json.optLong(r, "partition", at, -1, 0, Integer.MAX_VALUE);
      records.add(
          new AppendRecord(
              key,
              value,
              headers,
              ts < 0 ? OptionalLong.empty() : OptionalLong.of(ts),
              p < 0 ? OptionalInt.empty() : OptionalInt.of((int) p)));
      long kv = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
      bytes += kv;
      quotaBytes += kv;
      for (Header h : headers) {
        quotaBytes +=
            h.key().getBytes(StandardCharsets.UTF_8).length
                + (h.value() == null ? 0 : h.value().length);
      }
    }
    ProducerIdentity producer = producer(b);
    return new ProduceBody(records, bytes, quotaBytes, producer);
  }

  private static List<Header> headers(JsonNode h, String at, Encoding enc) {
    if (h == null || h.isNull()) {
      return List.of();
    }
    if (!h.isObject()) {
      throw ApiException.invalid(
          at + " must be an object of name to value, got " + h.getNodeType());
    }
    List<Header> out = new ArrayList<>();
    var it = h.fields();
    while (it.hasNext()) {
      var e = it.next();
      String where = at + "." + e.getKey();
      JsonNode v = e.getValue();
      // A name given an array of values is the same header repeated, as Kafka allows.
      if (v.isArray()) {
        for (int i = 0; i < v.size(); i++) {
          out.add(new Header(e.getKey(), headerValue(v.get(i), where + "[" + i + "]", enc)));
        }
      } else {
        out.add(new Header(e.getKey(), headerValue(v, where, enc)));
      }
    }
    return out;
  }

  private static byte[] headerValue(JsonNode v, String where, Encoding enc) {
    if (v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw ApiException.invalid(where + " must be a string or null, got " + v.getNodeType());
    }
    return enc.decode(v.textValue(), where);
  }

  private static ProducerIdentity producer(ObjectNode b) {
    boolean any = b.has("producer_id") || b.has("producer_epoch") || b.has("sequence");
    if (!any) {
      return null;
    }
    if (!(b.has("producer_id") && b.has("producer_epoch") && b.has("sequence"))) {
      throw ApiException.invalid(
          "an idempotent produce needs all of producer_id, producer_epoch and sequence");
    }
    long id = Json.optLong(b, "producer_id", "", -1, 0, Long.MAX_VALUE);
    long epoch = Json.optLong(b, "producer_epoch", "", -1, 0, Short.MAX_VALUE);
    long seq = Json.optLong(b, "sequence", "", -1, 0, Integer.MAX_VALUE);
    return new ProducerIdentity(id, (short) epoch, (int) seq);
  }
}
