package dev.loam.kms;

import dev.loam.error.LoamException;

/**
 * The namespace already has a master key (or had one that was destroyed): nothing was created. Kind
 * {@link Kind#CONFLICT}.
 */
public final class KmsKeyExistsException extends LoamException {
  private static final long serialVersionUID = 1L;

  public KmsKeyExistsException(String message) {
    super(Kind.CONFLICT, message);
  }

  public KmsKeyExistsException(String message, Throwable cause) {
    super(Kind.CONFLICT, message, cause);
  }
}
