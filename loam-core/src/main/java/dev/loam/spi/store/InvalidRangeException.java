package dev.loam.spi.store;

/**
 * A ranged read asked for bytes outside the object (or a non-positive length), or a request count
 * is outside its bound (list {@code maxKeys} outside 1..1000, a delete batch above 1000 keys).
 */
public class InvalidRangeException extends ObjectStoreException {
  private static final long serialVersionUID = 1L;

  public InvalidRangeException(String message) {
    super(Kind.INVALID, message, null);
  }

  public InvalidRangeException(String message, Throwable cause) {
    super(Kind.INVALID, message, cause);
  }
}
