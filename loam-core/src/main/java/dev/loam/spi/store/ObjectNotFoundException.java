package dev.loam.spi.store;

/** The key does not exist. */
public class ObjectNotFoundException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public ObjectNotFoundException(String message) {
    super(Kind.NOT_FOUND, message, null);
  }

  public ObjectNotFoundException(String message, Throwable cause) {
    super(Kind.NOT_FOUND, message, cause);
  }
}
