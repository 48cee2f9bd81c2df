package dev.loam.http.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.FetchBody;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.Json.Encoding;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the fetch answer ({@link FetchBody#write}, docs/reference/http-api.md
 * "Fetch") over fuzzer-chosen records: arbitrary key, value and header bytes (null, empty, not
 * UTF-8), repeated header names, and both encodings. Header names come from bytes decoded as the
 * read path decodes them (lenient UTF-8, as Kafka does).
 *
 * <p>Contract: the answer is JSON that the strict parser reads back to exactly the records and
 * offsets written (a repeated header name as an array of its values in order), or, under utf-8
 * only, a 406 {@link ApiException} because some key, value or header value is not UTF-8.
 */
class FetchBodyFuzzTest {
  @FuzzTest
  void write(FuzzedDataProvider d) {
    Encoding enc = d.consumeBoolean() ? Encoding.BASE64 : Encoding.UTF8;
    long next = d.consumeLong();
    long high = d.consumeLong();
    long start = d.consumeLong();
    int n = d.consumeInt(0, 8);
    List<FetchedRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long offset = d.consumeLong();
      long timestamp = d.consumeLong();
      byte[] key = bytesOrNull(d);
      byte[] value = bytesOrNull(d);
      int hn = d.consumeInt(0, 4);
      List<Header> headers = new ArrayList<>();
      for (int h = 0; h < hn; h++) {
        String name = new String(d.consumeBytes(d.consumeInt(0, 6)), StandardCharsets.UTF_8);
        headers.add(new Header(name, bytesOrNull(d)));
      }
      records.add(new FetchedRecord(0, offset, timestamp, key, value, headers));
    }
    FetchResult result = new FetchResult(records, next, high, start);

    byte[] body;
    try {
      body = FetchBody.write(result, enc);
    } catch (ApiException e) {
      assertThat(enc).isEqualTo(Encoding.UTF8);
      assertThat(e.status()).isEqualTo(HttpResponseStatus.NOT_ACCEPTABLE);
      assertThat(e.kind()).isEqualTo(Kind.INVALID);
      assertThat(records.stream().anyMatch(FetchBodyFuzzTest::hasNonUtf8)).isTrue();
      return;
    }
    assertThat(records).noneMatch(r -> enc == Encoding.UTF8 && hasNonUtf8(r));
    JsonNode root = Json.parseObject(body);
    assertThat(root.get("next_offset").asLong()).isEqualTo(next);
    assertThat(root.get("high_watermark").asLong()).isEqualTo(high);
    assertThat(root.get("log_start_offset").asLong()).isEqualTo(start);
    JsonNode array = root.get("records");
    assertThat(array.size()).isEqualTo(records.size());
    for (int i = 0; i < records.size(); i++) {
      FetchedRecord r = records.get(i);
      JsonNode o = array.get(i);
      assertThat(o.get("offset").asLong()).isEqualTo(r.offset());
      assertThat(o.get("timestamp").asLong()).isEqualTo(r.timestamp());
      assertThat(decode(o.get("key"), enc)).isEqualTo(r.key());
      assertThat(decode(o.get("value"), enc)).isEqualTo(r.value());
      assertThat(readHeaders(o.get("headers"), enc)).isEqualTo(grouped(r.headers()));
    }
  }

  private static byte[] bytesOrNull(FuzzedDataProvider d) {
    return d.consumeInt(0, 9) == 0 ? null : d.consumeBytes(d.consumeInt(0, 12));
  }

  private static boolean hasNonUtf8(FetchedRecord r) {
    if (!utf8(r.key()) || !utf8(r.value())) {
      return true;
    }
    return r.headers().stream().anyMatch(h -> !utf8(h.value()));
  }

  private static boolean utf8(byte[] b) {
    if (b == null) {
      return true;
    }
    try {
      StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
      return true;
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    }
  }

  private static byte[] decode(JsonNode n, Encoding enc) {
    if (n.isNull()) {
      return null;
    }
    assertThat(n.isTextual()).as("a key, value or header value is a string or null").isTrue();
    return enc.decode(n.textValue(), "fetched");
  }

  /** Header values by name, names in first-appearance order, values in header order. */
  private static Map<String, List<String>> grouped(List<Header> headers) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Header h : headers) {
      out.computeIfAbsent(h.key(), k -> new ArrayList<>())
          .add(h.value() == null ? null : Arrays.toString(h.value()));
    }
    return out;
  }

  private static Map<String, List<String>> readHeaders(JsonNode headers, Encoding enc) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = headers.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      List<String> values = new ArrayList<>();
      if (e.getValue().isArray()) {
        for (JsonNode v : e.getValue()) {
          byte[] b = decode(v, enc);
          values.add(b == null ? null : Arrays.toString(b));
        }
      } else {
        byte[] b = decode(e.getValue(), enc);
        values.add(b == null ? null : Arrays.toString(b));
      }
      out.put(e.getKey(), values);
    }
    return out;
  }
}
