package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.http.internal.Json.Encoding;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The streaming produce parse against the JSON-tree parse it replaced: valid bodies give the same
 * records on the streaming path itself (not through the fallback), mutated bodies give the tree
 * parse's answer (records, or the same typed 400), and the streaming parse never accepts a body the
 * tree parse refuses. Also the streamed fetch answer against the former tree serialisation.
 */
class ProduceBodyPropertyTest {
  private static final String[] ENCODINGS = {"utf8", "utf-8", "UTF-8", "base64", "BASE64"};

  /** A random valid body and the records it must give. */
  record Body(String json, List<AppendRecord> records, String producer) {}

  @Property(tries = 500)
  void validBodiesParseOnTheStreamingPathToTheirRecords(@ForAll long seed) {
    Body b = validBody(new Random(seed));
    byte[] bytes = b.json().getBytes(StandardCharsets.UTF_8);
    ProduceBody fast = ProduceBody.parseStreaming(Unpooled.wrappedBuffer(bytes));
    assertThat(fast).as(b.json()).isNotNull();
    assertThat(describe(fast.records())).as(b.json()).isEqualTo(describe(b.records()));
    assertThat(String.valueOf(fast.producer())).isEqualTo(b.producer());
    assertThat(describe(fast)).isEqualTo(describe(ProduceBody.parseTree(bytes)));
    // The raw base64 path reads the array at the parser's offsets: a buffer that starts inside its
    // array (arrayOffset, readerIndex), surrounded by quotes, must give the same records.
    byte[] padded = new byte[bytes.length + 8];
    java.util.Arrays.fill(padded, (byte) '"');
    System.arraycopy(bytes, 0, padded, 5, bytes.length);
    ByteBuf slice = Unpooled.wrappedBuffer(padded).slice(5, bytes.length);
    ByteBuf skipped = Unpooled.wrappedBuffer(padded, 0, bytes.length + 5).skipBytes(5);
    assertThat(describe(ProduceBody.parseStreaming(slice))).isEqualTo(describe(fast));
    assertThat(describe(ProduceBody.parseStreaming(skipped))).isEqualTo(describe(fast));
    // A UTF-8 byte order mark is skipped by the parser; the offsets still line up.
    byte[] bom = new byte[bytes.length + 3];
    bom[0] = (byte) 0xEF;
    bom[1] = (byte) 0xBB;
    bom[2] = (byte) 0xBF;
    System.arraycopy(bytes, 0, bom, 3, bytes.length);
    assertThat(outcome(() -> ProduceBody.parse(Unpooled.wrappedBuffer(bom))))
        .isEqualTo(outcome(() -> ProduceBody.parseTree(bom)));
    // Buffers without a backing array go through an InputStream.
    ByteBuf direct = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    try {
      assertThat(describe(ProduceBody.parse(direct))).isEqualTo(describe(fast));
      assertThat(direct.readerIndex()).isZero();
    } finally {
      direct.release();
    }
  }

  @Property(tries = 3000)
  void mutatedBodiesGetTheTreeParsesAnswerAndOnlyTypedErrors(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int mutations) {
    Random r = new Random(seed);
    String json = validBody(r).json();
    for (int i = 0; i < mutations; i++) {
      json = mutate(json, r);
    }
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    String tree = outcome(() -> ProduceBody.parseTree(bytes));
    ProduceBody fast = ProduceBody.parseStreaming(Unpooled.wrappedBuffer(bytes));
    if (fast != null) {
      // Soundness: what the streaming parse accepts, the tree parse accepts with the same result.
      assertThat(describe(fast)).as(json).isEqualTo(tree);
    }
    assertThat(outcome(() -> ProduceBody.parse(Unpooled.wrappedBuffer(bytes))))
        .as(json)
        .isEqualTo(tree);
    if (tree.startsWith("error ")) {
      assertThat(tree).as(json).startsWith("error 400 ").contains(" INVALID ");
    }
  }

  @Test
  void encodingAfterRecordsIsHonoured() {
    String json =
        "{\"records\":[{\"value\":\"AAE=\",\"key\":\"k\"}],\"value_encoding\":\"base64\"}";
    ProduceBody b =
        ProduceBody.parseStreaming(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
    assertThat(b).isNotNull();
    assertThat(b.records().get(0).value()).containsExactly(0, 1);
    assertThat(b.records().get(0).key()).containsExactly('k');
  }

  @Test
  void nullProducerFieldIsATyped400() {
    String json =
        "{\"records\":[{\"value\":\"a\"}],\"producer_id\":null,\"producer_epoch\":0,\"sequence\":0}";
    assertThat(outcome(() -> ProduceBody.parse(Unpooled.wrappedBuffer(json.getBytes()))))
        .isEqualTo("error 400 invalid INVALID producer_id must be an integer, got null");
  }

  @Test
  void parserSharesTheMappersStrictness() {
    assertThat(Json.MAPPER.getFactory().isEnabled(StreamReadFeature.STRICT_DUPLICATE_DETECTION))
        .isTrue();
  }

  @Property(tries = 300)
  void fetchBodyIsWhatTheTreeSerialisationWrote(@ForAll long seed, @ForAll boolean base64) {
    Random r = new Random(seed);
    List<FetchedRecord> recs = new ArrayList<>();
    int n = r.nextInt(5);
    for (int i = 0; i < n; i++) {
      List<Header> hs = new ArrayList<>();
      int h = r.nextInt(5);
      for (int j = 0; j < h; j++) {
        hs.add(new Header(List.of("a", "b", "ü", "c\"").get(r.nextInt(4)), fetchBytes(r)));
      }
      recs.add(
          new FetchedRecord(
              0, r.nextLong() & Long.MAX_VALUE, r.nextLong(), fetchBytes(r), fetchBytes(r), hs));
    }
    FetchResult res = new FetchResult(recs, r.nextLong(), r.nextLong(), r.nextLong());
    Encoding enc = base64 ? Encoding.BASE64 : Encoding.UTF8;
    String expected = outcome(() -> treeFetchBody(res, enc));
    assertThat(outcome(() -> new String(FetchBody.write(res, enc), StandardCharsets.UTF_8)))
        .isEqualTo(expected);
  }

  // ------------------------------------------------------------------ generators

  private static byte[] fetchBytes(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> null;
      case 1 -> new byte[] {(byte) 0xff, 0x41}; // not UTF-8: 406 under utf-8
      default -> randomText(r).getBytes(StandardCharsets.UTF_8);
    };
  }

  private static String randomText(Random r) {
    StringBuilder s = new StringBuilder();
    int n = r.nextInt(8);
    for (int i = 0; i < n; i++) {
      switch (r.nextInt(6)) {
        case 0 -> s.append((char) r.nextInt(0x20)); // control characters are escaped
        case 1 -> s.append("é");
        case 2 -> s.appendCodePoint(0x1F600);
        case 3 -> s.append('"').append('\\');
        default -> s.append((char) ('a' + r.nextInt(26)));
      }
    }
    return s.toString();
  }

  private static String quote(String s) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
  }

  /** A JSON string in the encoding and the bytes it stands for. */
  private static String[] encoded(Random r, Encoding enc) {
    if (enc == Encoding.BASE64) {
      byte[] b = new byte[r.nextInt(40)];
      r.nextBytes(b);
      String text = quote(Base64.getEncoder().encodeToString(b));
      // JSON escapes in base64 text ("\/", "\u0041") are decoded from the parsed text, not the
      // raw bytes.
      if (r.nextInt(4) == 0) {
        text =
            text.replace("/", "\\/")
                .replaceFirst("A", java.util.regex.Matcher.quoteReplacement("\\u0041"));
      }
      return new String[] {text, hex(b)};
    }
    String t = randomText(r);
    return new String[] {quote(t), hex(t.getBytes(StandardCharsets.UTF_8))};
  }

  private static String hex(byte[] b) {
    return b == null ? "null" : HexFormat.of().formatHex(b);
  }

  private static Body validBody(Random r) {
    String[] encNames = new String[3];
    Encoding[] declared = new Encoding[3];
    for (int i = 0; i < 3; i++) {
      int c = r.nextInt(ENCODINGS.length + 2);
      if (c < ENCODINGS.length) {
        encNames[i] = quote(ENCODINGS[c]);
        declared[i] = Encoding.parse(ENCODINGS[c], "x", null);
      } else if (c == ENCODINGS.length) {
        encNames[i] = "null";
      }
    }
    Encoding hEnc = declared[0] == null ? Encoding.UTF8 : declared[0];
    Encoding kEnc = declared[1] == null ? hEnc : declared[1];
    Encoding vEnc = declared[2] == null ? hEnc : declared[2];
    List<String> members = new ArrayList<>();
    String[] names = {"encoding", "key_encoding", "value_encoding"};
    for (int i = 0; i < 3; i++) {
      if (encNames[i] != null) {
        members.add(quote(names[i]) + ":" + encNames[i]);
      }
    }
    List<AppendRecord> expected = new ArrayList<>();
    StringBuilder recs = new StringBuilder("[");
    int n = 1 + r.nextInt(4);
    for (int i = 0; i < n; i++) {
      List<String> rm = new ArrayList<>();
      byte[] key = null;
      byte[] value = null;
      List<Header> headers = new ArrayList<>();
      java.util.OptionalLong ts = java.util.OptionalLong.empty();
      java.util.OptionalInt part = java.util.OptionalInt.empty();
      int keyKind = r.nextInt(3);
      if (keyKind == 1) {
        rm.add("\"key\":null");
      } else if (keyKind == 2) {
        String[] e = encoded(r, kEnc);
        rm.add("\"key\":" + e[0]);
        key = HexFormat.of().parseHex(e[1]);
      }
      int valueKind = r.nextInt(4);
      if (valueKind == 1) {
        rm.add("\"value\":null");
      } else if (valueKind >= 2) {
        String[] e = encoded(r, vEnc);
        rm.add("\"value\":" + e[0]);
        value = HexFormat.of().parseHex(e[1]);
      }
      int hKind = r.nextInt(3);
      if (hKind == 1) {
        rm.add("\"headers\":null");
      } else if (hKind == 2) {
        List<String> hm = new ArrayList<>();
        List<String> used = new ArrayList<>(List.of("a", "b", "c-d", "é"));
        java.util.Collections.shuffle(used, r);
        for (String name : used.subList(0, r.nextInt(4))) {
          int vs = r.nextInt(4);
          if (vs == 3) {
            List<String> arr = new ArrayList<>();
            int count = r.nextInt(3);
            for (int j = 0; j < count; j++) {
              if (r.nextInt(4) == 0) {
                arr.add("null");
                headers.add(new Header(name, null));
              } else {
                String[] e = encoded(r, hEnc);
                arr.add(e[0]);
                headers.add(new Header(name, HexFormat.of().parseHex(e[1])));
              }
            }
            hm.add(quote(name) + ":[" + String.join(",", arr) + "]");
          } else if (vs == 2) {
            hm.add(quote(name) + ":null");
            headers.add(new Header(name, null));
          } else {
            String[] e = encoded(r, hEnc);
            hm.add(quote(name) + ":" + e[0]);
            headers.add(new Header(name, HexFormat.of().parseHex(e[1])));
          }
        }
        rm.add("\"headers\":{" + String.join(",", hm) + "}");
      }
      switch (r.nextInt(3)) {
        case 1 -> rm.add("\"timestamp\":null");
        case 2 -> {
          long t = r.nextBoolean() ? r.nextLong() & Long.MAX_VALUE : r.nextInt(1000);
          rm.add("\"timestamp\":" + t);
          ts = java.util.OptionalLong.of(t);
        }
        default -> {}
      }
      switch (r.nextInt(3)) {
        case 1 -> rm.add("\"partition\":null");
        case 2 -> {
          int p = r.nextBoolean() ? r.nextInt() & Integer.MAX_VALUE : r.nextInt(4);
          rm.add("\"partition\":" + p);
          part = java.util.OptionalInt.of(p);
        }
        default -> {}
      }
      java.util.Collections.shuffle(rm, r);
      recs.append(i > 0 ? "," : "").append('{').append(String.join(",", rm)).append('}');
      expected.add(new AppendRecord(key, value, headers, ts, part));
    }
    members.add("\"records\":" + recs.append(']'));
    String producer = "null";
    if (r.nextInt(3) == 0) {
      long id = r.nextLong() & Long.MAX_VALUE;
      int epoch = r.nextInt(Short.MAX_VALUE + 1);
      int seq = r.nextInt() & Integer.MAX_VALUE;
      members.add("\"producer_id\":" + id);
      members.add("\"producer_epoch\":" + epoch);
      members.add("\"sequence\":" + seq);
      producer = new dev.loam.api.ProducerIdentity(id, (short) epoch, seq).toString();
    }
    java.util.Collections.shuffle(members, r);
    String ws = r.nextBoolean() ? "" : " \n";
    return new Body(ws + "{" + String.join("," + ws, members) + "}" + ws, expected, producer);
  }

  private static final String[] REPLACEMENTS = {
    "1",
    "-1",
    "1.5",
    "1e3",
    "99999999999999999999",
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
    "\"a b\"",
    "\"AA AA\"",
    "\"AAE\"",
    "\"A===\"",
    "\"\\ud800\"",
    "\"x\"",
    "[null]",
    "[[\"a\"]]",
    "NaN"
  };
  private static final String[] FIELDS = {
    "key",
    "value",
    "headers",
    "timestamp",
    "partition",
    "records",
    "encoding",
    "key_encoding",
    "value_encoding",
    "producer_id",
    "producer_epoch",
    "sequence",
    "bogus"
  };

  private static String mutate(String s, Random r) {
    int at = s.isEmpty() ? 0 : r.nextInt(s.length());
    switch (r.nextInt(6)) {
      case 0 -> {
        // Delete a character.
        return s.isEmpty() ? s : s.substring(0, at) + s.substring(at + 1);
      }
      case 1 -> {
        // Insert a structural character.
        String c = String.valueOf("{}[]\",:0 \\n=".charAt(r.nextInt(12)));
        return s.substring(0, at) + c + s.substring(at);
      }
      case 2 -> {
        // Add a member (known, duplicate or unknown) after an opening brace.
        int b = s.indexOf('{', at);
        if (b < 0) {
          b = s.indexOf('{');
        }
        if (b < 0 || b + 1 >= s.length()) {
          return s + "{";
        }
        String m =
            quote(FIELDS[r.nextInt(FIELDS.length)])
                + ":"
                + REPLACEMENTS[r.nextInt(REPLACEMENTS.length)];
        return s.substring(0, b + 1) + m + (s.charAt(b + 1) == '}' ? "" : ",") + s.substring(b + 1);
      }
      case 3 -> {
        // Replace the value after a colon.
        int c = s.indexOf(':', at);
        if (c < 0) {
          return s;
        }
        int end = valueEnd(s, c + 1);
        return s.substring(0, c + 1)
            + REPLACEMENTS[r.nextInt(REPLACEMENTS.length)]
            + s.substring(end);
      }
      case 4 -> {
        // Empty the records array or drop a member name's last character.
        return r.nextBoolean()
            ? s.replaceFirst("\"records\":\\[.*\\]", "\"records\":[]")
            : s.replaceFirst("\"(\\w+)\\w\":", "\"$1\":");
      }
      default -> {
        // Trailing garbage or a truncation.
        return r.nextBoolean() ? s + (r.nextBoolean() ? "{}" : "x") : s.substring(0, at);
      }
    }
  }

  /** The end of the simple value (string, number, literal) that starts at {@code i}. */
  private static int valueEnd(String s, int i) {
    if (i < s.length() && s.charAt(i) == '"') {
      int j = i + 1;
      while (j < s.length() && s.charAt(j) != '"') {
        j += s.charAt(j) == '\\' ? 2 : 1;
      }
      return Math.min(j + 1, s.length());
    }
    int j = i;
    while (j < s.length() && ",}]".indexOf(s.charAt(j)) < 0) {
      j++;
    }
    return j;
  }

  // ------------------------------------------------------------------ comparison

  private static String outcome(Supplier<Object> f) {
    try {
      Object o = f.get();
      return o instanceof ProduceBody b ? describe(b) : String.valueOf(o);
    } catch (ApiException e) {
      return "error " + e.status().code() + " " + e.code() + " " + e.kind() + " " + e.getMessage();
    } catch (RuntimeException e) {
      return "unexpected " + e;
    }
  }

  private static String describe(ProduceBody b) {
    return describe(b.records())
        + " bytes="
        + b.bytes()
        + " quota="
        + b.quotaBytes()
        + " producer="
        + b.producer();
  }

  private static String describe(List<AppendRecord> recs) {
    StringBuilder s = new StringBuilder();
    for (AppendRecord a : recs) {
      s.append("[k=").append(hex(a.key())).append(" v=").append(hex(a.value())).append(" h=");
      for (Header h : a.headers()) {
        s.append(h.key()).append(':').append(hex(h.value())).append(';');
      }
      s.append(" ts=").append(a.timestamp()).append(" p=").append(a.partition()).append(']');
    }
    return s.toString();
  }

  /** The fetch answer as Api wrote it before FetchBody (a Jackson tree), kept as the reference. */
  private static String treeFetchBody(FetchResult r, Encoding enc) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    ArrayNode a = o.putArray("records");
    for (FetchedRecord rec : r.records()) {
      String at = "record offset=" + rec.offset() + " ";
      ObjectNode ro = a.addObject();
      ro.put("offset", rec.offset());
      ro.put("timestamp", rec.timestamp());
      ro.put("key", enc.encode(rec.key(), at + "key"));
      ro.put("value", enc.encode(rec.value(), at + "value"));
      ObjectNode ho = ro.putObject("headers");
      for (Header h : rec.headers()) {
        String v = enc.encode(h.value(), at + "header " + h.key());
        JsonNode prev = ho.get(h.key());
        if (prev == null) {
          ho.put(h.key(), v);
        } else {
          ArrayNode arr;
          if (prev.isArray()) {
            arr = (ArrayNode) prev;
          } else {
            arr = Json.MAPPER.createArrayNode();
            arr.add(prev);
            ho.set(h.key(), arr);
          }
          arr.add(v);
        }
      }
    }
    o.put("next_offset", r.nextOffset());
    o.put("high_watermark", r.highWatermark());
    o.put("log_start_offset", r.logStartOffset());
    return new String(Json.bytes(o), StandardCharsets.UTF_8);
  }
}
