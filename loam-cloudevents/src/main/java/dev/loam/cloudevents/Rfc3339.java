package dev.loam.cloudevents;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RFC 3339 date-times ({@code 2026-10-01T12:00:00.5+02:00}): the strict check ingest applies to
 * {@code time}, the instant a text names, and the canonical UTC form protobuf timestamps are
 * written in (no trailing fractional zeros).
 */
public final class Rfc3339 {
  private static final Pattern DATE_TIME =
      Pattern.compile(
          "(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?"
              + "(?:([Zz])|([+-])(\\d{2}):(\\d{2}))");

  private Rfc3339() {}

  /** True when {@code text} is an RFC 3339 date-time with a valid date, time and offset. */
  public static boolean isValid(String text) {
    try {
      parse(text);
      return true;
    } catch (DateTimeException e) {
      return false;
    }
  }

  /**
   * The instant {@code text} names. A fraction beyond nanoseconds is truncated; a leap second (:60)
   * is read as the first second of the next minute, as {@code java.time} has no leap seconds.
   *
   * @throws DateTimeException when it is not an RFC 3339 date-time
   */
  public static Instant parse(String text) {
    Matcher m = DATE_TIME.matcher(text);
    if (!m.matches()) {
      throw new DateTimeException("not an RFC 3339 date-time");
    }
    int year = Integer.parseInt(m.group(1));
    int month = Integer.parseInt(m.group(2));
    int day = Integer.parseInt(m.group(3));
    int hour = Integer.parseInt(m.group(4));
    int minute = Integer.parseInt(m.group(5));
    int second = Integer.parseInt(m.group(6));
    boolean leap = second == 60;
    int nanos = 0;
    if (m.group(7) != null) {
      String f = m.group(7);
      f = f.length() > 9 ? f.substring(0, 9) : (f + "000000000").substring(0, 9);
      nanos = Integer.parseInt(f);
    }
    int offsetSeconds = 0;
    if (m.group(8) == null) {
      int oh = Integer.parseInt(m.group(10));
      int om = Integer.parseInt(m.group(11));
      if (oh > 23 || om > 59) {
        throw new DateTimeException("offset out of range");
      }
      offsetSeconds = (oh * 3600 + om * 60) * (m.group(9).equals("-") ? -1 : 1);
    }
    LocalDateTime local =
        LocalDateTime.of(year, month, day, hour, minute, leap ? 59 : second, nanos);
    // ZoneOffset stops at ±18:00; RFC 3339 offsets go to ±23:59
    Instant at = Instant.ofEpochSecond(local.toEpochSecond(ZoneOffset.UTC) - offsetSeconds, nanos);
    return leap ? at.plusSeconds(1) : at;
  }

  /**
   * {@code at} in RFC 3339 UTC: {@code yyyy-MM-ddTHH:mm:ss}, a fraction without trailing zeros when
   * the nanoseconds are not 0, then {@code Z}. Years outside 0..9999 are refused.
   *
   * @throws DateTimeException for a year RFC 3339 cannot write
   */
  public static String canonical(Instant at) {
    LocalDateTime t = LocalDateTime.ofInstant(at, ZoneOffset.UTC);
    if (t.getYear() < 0 || t.getYear() > 9999) {
      throw new DateTimeException("year " + t.getYear() + " is outside RFC 3339");
    }
    StringBuilder b = new StringBuilder(30);
    pad(b, t.getYear(), 4).append('-');
    pad(b, t.getMonthValue(), 2).append('-');
    pad(b, t.getDayOfMonth(), 2).append('T');
    pad(b, t.getHour(), 2).append(':');
    pad(b, t.getMinute(), 2).append(':');
    pad(b, t.getSecond(), 2);
    int n = t.getNano();
    if (n != 0) {
      String f = String.format("%09d", n);
      int end = f.length();
      while (f.charAt(end - 1) == '0') {
        end--;
      }
      b.append('.').append(f, 0, end);
    }
    return b.append('Z').toString();
  }

  /** {@code at} in RFC 3339 UTC with exactly three fractional digits (milliseconds). */
  public static String millis(long epochMillis) {
    Instant at = Instant.ofEpochMilli(epochMillis);
    String s = canonical(Instant.ofEpochSecond(at.getEpochSecond()));
    return s.substring(0, s.length() - 1) + String.format(".%03dZ", at.getNano() / 1_000_000);
  }

  private static StringBuilder pad(StringBuilder b, int v, int width) {
    String s = Integer.toString(v);
    for (int i = s.length(); i < width; i++) {
      b.append('0');
    }
    return b.append(s);
  }
}
