package dev.loam.store;

import dev.loam.spi.store.InvalidKeyException;
import dev.loam.spi.store.InvalidRangeException;
import java.util.Optional;

/**
 * The key rules and request limits of {@link dev.loam.spi.store.ObjectStore}, in one place so every
 * store (in-memory, filesystem, cloud) rejects exactly the same keys.
 *
 * <p>A key is a non-empty string of {@code [A-Za-z0-9._-]} segments separated by {@code /}; no
 * segment is empty, {@code .} or {@code ..}; at most {@value #MAX_KEY_BYTES} bytes. Every valid key
 * is ASCII, so its UTF-16 order ({@link String#compareTo}) equals its UTF-8 byte order; stores may
 * sort keys as strings.
 */
public final class ObjectKeys {
  /** Longest key, in UTF-8 bytes (equal to chars, since valid keys are ASCII). */
  public static final int MAX_KEY_BYTES = 1024;

  /** Largest {@code maxKeys} of one list page. */
  public static final int MAX_LIST_KEYS = 1000;

  /** Largest batch of one delete. */
  public static final int MAX_DELETE_KEYS = 1000;

  /** How much of an offending key a message repeats; a 1 MiB key must not make a 1 MiB message. */
  private static final int MAX_KEY_CHARS_IN_MESSAGE = MAX_KEY_BYTES + 16;

  private ObjectKeys() {}

  /** Whether {@code c} may appear in a key ({@code /} included, as the separator). */
  public static boolean isKeyChar(char c) {
    return isSegmentChar(c) || c == '/';
  }

  /** Whether {@code c} may appear inside one segment of a key. */
  public static boolean isSegmentChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == '-';
  }

  /** Whether {@code segment} is a valid single key segment (no {@code /}). */
  public static boolean isValidSegment(String segment) {
    if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
      return false;
    }
    for (int i = 0; i < segment.length(); i++) {
      if (!isSegmentChar(segment.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** Why {@code key} is not a valid key, or empty if it is. */
  public static Optional<String> problem(String key) {
    if (key.isEmpty()) {
      return Optional.of("empty key");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!isKeyChar(c)) {
        return Optional.of(
            String.format("character U+%04X at index %d is not allowed", (int) c, i));
      }
    }
    // All chars are ASCII from here on, so length() is the UTF-8 byte count.
    if (key.length() > MAX_KEY_BYTES) {
      return Optional.of("key of " + key.length() + " bytes exceeds " + MAX_KEY_BYTES);
    }
    int start = 0;
    while (true) {
      int slash = key.indexOf('/', start);
      String segment = slash < 0 ? key.substring(start) : key.substring(start, slash);
      if (!isValidSegment(segment)) {
        return Optional.of(
            "segment at index "
                + start
                + " is empty, '.' or '..' (leading, trailing or double '/')");
      }
      if (slash < 0) {
        return Optional.empty();
      }
      start = slash + 1;
    }
  }

  /** Whether {@code key} follows the key rules. */
  public static boolean isValid(String key) {
    return problem(key).isEmpty();
  }

  /** The failure for an invalid key, or empty if {@code key} is valid. */
  public static Optional<InvalidKeyException> check(String key) {
    return problem(key)
        .map(p -> new InvalidKeyException("invalid object key: " + p + describe(key)));
  }

  /**
   * The failure for a list page size outside {@code 1..}{@value #MAX_LIST_KEYS}, or empty if valid.
   */
  public static Optional<InvalidRangeException> checkMaxKeys(int maxKeys, String prefix) {
    if (maxKeys >= 1 && maxKeys <= MAX_LIST_KEYS) {
      return Optional.empty();
    }
    return Optional.of(
        new InvalidRangeException(
            "maxKeys "
                + maxKeys
                + " outside 1.."
                + MAX_LIST_KEYS
                + ", prefix="
                + truncate(prefix)));
  }

  /** The failure for a delete batch above {@value #MAX_DELETE_KEYS} keys, or empty if valid. */
  public static Optional<InvalidRangeException> checkDeleteBatch(int size) {
    if (size <= MAX_DELETE_KEYS) {
      return Optional.empty();
    }
    return Optional.of(
        new InvalidRangeException(
            "delete batch of " + size + " keys exceeds " + MAX_DELETE_KEYS + ", keys=" + size));
  }

  /** The {@code , key=<key>} suffix every store message ends with, with huge keys truncated. */
  public static String describe(String key) {
    return ", key=" + truncate(key);
  }

  private static String truncate(String s) {
    if (s.length() <= MAX_KEY_CHARS_IN_MESSAGE) {
      return s;
    }
    return s.substring(0, MAX_KEY_CHARS_IN_MESSAGE) + "...(" + s.length() + " chars)";
  }
}
