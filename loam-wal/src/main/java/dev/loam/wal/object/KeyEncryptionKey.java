package dev.loam.wal.object;

import dev.loam.error.LoamException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A namespace's key-encryption key in memory: the 32-byte AES key that wraps the data key of every
 * chunk it seals, and its id as stored in those chunks (docs/formats/wal-object-v2.md). {@link
 * #toString()} never shows the key material.
 */
public final class KeyEncryptionKey {
  /** Bytes of key material: AES-256. */
  public static final int LENGTH = 32;

  private final String id;
  private final byte[] material;

  /**
   * @param id 1..255 bytes of UTF-8, e.g. {@code <namespace_id>/<ulid>}
   * @param material exactly {@link #LENGTH} bytes; copied
   * @throws LoamException INVALID if the id or the material has the wrong length
   * @throws NullPointerException if an argument is null
   */
  public KeyEncryptionKey(String id, byte[] material) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(material, "material");
    int n = id.getBytes(StandardCharsets.UTF_8).length;
    if (n < 1 || n > WalFormat.MAX_KEY_ID_BYTES) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "key-encryption key id length out of range bytes=" + n + " min=1 max=255 keyId=" + id);
    }
    if (material.length != LENGTH) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "key-encryption key material length wrong expected="
              + LENGTH
              + " actual="
              + material.length
              + " keyId="
              + id);
    }
    this.id = id;
    this.material = material.clone();
  }

  /** The key's id, stored in every chunk it seals. */
  public String id() {
    return id;
  }

  byte[] material() {
    return material;
  }

  /**
   * Wraps a 32-byte data key under this key with AES Key Wrap (RFC 3394, default IV).
   *
   * @return the 40 wrapped bytes
   */
  public byte[] wrapDataKey(byte[] dataKey) {
    try {
      javax.crypto.Cipher wrap = javax.crypto.Cipher.getInstance("AESWrap");
      wrap.init(
          javax.crypto.Cipher.WRAP_MODE, new javax.crypto.spec.SecretKeySpec(material, "AES"));
      return wrap.wrap(new javax.crypto.spec.SecretKeySpec(dataKey, "AES"));
    } catch (java.security.GeneralSecurityException e) {
      throw new LoamException(
          LoamException.Kind.INTERNAL, "aes key wrap failed keyId=" + id + " cause=" + e, e);
    }
  }

  /**
   * Unwraps a data key wrapped by {@link #wrapDataKey}.
   *
   * @return the data key, or null when the wrapped bytes fail AES-KW's integrity check (damaged, or
   *     wrapped under another key)
   */
  public javax.crypto.SecretKey unwrapDataKey(byte[] wrapped) {
    try {
      javax.crypto.Cipher unwrap = javax.crypto.Cipher.getInstance("AESWrap");
      unwrap.init(
          javax.crypto.Cipher.UNWRAP_MODE, new javax.crypto.spec.SecretKeySpec(material, "AES"));
      return (javax.crypto.SecretKey) unwrap.unwrap(wrapped, "AES", javax.crypto.Cipher.SECRET_KEY);
    } catch (java.security.InvalidKeyException e) {
      return null;
    } catch (java.security.GeneralSecurityException e) {
      throw new LoamException(
          LoamException.Kind.INTERNAL, "aes key unwrap unavailable keyId=" + id + " cause=" + e, e);
    }
  }

  /** Overwrites the key material with zeros; the key is unusable afterwards. */
  public void destroy() {
    Arrays.fill(material, (byte) 0);
  }

  @Override
  public String toString() {
    return "KeyEncryptionKey[id=" + id + "]";
  }
}
