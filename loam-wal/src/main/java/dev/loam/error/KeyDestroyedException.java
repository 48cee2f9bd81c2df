package dev.loam.error;

import java.util.Objects;

/**
 * The key-encryption key that sealed a namespace's data was destroyed (crypto-shredding): the data
 * can never be read again. Thrown by every read path of that namespace; other namespaces are not
 * affected. Its kind is {@link Kind#NOT_FOUND}: retrying never succeeds.
 */
public final class KeyDestroyedException extends LoamException {
  private static final long serialVersionUID = 1L;

  private final String namespace;
  private final String keyId;

  /**
   * @throws NullPointerException if an argument is null
   */
  public KeyDestroyedException(String namespace, String keyId) {
    super(
        Kind.NOT_FOUND,
        "namespace key destroyed, data unreadable namespace="
            + Objects.requireNonNull(namespace, "namespace")
            + " keyId="
            + Objects.requireNonNull(keyId, "keyId"));
    this.namespace = namespace;
    this.keyId = keyId;
  }

  /** The namespace whose key was destroyed. */
  public String namespace() {
    return namespace;
  }

  /** The id of the destroyed key-encryption key. */
  public String keyId() {
    return keyId;
  }
}
