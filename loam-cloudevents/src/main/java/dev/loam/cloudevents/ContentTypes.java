package dev.loam.cloudevents;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * How a {@code datacontenttype} decides the form of data on the way out: JSON types ({@code
 * application/json}, {@code text/json}, any {@code +json}, or none) as JSON text, text types
 * ({@code text/*}, {@code application/xml}, any {@code +xml}) as a string, the rest as base64.
 */
public final class ContentTypes {
  /** The structured-mode JSON format's media type. */
  public static final String STRUCTURED_JSON = "application/cloudevents+json";

  /** The batched JSON format's media type. */
  public static final String BATCH_JSON = "application/cloudevents-batch+json";

  /** The protobuf format's media type. */
  public static final String STRUCTURED_PROTOBUF = "application/cloudevents+protobuf";

  /** The batched protobuf format's media type. */
  public static final String BATCH_PROTOBUF = "application/cloudevents-batch+protobuf";

  private ContentTypes() {}

  /** The media type of {@code contentType}: lowercase, parameters and spaces removed. */
  public static String mediaType(String contentType) {
    int semi = contentType.indexOf(';');
    String t = semi < 0 ? contentType : contentType.substring(0, semi);
    return t.trim().toLowerCase(Locale.ROOT);
  }

  /** True for no content type or a JSON one: data is JSON text. */
  public static boolean isJson(String contentType) {
    if (contentType == null) {
      return true;
    }
    String t = mediaType(contentType);
    return t.equals("application/json") || t.equals("text/json") || t.endsWith("+json");
  }

  /** True for a text content type that is not JSON: data is a string. */
  public static boolean isText(String contentType) {
    if (contentType == null) {
      return false;
    }
    String t = mediaType(contentType);
    return (t.startsWith("text/") && !t.equals("text/json"))
        || t.equals("application/xml")
        || t.endsWith("+xml");
  }

  /** True when {@code bytes} are well-formed UTF-8. */
  public static boolean isUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /** {@code bytes} decoded as strict UTF-8, or null when they are not UTF-8. */
  public static String utf8OrNull(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
