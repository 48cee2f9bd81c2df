package dev.loam.http.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.http.internal.Json.Encoding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fetch answer's JSON ({@code GET .../partitions/{p}/records}), written token by token with a
 * {@link JsonGenerator}: no JSON tree and no intermediate String per base64 value. The output is
 * byte for byte what the former tree serialisation gave (member order, a repeated header name as an
 * array at the position of its first occurrence, null as JSON null).
 */
public final class FetchBody {
  private FetchBody() {}

  /**
   * The response body; under the utf-8 encoding a key, value or header value that is not UTF-8
   * throws the 406 {@link ApiException} of {@link Encoding#encode}.
   */
  public static byte[] write(FetchResult r, Encoding enc) {
    int estimate = 64;
    for (FetchedRecord rec : r.records()) {
      int kv =
          (rec.key() == null ? 0 : rec.key().length)
              + (rec.value() == null ? 0 : rec.value().length);
      estimate += 80 + (enc == Encoding.BASE64 ? kv / 3 * 4 + 8 : kv + kv / 8);
    }
    ByteArrayBuilder out = new ByteArrayBuilder(Math.min(estimate, 1 << 24));
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeArrayFieldStart("records");
      for (FetchedRecord rec : r.records()) {
        String at = "record offset=" + rec.offset() + " ";
        g.writeStartObject();
        g.writeNumberField("offset", rec.offset());
        g.writeNumberField("timestamp", rec.timestamp());
        g.writeFieldName("key");
        bytes(g, rec.key(), enc, at + "key");
        g.writeFieldName("value");
        bytes(g, rec.value(), enc, at + "value");
        g.writeObjectFieldStart("headers");
        headers(g, rec.headers(), enc, at);
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeNumberField("next_offset", r.nextOffset());
      g.writeNumberField("high_watermark", r.highWatermark());
      g.writeNumberField("log_start_offset", r.logStartOffset());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a fetch answer", e);
    }
    return out.toByteArray();
  }

  private static void bytes(JsonGenerator g, byte[] b, Encoding enc, String what)
      throws IOException {
    if (b == null) {
      g.writeNull();
    } else if (enc == Encoding.BASE64) {
      // Jackson's default variant is the standard alphabet with padding and no line feeds: the
      // same text as java.util.Base64's basic encoder.
      g.writeBinary(b);
    } else {
      g.writeString(enc.encode(b, what));
    }
  }

  private static void headers(JsonGenerator g, List<Header> headers, Encoding enc, String at)
      throws IOException {
    if (distinctNames(headers)) {
      for (Header h : headers) {
        g.writeFieldName(h.key());
        bytes(g, h.value(), enc, at + "header " + h.key());
      }
      return;
    }
    // A repeated name becomes an array of its values, in order, where the name first appears (the
    // produce side accepts the same shape). Values are encoded in header order first, so that a
    // value refused by the utf-8 encoding is named as the tree serialisation named it.
    Map<String, List<String>> byName = new LinkedHashMap<>();
    for (Header h : headers) {
      String v = h.value() == null ? null : encodeText(h.value(), enc, at + "header " + h.key());
      byName.computeIfAbsent(h.key(), k -> new ArrayList<>()).add(v);
    }
    for (Map.Entry<String, List<String>> e : byName.entrySet()) {
      g.writeFieldName(e.getKey());
      List<String> values = e.getValue();
      if (values.size() == 1) {
        g.writeString(values.get(0));
      } else {
        g.writeStartArray();
        for (String v : values) {
          g.writeString(v);
        }
        g.writeEndArray();
      }
    }
  }

  private static String encodeText(byte[] b, Encoding enc, String what) {
    return enc == Encoding.BASE64 ? Base64.getEncoder().encodeToString(b) : enc.encode(b, what);
  }

  private static boolean distinctNames(List<Header> headers) {
    int n = headers.size();
    if (n > 16) {
      return headers.stream().map(Header::key).distinct().count() == n;
    }
    for (int i = 1; i < n; i++) {
      for (int j = 0; j < i; j++) {
        if (headers.get(i).key().equals(headers.get(j).key())) {
          return false;
        }
      }
    }
    return true;
  }
}
