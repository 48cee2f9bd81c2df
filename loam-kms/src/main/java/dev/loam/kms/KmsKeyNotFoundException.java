package dev.loam.kms;

import dev.loam.error.LoamException;

/** The namespace has no master key: it was never created. Kind {@link Kind#NOT_FOUND}. */
public final class KmsKeyNotFoundException extends LoamException {
  private static final long serialVersionUID = 1L;

  public KmsKeyNotFoundException(String message) {
    super(Kind.NOT_FOUND, message);
  }

  public KmsKeyNotFoundException(String message, Throwable cause) {
    super(Kind.NOT_FOUND, message, cause);
  }
}
