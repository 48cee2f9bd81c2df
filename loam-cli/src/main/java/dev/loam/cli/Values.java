package dev.loam.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The value parsers the commands share. Each refuses bad text with a message that quotes it ({@code
 * not an integer: abc}, {@code not in 1..65535: 0}).
 */
public final class Values {
  private Values() {}

  /** Any text, as given. */
  public static ValueParser<String> text() {
    return t -> t;
  }

  /** Text that is not empty or blank. */
  public static ValueParser<String> nonBlank() {
    return t -> {
      if (t.isBlank()) {
        throw new IllegalArgumentException("must not be empty");
      }
      return t;
    };
  }

  /** A decimal integer in {@code min..max}. */
  public static ValueParser<Integer> integer(int min, int max) {
    return t -> (int) parseLong(t, min, max);
  }

  /** A decimal long in {@code min..max}. */
  public static ValueParser<Long> longValue(long min, long max) {
    return t -> parseLong(t, min, max);
  }

  /** A TCP port, {@code 1..65535}; with {@code allowAny} also 0, meaning any free port. */
  public static ValueParser<Integer> port(boolean allowAny) {
    return integer(allowAny ? 0 : 1, 65535);
  }

  /**
   * A TCP port as {@link #port(boolean) port(true)} does, or {@code off}: -1, the listener
   * disabled.
   */
  public static ValueParser<Integer> portOrOff() {
    ValueParser<Integer> port = port(true);
    return t -> t.equals("off") ? -1 : port.parse(t);
  }

  /** A filesystem path (not checked for existence). */
  public static ValueParser<Path> path() {
    return t -> {
      if (t.isBlank()) {
        throw new IllegalArgumentException("must not be empty");
      }
      try {
        return Path.of(t);
      } catch (InvalidPathException e) {
        throw new IllegalArgumentException("not a path: " + t + " (" + e.getReason() + ")", e);
      }
    };
  }

  /** One of {@code choices}, exactly as written. */
  public static ValueParser<String> oneOf(String... choices) {
    List<String> ok = List.of(choices);
    return t -> {
      if (!ok.contains(t)) {
        throw new IllegalArgumentException("not one of " + String.join(", ", ok) + ": " + t);
      }
      return t;
    };
  }

  /** A constant of {@code type}, by its name in any case ({@code standard} for STANDARD). */
  public static <E extends Enum<E>> ValueParser<E> enumValue(Class<E> type) {
    return t -> {
      for (E e : type.getEnumConstants()) {
        if (e.name().equalsIgnoreCase(t)) {
          return e;
        }
      }
      StringBuilder names = new StringBuilder();
      for (E e : type.getEnumConstants()) {
        names.append(names.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
      }
      throw new IllegalArgumentException("not one of " + names + ": " + t);
    };
  }

  /**
   * A duration with a unit, {@code 500ms}, {@code 20s}, {@code 1.5s} or {@code 2m}; a bare number
   * is seconds. Positive, at most a day.
   */
  public static ValueParser<Duration> duration() {
    return t -> {
      String s = t.strip().toLowerCase(Locale.ROOT);
      double scaleMillis;
      String number;
      if (s.endsWith("ms")) {
        scaleMillis = 1;
        number = s.substring(0, s.length() - 2);
      } else if (s.endsWith("s")) {
        scaleMillis = 1000;
        number = s.substring(0, s.length() - 1);
      } else if (s.endsWith("m")) {
        scaleMillis = 60_000;
        number = s.substring(0, s.length() - 1);
      } else {
        scaleMillis = 1000;
        number = s;
      }
      if (!number.matches("-?[0-9]+(\\.[0-9]+)?")) {
        throw new IllegalArgumentException("not a duration such as 500ms, 20s or 1m: " + t);
      }
      double millis = Double.parseDouble(number) * scaleMillis;
      if (!(millis >= 1) || millis > Duration.ofDays(1).toMillis()) {
        throw new IllegalArgumentException("not in 1ms..1 day: " + t);
      }
      return Duration.ofMillis((long) millis);
    };
  }

  /** A whole number of milliseconds in {@code min..max}, as a {@link Duration}. */
  public static ValueParser<Duration> millis(long min, long max) {
    return t -> Duration.ofMillis(parseLong(t, min, max));
  }

  /** A whole number of seconds in {@code min..max}, as a {@link Duration}. */
  public static ValueParser<Duration> seconds(long min, long max) {
    return t -> Duration.ofSeconds(parseLong(t, min, max));
  }

  private static long parseLong(String t, long min, long max) {
    long n;
    try {
      n = Long.parseLong(t.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an integer: " + t, e);
    }
    if (n < min || n > max) {
      boolean unbounded = max == Integer.MAX_VALUE || max == Long.MAX_VALUE;
      throw new IllegalArgumentException(
          (unbounded ? "less than " + min : "not in " + min + ".." + max) + ": " + t);
    }
    return n;
  }
}
