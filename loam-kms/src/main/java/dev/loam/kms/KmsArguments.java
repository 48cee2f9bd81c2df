package dev.loam.kms;

import dev.loam.error.LoamException;
import java.util.regex.Pattern;

/**
 * The argument rules every {@link KeyManagementService} applies, shared so that implementations
 * reject the same inputs with the same messages.
 */
public final class KmsArguments {
  /** Longest namespace id. */
  public static final int MAX_NAMESPACE_LENGTH = 128;

  /** Longest plaintext {@link KeyManagementService#wrap} accepts. */
  public static final int MAX_PLAINTEXT = 1024;

  private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private KmsArguments() {}

  /**
   * @return null if {@code namespace} is valid, else the INVALID error naming it
   */
  public static LoamException checkNamespace(String namespace) {
    if (NAMESPACE.matcher(namespace).matches()) {
      return null;
    }
    return new LoamException(
        LoamException.Kind.INVALID,
        "kms namespace id invalid, want 1..128 of [A-Za-z0-9._-] namespace=" + namespace);
  }

  /**
   * @return null if {@code plaintext} has 1..1024 bytes, else the INVALID error
   */
  public static LoamException checkPlaintext(String namespace, byte[] plaintext) {
    if (plaintext.length >= 1 && plaintext.length <= MAX_PLAINTEXT) {
      return null;
    }
    return new LoamException(
        LoamException.Kind.INVALID,
        "kms plaintext length out of range length="
            + plaintext.length
            + " min=1 max=1024 namespace="
            + namespace);
  }
}
