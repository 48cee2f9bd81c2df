package dev.loam.spi.store;

/** An object key that breaks the key rules of {@link ObjectStore}. */
public class InvalidKeyException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public InvalidKeyException(String message) {
    super(Kind.INVALID, message, null);
  }

  public InvalidKeyException(String message, Throwable cause) {
    super(Kind.INVALID, message, cause);
  }
}
