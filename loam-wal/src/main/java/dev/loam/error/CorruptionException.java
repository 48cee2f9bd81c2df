package dev.loam.error;

/**
 * Stored or received bytes failed a checksum, magic, version, length or structural check. The
 * message names the format, the field and, where known, the object.
 */
public class CorruptionException extends LoamException {
  private static final long serialVersionUID = 1L;

  public CorruptionException(String message) {
    super(Kind.CORRUPTION, message);
  }

  public CorruptionException(String message, Throwable cause) {
    super(Kind.CORRUPTION, message, cause);
  }
}
