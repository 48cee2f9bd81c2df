package dev.loam.spi.store;

/**
 * A transient store failure (throttling, 5xx, reset); nothing changed and the call may be retried.
 */
public class StoreUnavailableException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public StoreUnavailableException(String message) {
    super(Kind.UNAVAILABLE, message, null);
  }

  public StoreUnavailableException(String message, Throwable cause) {
    super(Kind.UNAVAILABLE, message, cause);
  }
}
