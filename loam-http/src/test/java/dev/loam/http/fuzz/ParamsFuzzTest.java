package dev.loam.http.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.Json.Encoding;
import dev.loam.http.internal.Params;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Coverage-guided fuzzing of the query and header parsing every route shares ({@link Params}), as
 * the fetch route uses it: the request target (path segments and query), the fetch parameters
 * (offset, max_bytes, max_wait_ms, min_token, encoding), partition path segments and the body's
 * declared content type. The input is the request target as ISO-8859-1 (how HTTP/1.1 carries it);
 * after a first line feed, the rest is a Content-Type value.
 *
 * <p>Contract: a 400 {@link ApiException} of kind INVALID naming the parameter (415 for a content
 * type that is not JSON), or a value inside the documented range that is what the text says.
 */
class ParamsFuzzTest {
  /** The fetch route's query parameters (docs/reference/http-api.md "Fetch"). */
  private static final Set<String> FETCH =
      Set.of("offset", "max_bytes", "max_wait_ms", "min_token", "encoding");

  private static final long MAX_FETCH_BYTES = 64L << 20;
  private static final long MAX_WAIT_MS = 30_000;

  @DictionaryEntries({
    "?offset=",
    "&max_bytes=",
    "&max_wait_ms=",
    "&min_token=",
    "&encoding=",
    "base64",
    "utf-8",
    "%",
    "/v1/namespaces/ns/streams/s/partitions/",
    "application/json",
    "+json;",
    "9223372036854775807",
    "-9223372036854775808",
    "2147483648"
  })
  @FuzzTest
  void fetchParams(byte[] input) {
    String text = new String(input, StandardCharsets.ISO_8859_1);
    int nl = text.indexOf('\n');
    String uri = nl < 0 ? text : text.substring(0, nl);
    String contentType = nl < 0 ? null : text.substring(nl + 1);

    QueryStringDecoder q = refusedOrValue(() -> Params.query(uri));
    List<String> segments = q == null ? null : refusedOrValue(() -> segments(q));
    if (segments != null) {
      for (String segment : segments) {
        Integer p = refusedOrValue(() -> Params.partition(segment));
        if (p != null) {
          assertThat(p).isNotNegative().isEqualTo(Integer.parseInt(segment));
        }
      }
      if (refusedOrValue(() -> checkOnly(q)) != null) {
        for (var e : q.parameters().entrySet()) {
          assertThat(FETCH).contains(e.getKey());
          assertThat(e.getValue()).hasSize(1);
        }
        checkLong(q, "offset", Long.MIN_VALUE, 0, Long.MAX_VALUE);
        checkLong(q, "max_bytes", 1 << 20, 1, MAX_FETCH_BYTES);
        checkLong(q, "max_wait_ms", 0, 0, MAX_WAIT_MS);
        if (Params.param(q, "min_token") != null) {
          checkLong(q, "min_token", 0, 0, Long.MAX_VALUE);
        }
        String enc = Params.param(q, "encoding");
        Encoding e = refusedOrValue(() -> Encoding.parse(enc, "encoding", Encoding.UTF8));
        if (e != null && enc != null) {
          assertThat(e.wireName.replace("-", "")).isEqualToIgnoringCase(enc.replace("-", ""));
        }
      }
    }
    if (contentType != null) {
      contentType(contentType);
    }
  }

  /**
   * The decoded path segments, as the router matches them against route templates; the router
   * refuses a malformed escape in the path with the same 400 as {@link Params#query}.
   */
  private static List<String> segments(QueryStringDecoder q) {
    List<String> out = new ArrayList<>();
    try {
      for (String s : q.rawPath().split("/")) {
        if (!s.isEmpty()) {
          out.add(QueryStringDecoder.decodeComponent(s, StandardCharsets.UTF_8));
        }
      }
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid("malformed request target: " + q.uri());
    }
    return out;
  }

  private static Boolean checkOnly(QueryStringDecoder q) {
    Params.onlyParams(q, FETCH);
    return Boolean.TRUE;
  }

  private static void checkLong(QueryStringDecoder q, String name, long dflt, long min, long max) {
    Long v = refusedOrValue(() -> Params.longParam(q, name, dflt, min, max));
    if (v == null) {
      return;
    }
    String s = Params.param(q, name);
    if (s == null) {
      assertThat(v).isEqualTo(dflt);
    } else {
      assertThat(v).isBetween(min, max).isEqualTo(Long.parseLong(s));
    }
  }

  private static void contentType(String value) {
    FullHttpRequest req =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.POST, "/", Unpooled.EMPTY_BUFFER);
    try {
      req.headers().set(HttpHeaderNames.CONTENT_TYPE, value);
    } catch (IllegalArgumentException notAHeaderValue) {
      return; // Netty's decoder refuses such a header before any route sees it
    }
    try {
      Params.requireJson(req);
      String base = value.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
      assertThat(base.equals("application/json") || base.endsWith("+json")).isTrue();
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE);
      assertThat(e.kind()).isEqualTo(Kind.INVALID);
      assertThat(e.getMessage()).contains("content-type=");
    }
  }

  /** The value, or null for a 400 INVALID refusal; any other throwable is a finding. */
  private static <T> T refusedOrValue(Supplier<T> parse) {
    try {
      return parse.get();
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
      assertThat(e.kind()).isEqualTo(Kind.INVALID);
      assertThat(e.getMessage()).isNotBlank();
      return null;
    }
  }
}
