package dev.loam.spi.store;

/** A write whose effect is unknown (for example a timeout after the request was sent). */
public class StoreOutcomeUnknownException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public StoreOutcomeUnknownException(String message) {
    super(Kind.OUTCOME_UNKNOWN, message, null);
  }

  public StoreOutcomeUnknownException(String message, Throwable cause) {
    super(Kind.OUTCOME_UNKNOWN, message, cause);
  }
}
