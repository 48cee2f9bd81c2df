package dev.loam.kms;

import dev.loam.error.LoamException;

/**
 * The key-management service could not be reached, throttled the call, timed out, or this handle is
 * closed; nothing changed and the same call may succeed later. Kind {@link Kind#UNAVAILABLE}.
 */
public final class KmsUnavailableException extends LoamException {
  private static final long serialVersionUID = 1L;

  public KmsUnavailableException(String message) {
    super(Kind.UNAVAILABLE, message);
  }

  public KmsUnavailableException(String message, Throwable cause) {
    super(Kind.UNAVAILABLE, message, cause);
  }
}
