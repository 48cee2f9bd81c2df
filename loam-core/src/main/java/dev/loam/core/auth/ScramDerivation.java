package dev.loam.core.auth;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The RFC 5802 key derivation for SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 7677), with the JDK's {@code
 * PBKDF2WithHmacSHA256}/{@code 512}: {@code SaltedPassword = PBKDF2(secret, salt, i)}, {@code
 * ClientKey = HMAC(SaltedPassword, "Client Key")}, {@code StoredKey = H(ClientKey)}, {@code
 * ServerKey = HMAC(SaltedPassword, "Server Key")}. The same values Kafka's {@code ScramFormatter}
 * computes, so the gateway's SCRAM exchange accepts clients of either.
 */
enum ScramDerivation {
  SHA_256("PBKDF2WithHmacSHA256", "HmacSHA256", "SHA-256", 256),
  SHA_512("PBKDF2WithHmacSHA512", "HmacSHA512", "SHA-512", 512);

  private final String pbkdf2;
  private final String hmac;
  private final String digest;
  private final int bits;

  ScramDerivation(String pbkdf2, String hmac, String digest, int bits) {
    this.pbkdf2 = pbkdf2;
    this.hmac = hmac;
    this.digest = digest;
    this.bits = bits;
  }

  /** {@code StoredKey} and {@code ServerKey} of {@code secret}. */
  byte[][] storedAndServerKey(String secret, byte[] salt, int iterations) {
    byte[] salted = saltedPassword(secret, salt, iterations);
    byte[] clientKey = hmac(salted, "Client Key");
    return new byte[][] {hash(clientKey), hmac(salted, "Server Key")};
  }

  /** {@code H(ClientKey)} of {@code secret}: equal to the stored key exactly for the right one. */
  byte[] storedKey(String secret, byte[] salt, int iterations) {
    return hash(hmac(saltedPassword(secret, salt, iterations), "Client Key"));
  }

  private byte[] saltedPassword(String secret, byte[] salt, int iterations) {
    char[] chars = secret.toCharArray();
    PBEKeySpec spec = new PBEKeySpec(chars, salt, iterations, bits);
    try {
      return SecretKeyFactory.getInstance(pbkdf2).generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new LoamException(Kind.INTERNAL, "the JDK lacks " + pbkdf2, e);
    } finally {
      spec.clearPassword();
      java.util.Arrays.fill(chars, '\0');
    }
  }

  private byte[] hmac(byte[] key, String text) {
    try {
      Mac mac = Mac.getInstance(hmac);
      mac.init(new SecretKeySpec(key, hmac));
      return mac.doFinal(text.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException e) {
      throw new LoamException(Kind.INTERNAL, "the JDK lacks " + hmac, e);
    }
  }

  private byte[] hash(byte[] b) {
    try {
      return MessageDigest.getInstance(digest).digest(b);
    } catch (GeneralSecurityException e) {
      throw new LoamException(Kind.INTERNAL, "the JDK lacks " + digest, e);
    }
  }
}
