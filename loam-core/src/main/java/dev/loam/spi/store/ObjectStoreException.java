package dev.loam.spi.store;

import dev.loam.error.LoamException;

/**
 * A failure reported by an {@link ObjectStore}. Each store maps its native errors onto the
 * subclasses in one place; messages end with {@code key=<object key>} and the store's own code.
 */
public abstract class ObjectStoreException extends LoamException {
  private static final long serialVersionUID = 1L;

  protected ObjectStoreException(Kind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
