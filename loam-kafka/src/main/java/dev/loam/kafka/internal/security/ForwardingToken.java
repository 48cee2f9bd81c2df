package dev.loam.kafka.internal.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The credential a gateway presents when it forwards an owner-bound topic admin request to the
 * stream's owner on behalf of an authenticated client (docs/security.md "Topic admin forwarded
 * between nodes"). It is sent as the SASL/PLAIN password of the client's own key id, on a
 * connection whose client id is {@code loam-owner-forward}, and it says: "key K, acting in
 * namespace N, sends this to node O before time T".
 *
 * <p>Text form: {@code loam-forward.v1.<expiry millis>.<base64url namespace>.<base64url mac>}, the
 * MAC being HMAC-SHA256 over {@code v1 \0 key \0 namespace \0 owner \0 expiry} with a key derived
 * from the key's stored SCRAM-SHA-256 {@code ServerKey}: {@code HMAC-SHA256(ServerKey, "loam owner
 * forwarding key")}. Every node holds the {@code ServerKey} in its metastore replica, so any node
 * can make one and the owner can check it; a client cannot without the key's secret (and with the
 * secret it can only act as that key, which it may anyway). The derivation keeps the MAC apart from
 * SCRAM's {@code ServerSignature}, which is also an HMAC under {@code ServerKey} but over a message
 * that always begins {@code n=} or {@code m=}.
 *
 * <p>Pure functions; {@link #verify} never throws on any input.
 */
public final class ForwardingToken {
  /** What every token begins with. */
  public static final String PREFIX = "loam-forward.v1.";

  /** The longest a token may be valid for, counted from its check: bounds a clock ahead. */
  public static final long MAX_LIFETIME_MILLIS = 5 * 60_000L;

  private static final byte[] DERIVATION =
      "loam owner forwarding key".getBytes(StandardCharsets.UTF_8);
  private static final int MAX_LENGTH = 1024;

  private ForwardingToken() {}

  /** A checked token's claim: the key and namespace the forwarded request acts as. */
  public record Claim(String keyId, String namespace) {}

  /**
   * The token for key {@code keyId} acting in {@code namespace}, for node {@code ownerNodeId},
   * valid until {@code expiresAtMillis} (epoch millis), made with the key's SCRAM-SHA-256 {@code
   * serverKey}.
   */
  public static String mint(
      byte[] serverKey, String keyId, String namespace, String ownerNodeId, long expiresAtMillis) {
    return PREFIX
        + expiresAtMillis
        + "."
        + b64(namespace.getBytes(StandardCharsets.UTF_8))
        + "."
        + b64(mac(serverKey, keyId, namespace, ownerNodeId, expiresAtMillis));
  }

  /** Whether {@code password} has the token form at all (and so is never checked as a secret). */
  public static boolean looksLikeToken(String password) {
    return password != null && password.startsWith(PREFIX);
  }

  /**
   * Checks {@code token} as presented for {@code keyId} to node {@code selfNodeId} at {@code
   * nowMillis}, with the key's current SCRAM-SHA-256 {@code serverKey}: the claim when the token is
   * well formed, made for this key and this node, not expired, not valid for more than {@link
   * #MAX_LIFETIME_MILLIS}, and its MAC matches; empty otherwise (the reason is not told: a refusal
   * names no detail a forger could use).
   */
  public static Optional<Claim> verify(
      byte[] serverKey, String keyId, String selfNodeId, String token, long nowMillis) {
    if (serverKey == null || keyId == null || token == null) {
      return Optional.empty();
    }
    if (token.length() > MAX_LENGTH || !token.startsWith(PREFIX)) {
      return Optional.empty();
    }
    String[] parts = token.substring(PREFIX.length()).split("\\.", -1);
    if (parts.length != 3) {
      return Optional.empty();
    }
    long expiry;
    String namespace;
    byte[] presented;
    try {
      if (parts[0].isEmpty()
          || parts[0].length() > 19
          || !parts[0].chars().allMatch(Character::isDigit)) {
        return Optional.empty();
      }
      expiry = Long.parseLong(parts[0]);
      namespace = utf8(Base64.getUrlDecoder().decode(parts[1]));
      presented = Base64.getUrlDecoder().decode(parts[2]);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (namespace == null || namespace.isEmpty()) {
      return Optional.empty();
    }
    if (expiry <= nowMillis || expiry - nowMillis > MAX_LIFETIME_MILLIS) {
      return Optional.empty();
    }
    if (!b64(presented).equals(parts[2])
        || !b64(namespace.getBytes(StandardCharsets.UTF_8)).equals(parts[1])) {
      return Optional.empty(); // only the canonical encoding: one token text per claim
    }
    byte[] expected = mac(serverKey, keyId, namespace, selfNodeId, expiry);
    if (!MessageDigest.isEqual(expected, presented)) {
      return Optional.empty();
    }
    return Optional.of(new Claim(keyId, namespace));
  }

  private static byte[] mac(
      byte[] serverKey, String keyId, String namespace, String ownerNodeId, long expiry) {
    byte[] key = hmac(serverKey, DERIVATION);
    String payload = "v1\0" + keyId + "\0" + namespace + "\0" + ownerNodeId + "\0" + expiry;
    return hmac(key, payload.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      return m.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  private static String b64(byte[] b) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** Strict UTF-8, or null for bytes that are not. */
  private static String utf8(byte[] b) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      return null;
    }
  }
}
