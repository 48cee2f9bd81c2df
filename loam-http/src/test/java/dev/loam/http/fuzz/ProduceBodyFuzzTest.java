package dev.loam.http.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.api.AppendRecord;
import dev.loam.api.Header;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.ProduceBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * Coverage-guided fuzzing of the produce body parser ({@link ProduceBody#parse}, the entry point
 * the produce route uses; docs/reference/http-api.md "Produce"). The parse is a streaming fast path
 * backed by a JSON-tree reference parse; this target checks it against that reference, from a heap
 * buffer, a buffer that starts inside its array, and a direct buffer.
 *
 * <p>Contract: a 400 {@link ApiException} of kind INVALID (the reference parse's, message for
 * message), or exactly the reference parse's records, with the produced and quota byte counts the
 * records add up to and header names that are valid Unicode.
 */
class ProduceBodyFuzzTest {
  @DictionaryEntries({
    "{\"records\":[",
    "{\"key\":",
    "\"value\":",
    "\"headers\":{",
    "\"timestamp\":",
    "\"partition\":",
    "\"encoding\":\"base64\"",
    "\"key_encoding\":",
    "\"value_encoding\":",
    "\"utf-8\"",
    "\"producer_id\":",
    "\"producer_epoch\":",
    "\"sequence\":",
    "null",
    "\\ud800",
    "\\u00e9",
    "9223372036854775808",
    "1e3",
    "\"AAEC\""
  })
  @FuzzTest
  void parse(byte[] input) {
    String reference = outcome(() -> ProduceBody.parseTree(Unpooled.wrappedBuffer(input)));
    assertThat(outcome(() -> ProduceBody.parse(Unpooled.wrappedBuffer(input))))
        .as("heap buffer")
        .isEqualTo(reference);
    byte[] padded = new byte[input.length + 6];
    System.arraycopy(input, 0, padded, 3, input.length);
    ByteBuf inside = Unpooled.wrappedBuffer(padded).slice(3, input.length);
    assertThat(outcome(() -> ProduceBody.parse(inside))).as("offset buffer").isEqualTo(reference);
    ByteBuf direct = Unpooled.directBuffer(Math.max(1, input.length)).writeBytes(input);
    try {
      assertThat(outcome(() -> ProduceBody.parse(direct))).as("direct buffer").isEqualTo(reference);
    } finally {
      direct.release();
    }
  }

  /** The parse's records, or its refusal, as text that two parses can be compared by. */
  private static String outcome(java.util.function.Supplier<ProduceBody> parse) {
    ProduceBody b;
    try {
      b = parse.get();
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
      assertThat(e.kind()).isEqualTo(Kind.INVALID);
      assertThat(e.getMessage()).isNotBlank();
      return "refused " + e.code() + ": " + e.getMessage();
    }
    long bytes = 0;
    long quota = 0;
    for (AppendRecord r : b.records()) {
      long kv = (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
      bytes += kv;
      quota += kv;
      for (Header h : r.headers()) {
        // A header name is stored as UTF-8: an unpaired surrogate would silently become '?'.
        assertThat(h.key().codePoints())
            .as("header name %s", h.key())
            .noneMatch(c -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE);
        quota += h.key().getBytes(StandardCharsets.UTF_8).length;
        quota += h.value() == null ? 0 : h.value().length;
      }
    }
    assertThat(b.records()).isNotEmpty();
    assertThat(b.bytes()).isEqualTo(bytes);
    assertThat(b.quotaBytes()).isEqualTo(quota);
    return describe(b.records())
        + " bytes="
        + b.bytes()
        + " quota="
        + b.quotaBytes()
        + " producer="
        + b.producer();
  }

  private static String describe(List<AppendRecord> records) {
    HexFormat hex = HexFormat.of();
    StringBuilder s = new StringBuilder();
    for (AppendRecord a : records) {
      s.append("[k=").append(a.key() == null ? "null" : hex.formatHex(a.key()));
      s.append(" v=").append(a.value() == null ? "null" : hex.formatHex(a.value())).append(" h=");
      for (Header h : a.headers()) {
        s.append(h.key()).append(':').append(h.value() == null ? "null" : hex.formatHex(h.value()));
        s.append(';');
      }
      s.append(" ts=").append(a.timestamp()).append(" p=").append(a.partition()).append(']');
    }
    return s.toString();
  }
}
