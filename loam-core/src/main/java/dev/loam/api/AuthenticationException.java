package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * A presented API key was refused: no such key, revoked, or the wrong secret (the message says
 * which and names the key id, never the secret). Kind FENCED: retrying with the same credentials
 * fails again. The HTTP API answers it 401, the Kafka gateway SASL_AUTHENTICATION_FAILED.
 */
public class AuthenticationException extends LoamException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(String message) {
    super(Kind.FENCED, message);
  }
}
