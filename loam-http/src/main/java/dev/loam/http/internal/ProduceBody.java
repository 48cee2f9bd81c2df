package dev.loam.http.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.Header;
import dev.loam.api.ProducerIdentity;
import dev.loam.http.internal.Json.Encoding;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A parsed and validated produce body ({@code POST .../records}, docs/reference/http-api.md
 * "Produce"): the records to append, their key+value bytes (the produced-bytes metric), the bytes
 * the ingest quota charges (keys, values, header names and values) and the optional producer
 * identity.
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
   * Parses a request body as the produce route does; invalid bodies throw {@link ApiException}. The
   * streaming parse answers valid bodies; anything it does not accept (an error of any kind, or a
   * shape it does not handle) is parsed again by {@link #parseTree}, whose answer (records or the
   * typed error) is the contract. So errors cost up to three parses (two streaming, one tree),
   * bounded by the request-body limit, and the error messages stay exactly those of the tree parse.
   */
  public static ProduceBody parse(ByteBuf content) {
    ProduceBody b = parseStreaming(content);
    return b != null ? b : parseTree(content);
  }

  /** The reference parse (JSON tree); public only so that loam-bench can compare the two. */
  public static ProduceBody parseTree(ByteBuf content) {
    return parseTree(bytes(content));
  }

  /**
   * The streaming parse, or null when it does not accept the body. It accepts only bodies the tree
   * parse accepts, with the same result: every check below refuses (returns null) where {@link
   * #parseTree} would throw, and the parser has the same features (duplicate members, non-numeric
   * numbers) as {@link Json#MAPPER}.
   */
  static ProduceBody parseStreaming(ByteBuf content) {
    try {
      Encoding[] preset = null;
      // A second pass only when an encoding member follows "records" and changes how they decode.
      for (int pass = 0; pass < 2; pass++) {
        try (JsonParser p = parser(content)) {
          return streamed(p, preset, Raw.of(content));
        } catch (Restart r) {
          preset = r.encodings;
        }
        if (preset == null) {
          try (JsonParser p = parser(content)) {
            preset = declaredEncodings(p);
          }
        }
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static JsonParser parser(ByteBuf content) throws IOException {
    if (content.hasArray()) {
      return Json.MAPPER
          .getFactory()
          .createParser(
              content.array(),
              content.arrayOffset() + content.readerIndex(),
              content.readableBytes());
    }
    return Json.MAPPER
        .getFactory()
        .createParser((java.io.InputStream) new ByteBufInputStream(content.duplicate()));
  }

  /** Not accepted by the streaming parse; the tree parse decides. No stack trace: not an error. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super(null, null, false, false);
    }
  }

  private static final class Restart extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient Encoding[] encodings;

    Restart(Encoding[] encodings) {
      super(null, null, false, false);
      this.encodings = encodings;
    }
  }

  private static final Refused REFUSED = new Refused();

  /** Header, key and value encodings from the declared members (null when absent or null). */
  private static Encoding[] effective(Encoding enc, Encoding keyEnc, Encoding valueEnc) {
    Encoding h = enc == null ? Encoding.UTF8 : enc;
    return new Encoding[] {h, keyEnc == null ? h : keyEnc, valueEnc == null ? h : valueEnc};
  }

  private static ProduceBody streamed(JsonParser p, Encoding[] preset, Raw raw) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw REFUSED;
    }
    Encoding enc = null;
    Encoding keyEnc = null;
    Encoding valueEnc = null;
    Encoding[] used = null;
    List<AppendRecord> records = null;
    long bytes = 0;
    long quotaBytes = 0;
    long id = -1;
    long epoch = -1;
    long seq = -1;
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      switch (name) {
        case "encoding" -> enc = encoding(p, v, name);
        case "key_encoding" -> keyEnc = encoding(p, v, name);
        case "value_encoding" -> valueEnc = encoding(p, v, name);
        case "producer_id" -> id = integer(p, v, Long.MAX_VALUE);
        case "producer_epoch" -> epoch = integer(p, v, Short.MAX_VALUE);
        case "sequence" -> seq = integer(p, v, Integer.MAX_VALUE);
        case "records" -> {
          if (v != JsonToken.START_ARRAY) {
            throw REFUSED;
          }
          used = preset != null ? preset : effective(enc, keyEnc, valueEnc);
          records = new ArrayList<>();
          while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            AppendRecord r;
            try {
              r = record(p, t, used, raw);
            } catch (IllegalArgumentException | ApiException e) {
              // Text that does not decode may be right under an encoding declared further on:
              // learn the declared encodings first, then decode again.
              if (preset != null) {
                throw REFUSED;
              }
              throw new Restart(null);
            }
            records.add(r);
            long kv =
                (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
            bytes += kv;
            quotaBytes += kv;
            for (Header h : r.headers()) {
              quotaBytes +=
                  h.key().getBytes(StandardCharsets.UTF_8).length
                      + (h.value() == null ? 0 : h.value().length);
            }
          }
        }
        default -> throw REFUSED;
      }
    }
    if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
      throw REFUSED;
    }
    if (records == null || records.isEmpty()) {
      throw REFUSED;
    }
    Encoding[] declared = effective(enc, keyEnc, valueEnc);
    if (!Arrays.equals(declared, used)) {
      if (preset != null) {
        throw REFUSED;
      }
      throw new Restart(declared);
    }
    ProducerIdentity producer = null;
    if (id >= 0 || epoch >= 0 || seq >= 0) {
      if (id < 0 || epoch < 0 || seq < 0) {
        throw REFUSED;
      }
      producer = new ProducerIdentity(id, (short) epoch, (int) seq);
    }
    return new ProduceBody(records, bytes, quotaBytes, producer);
  }

  /** The encodings the top-level members declare; every other member is skipped unread. */
  /**
   * The body's backing array, when it has one. Base64 text is decoded from it in place: turning it
   * into chars and a String was most of the parse's time (JFR), and the parser then only skips the
   * string.
   */
  private record Raw(byte[] array, int offset, int length) {
    static Raw of(ByteBuf content) {
      return content.hasArray()
          ? new Raw(
              content.array(),
              content.arrayOffset() + content.readerIndex(),
              content.readableBytes())
          : null;
    }

    /**
     * The current string token decoded by {@link Base64#getDecoder()} from the raw bytes, or null
     * when they do not decode as they stand (the caller then decodes {@code getText()}, which
     * decides whether the value is valid).
     */
    byte[] base64(JsonParser p) {
      // Relative to the offset the parser was created with (Jackson counts from there).
      long at = p.currentTokenLocation().getByteOffset();
      if (at < 0 || at >= length || array[offset + (int) at] != '"') {
        return null;
      }
      int start = offset + (int) at + 1;
      int limit = offset + length;
      int end = start;
      while (end < limit && array[end] != '"') {
        end++;
      }
      if (end >= limit) {
        return null;
      }
      ByteBuffer out;
      try {
        // Succeeds only on base64 alphabet and '=': no escapes, so exactly the text getText()
        // would return. A backslash (an escaped quote or "\/") or non-ASCII is refused by the
        // decoder, and the caller decodes getText() instead.
        out = Base64.getDecoder().decode(ByteBuffer.wrap(array, start, end - start));
      } catch (IllegalArgumentException e) {
        return null;
      }
      byte[] b = out.array();
      return out.remaining() == b.length ? b : Arrays.copyOf(b, out.remaining());
    }
  }

  private static Encoding[] declaredEncodings(JsonParser p) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw REFUSED;
    }
    Encoding enc = null;
    Encoding keyEnc = null;
    Encoding valueEnc = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      switch (name) {
        case "encoding" -> enc = encoding(p, v, name);
        case "key_encoding" -> keyEnc = encoding(p, v, name);
        case "value_encoding" -> valueEnc = encoding(p, v, name);
        default -> p.skipChildren();
      }
    }
    return effective(enc, keyEnc, valueEnc);
  }

  private static Encoding encoding(JsonParser p, JsonToken v, String name) throws IOException {
    if (v == JsonToken.VALUE_NULL) {
      return null;
    }
    if (v != JsonToken.VALUE_STRING) {
      throw REFUSED;
    }
    return Encoding.parse(p.getText(), name, null);
  }

  /**
   * An integer in [0, max]; JSON null is refused here (the tree parse counts it as present, and
   * decides).
   */
  private static long integer(JsonParser p, JsonToken v, long max) throws IOException {
    if (v != JsonToken.VALUE_NUMBER_INT) {
      throw REFUSED;
    }
    JsonParser.NumberType nt = p.getNumberType();
    if (nt != JsonParser.NumberType.INT && nt != JsonParser.NumberType.LONG) {
      throw REFUSED;
    }
    long x = p.getLongValue();
    if (x < 0 || x > max) {
      throw REFUSED;
    }
    return x;
  }

  /** An optional integer in [0, max]: -1 when null. */
  private static long optInteger(JsonParser p, JsonToken v, long max) throws IOException {
    return v == JsonToken.VALUE_NULL ? -1 : integer(p, v, max);
  }

  private static AppendRecord record(JsonParser p, JsonToken t, Encoding[] enc, Raw raw)
      throws IOException {
    if (t != JsonToken.START_OBJECT) {
      throw REFUSED;
    }
    byte[] key = null;
    byte[] value = null;
    List<Header> headers = List.of();
    long ts = -1;
    long part = -1;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String f = p.currentName();
      JsonToken v = p.nextToken();
      switch (f) {
        case "key" -> key = bytes(p, v, enc[1], raw);
        case "value" -> value = bytes(p, v, enc[2], raw);
        case "headers" -> headers = headers(p, v, enc[0]);
        case "timestamp" -> ts = optInteger(p, v, Long.MAX_VALUE);
        case "partition" -> part = optInteger(p, v, Integer.MAX_VALUE);
        default -> throw REFUSED;
      }
    }
    return new AppendRecord(
        key,
        value,
        headers,
        ts < 0 ? OptionalLong.empty() : OptionalLong.of(ts),
        part < 0 ? OptionalInt.empty() : OptionalInt.of((int) part));
  }

  private static List<Header> headers(JsonParser p, JsonToken v, Encoding enc) throws IOException {
    if (v == JsonToken.VALUE_NULL) {
      return List.of();
    }
    if (v != JsonToken.START_OBJECT) {
      throw REFUSED;
    }
    List<Header> out = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      t = p.nextToken();
      // A name given an array of values is the same header repeated, as Kafka allows.
      if (t == JsonToken.START_ARRAY) {
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
          out.add(new Header(name, headerValue(p, t, enc)));
        }
      } else {
        out.add(new Header(name, headerValue(p, t, enc)));
      }
    }
    return out;
  }

  private static byte[] headerValue(JsonParser p, JsonToken v, Encoding enc) throws IOException {
    if (v != JsonToken.VALUE_NULL && v != JsonToken.VALUE_STRING) {
      throw REFUSED;
    }
    return bytes(p, v, enc, null);
  }

  /** A string member decoded, or null for JSON null. */
  private static byte[] bytes(JsonParser p, JsonToken v, Encoding enc, Raw raw) throws IOException {
    if (v == JsonToken.VALUE_NULL) {
      return null;
    }
    if (v != JsonToken.VALUE_STRING) {
      throw REFUSED;
    }
    if (enc == Encoding.BASE64 && raw != null) {
      byte[] b = raw.base64(p);
      if (b != null) {
        return b;
      }
    }
    String s = p.getText();
    if (enc == Encoding.BASE64) {
      // java.util.Base64 on the text, as the tree parse: measured cheaper here than Jackson's
      // getBinaryValue and than a hand-written decoder over the parser's char buffer, and it
      // accepts exactly what the tree parse accepts (Jackson's base64 reader skips spaces).
      return Base64.getDecoder().decode(s);
    }
    // String.getBytes would turn an unpaired surrogate into '?'; the tree parse refuses it.
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return Encoding.UTF8.decode(s, "");
      }
    }
    return s.getBytes(StandardCharsets.UTF_8);
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
    for (String f : List.of("producer_id", "producer_epoch", "sequence")) {
      // A JSON null counts as present above; without this check it became -1 and a 500.
      if (b.get(f).isNull()) {
        throw ApiException.invalid(f + " must be an integer, got null");
      }
    }
    long id = Json.optLong(b, "producer_id", "", -1, 0, Long.MAX_VALUE);
    long epoch = Json.optLong(b, "producer_epoch", "", -1, 0, Short.MAX_VALUE);
    long seq = Json.optLong(b, "sequence", "", -1, 0, Integer.MAX_VALUE);
    return new ProducerIdentity(id, (short) epoch, (int) seq);
  }
}
