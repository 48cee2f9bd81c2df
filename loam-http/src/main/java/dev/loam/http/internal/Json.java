package dev.loam.http.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Set;

/**
 * Strict JSON in, JSON out: duplicate members, trailing tokens and unknown fields are refused with
 * a message naming the member (a typo must not silently become a default).
 */
public final class Json {
  /** Thread-safe once configured. */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private Json() {}

  public static byte[] bytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a JSON tree", e);
    }
  }

  /** Parses a request body that must be one JSON object. */
  public static ObjectNode parseObject(byte[] body) {
    if (body.length == 0) {
      throw malformed("the request body is empty; a JSON object is expected");
    }
    JsonNode n;
    try {
      n = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw malformed(JsonErrors.describe(e));
    } catch (IOException e) {
      // Reading a byte array fails only as a parse does; never pass the library's text on.
      throw malformed("unreadable JSON body");
    }
    if (n == null || n.isMissingNode()) {
      throw malformed("the request body is empty; a JSON object is expected");
    }
    if (!n.isObject()) {
      throw malformed(
          "the request body must be a JSON object, got "
              + n.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
    }
    return (ObjectNode) n;
  }

  private static ApiException malformed(String message) {
    return new ApiException(
        HttpResponseStatus.BAD_REQUEST, "malformed_json", Kind.INVALID, message);
  }

  /** Refuses members outside {@code allowed}, naming the first unknown one. */
  public static void onlyFields(JsonNode obj, String path, Set<String> allowed) {
    Iterator<String> names = obj.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!allowed.contains(n)) {
        throw ApiException.invalid(
            "unknown field " + path + n + "; allowed: " + String.join(", ", sorted(allowed)));
      }
    }
  }

  private static java.util.List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }

  /** A string member, or null when absent or JSON null. */
  public static String optString(JsonNode obj, String field, String path) {
    JsonNode n = obj.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw ApiException.invalid(path + field + " must be a string, got " + n.getNodeType());
    }
    return n.textValue();
  }

  /** An integral member within [min, max], or {@code dflt} when absent. */
  public static long optLong(
      JsonNode obj, String field, String path, long dflt, long min, long max) {
    JsonNode n = obj.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isIntegralNumber() || !n.canConvertToLong()) {
      throw ApiException.invalid(path + field + " must be an integer, got " + n);
    }
    long v = n.longValue();
    if (v < min || v > max) {
      throw ApiException.invalid(
          path + field + " must be in [" + min + ", " + max + "], got " + field + "=" + v);
    }
    return v;
  }

  /** How keys, values and header values are written in JSON strings. */
  public enum Encoding {
    UTF8("utf-8"),
    BASE64("base64");

    public final String wireName;

    Encoding(String wireName) {
      this.wireName = wireName;
    }

    /** Parses an encoding name; {@code dflt} when null. */
    public static Encoding parse(String name, String what, Encoding dflt) {
      if (name == null) {
        return dflt;
      }
      return switch (name.toLowerCase(java.util.Locale.ROOT)) {
        case "utf-8", "utf8" -> UTF8;
        case "base64" -> BASE64;
        default ->
            throw ApiException.invalid(
                what + " must be \"utf-8\" or \"base64\", got " + what + "=" + name);
      };
    }

    /** Decodes a JSON string to bytes; bad base64 or unpaired surrogates are refused. */
    public byte[] decode(String s, String what) {
      if (s == null) {
        return null;
      }
      if (this == BASE64) {
        try {
          return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
          throw ApiException.invalid(what + " is not valid base64: " + e.getMessage());
        }
      }
      try {
        ByteBuffer b =
            StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .encode(CharBuffer.wrap(s));
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
      } catch (CharacterCodingException e) {
        throw ApiException.invalid(what + " is not valid Unicode text (unpaired surrogate)");
      }
    }

    /**
     * Encodes bytes for a response; bytes that are not UTF-8 under the utf-8 encoding are refused
     * rather than altered.
     */
    public String encode(byte[] b, String what) {
      if (b == null) {
        return null;
      }
      if (this == BASE64) {
        return Base64.getEncoder().encodeToString(b);
      }
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(b))
            .toString();
      } catch (CharacterCodingException e) {
        throw new ApiException(
            HttpResponseStatus.NOT_ACCEPTABLE,
            "not_utf8",
            Kind.INVALID,
            what + " is not valid UTF-8; fetch with encoding=base64");
      }
    }
  }
}
