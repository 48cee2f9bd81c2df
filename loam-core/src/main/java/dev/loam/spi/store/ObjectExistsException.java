package dev.loam.spi.store;

/** A create-if-absent found the key already taken; nothing was written. */
public class ObjectExistsException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public ObjectExistsException(String message) {
    super(Kind.CONFLICT, message, null);
  }

  public ObjectExistsException(String message, Throwable cause) {
    super(Kind.CONFLICT, message, cause);
  }
}
