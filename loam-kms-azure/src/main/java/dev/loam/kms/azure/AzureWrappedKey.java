package dev.loam.kms.azure;

import dev.loam.error.CorruptionException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * A key wrapped by {@link AzureKeyManagementService}: the Key Vault key version that wrapped it and
 * the RSA-OAEP-256 ciphertext (docs/reference/kms.md, "Wrapped key format (Azure Key Vault)").
 *
 * <pre>
 * u8 format = 1 | u8 n = version length (1..64) | n bytes version, ASCII [0-9a-zA-Z] | ciphertext
 * </pre>
 *
 * @param version the key version, as Key Vault names it
 * @param encryptedKey the RSA-OAEP-256 ciphertext, at least one byte
 */
record AzureWrappedKey(String version, byte[] encryptedKey) {
  static final int FORMAT = 1;
  private static final Pattern VERSION = Pattern.compile("[0-9a-zA-Z]{1,64}");

  static byte[] encode(String version, byte[] encryptedKey) {
    byte[] v = version.getBytes(StandardCharsets.US_ASCII);
    if (!VERSION.matcher(version).matches()) {
      throw new IllegalArgumentException("key version not [0-9a-zA-Z]{1,64} version=" + version);
    }
    byte[] out = new byte[2 + v.length + encryptedKey.length];
    out[0] = FORMAT;
    out[1] = (byte) v.length;
    System.arraycopy(v, 0, out, 2, v.length);
    System.arraycopy(encryptedKey, 0, out, 2 + v.length, encryptedKey.length);
    return out;
  }

  /**
   * @throws CorruptionException naming the reason and the namespace if the bytes are not a wrapped
   *     key of this format
   */
  static AzureWrappedKey decode(byte[] wrapped, String namespace) {
    if (wrapped.length < 4) {
      throw corrupt("length " + wrapped.length + " under 4", namespace);
    }
    if (wrapped[0] != FORMAT) {
      throw corrupt("format " + (wrapped[0] & 0xff), namespace);
    }
    int n = wrapped[1] & 0xff;
    if (n < 1 || n > 64 || 2 + n >= wrapped.length) {
      throw corrupt("version length " + n, namespace);
    }
    String version = new String(wrapped, 2, n, StandardCharsets.US_ASCII);
    if (!VERSION.matcher(version).matches()) {
      throw corrupt("version not [0-9a-zA-Z]", namespace);
    }
    return new AzureWrappedKey(version, Arrays.copyOfRange(wrapped, 2 + n, wrapped.length));
  }

  private static CorruptionException corrupt(String reason, String namespace) {
    return new CorruptionException(
        "kms wrapped key does not unwrap (" + reason + ") namespace=" + namespace);
  }
}
