package dev.loam.http.internal;

import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;

/**
 * The {@code Authorization: Bearer <id>.<secret>} header (RFC 6750 §2.1). {@link #parse} accepts
 * exactly one {@code Bearer} credential whose token is a key id, a dot and a secret, each of the
 * base64url alphabet, and refuses anything else with the one typed refusal, {@link ApiException}
 * 401 {@code unauthenticated}, whose message never repeats the header. {@code toString} masks the
 * secret.
 */
public record BearerToken(String keyId, String secret) {
  /** Longest header parsed: a token is 16 + 1 + 43 characters; anything far longer is refused. */
  static final int MAX_HEADER_CHARS = 512;

  /** The challenge every 401 carries (RFC 6750 §3). */
  public static final String CHALLENGE = "Bearer realm=\"loam\"";

  /** The token from an {@code Authorization} header value; null (absent) is refused too. */
  public static BearerToken parse(String header) {
    if (header == null || header.isEmpty()) {
      throw refused("an API key is required: send Authorization: Bearer <id>.<secret>");
    }
    if (header.length() > MAX_HEADER_CHARS) {
      throw refused("the Authorization header is too long length=" + header.length());
    }
    String h = header.strip();
    int space = h.indexOf(' ');
    if (space < 0 || !h.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")) {
      throw refused("the Authorization header must use the Bearer scheme");
    }
    String token = h.substring(space + 1).strip();
    int dot = token.indexOf('.');
    if (dot <= 0 || dot == token.length() - 1 || token.indexOf('.', dot + 1) >= 0) {
      throw refused("a bearer token is <id>.<secret>, one dot between them");
    }
    String id = token.substring(0, dot);
    String secret = token.substring(dot + 1);
    if (!base64url(id) || !base64url(secret)) {
      throw refused("a bearer token holds only base64url characters");
    }
    return new BearerToken(id, secret);
  }

  private static boolean base64url(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** 401 {@code unauthenticated} with the Bearer challenge. */
  public static ApiException refused(String message) {
    return new ApiException(
        HttpResponseStatus.UNAUTHORIZED, "unauthenticated", Kind.FENCED, message);
  }

  @Override
  public String toString() {
    return "BearerToken[keyId=" + keyId + ", secret=***]";
  }
}
