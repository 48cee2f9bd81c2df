package dev.loam.examples.fault;

import java.io.IOException;
import java.io.StringReader;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;

/**
 * How often a {@link FaultInjectingStore} injects each fault: probabilities per call. Written by
 * tests as a small properties text (the fault file, docs/operations/running-a-cluster.md), so a
 * chaos test can switch a running node's faults on and off without a control route in the node.
 *
 * @param writeUnavailable fraction of creates and puts refused (nothing written)
 * @param writeOutcomeUnknown fraction of creates and puts written but answered outcome unknown
 * @param readUnavailable fraction of gets and getTails refused
 * @param slowMillis how long every create, put, get and getTail is held back (0: not at all)
 */
public record FaultRates(
    double writeUnavailable, double writeOutcomeUnknown, double readUnavailable, long slowMillis) {
  /** No faults: every call reaches the store unchanged. */
  public static final FaultRates OFF = new FaultRates(0, 0, 0);

  /** The longest delay a fault file may ask for: a slow store, not a hung one. */
  public static final long MAX_SLOW_MILLIS = 60_000;

  /** Rates without a delay. */
  public FaultRates(double writeUnavailable, double writeOutcomeUnknown, double readUnavailable) {
    this(writeUnavailable, writeOutcomeUnknown, readUnavailable, 0);
  }

  public FaultRates {
    if (slowMillis < 0 || slowMillis > MAX_SLOW_MILLIS) {
      throw new IllegalArgumentException(
          "slow_ms must be in [0, " + MAX_SLOW_MILLIS + "], got " + slowMillis);
    }
    check(FaultKind.WRITE_UNAVAILABLE, writeUnavailable);
    check(FaultKind.WRITE_OUTCOME_UNKNOWN, writeOutcomeUnknown);
    check(FaultKind.READ_UNAVAILABLE, readUnavailable);
    if (writeUnavailable + writeOutcomeUnknown > 1) {
      throw new IllegalArgumentException(
          "write_unavailable + write_outcome_unknown must be at most 1, got "
              + writeUnavailable
              + " + "
              + writeOutcomeUnknown);
    }
  }

  private static void check(FaultKind k, double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException(k.key() + " must be a probability in [0, 1], got " + p);
    }
  }

  public boolean isOff() {
    return writeUnavailable == 0
        && writeOutcomeUnknown == 0
        && readUnavailable == 0
        && slowMillis == 0;
  }

  /**
   * Parses a fault file: Java properties text with any of the keys {@code write_unavailable},
   * {@code write_outcome_unknown} and {@code read_unavailable}, each a probability in [0, 1], and
   * {@code slow_ms}, a delay in milliseconds (a missing key is 0; an empty text is {@link #OFF}).
   * Unknown keys and bad values are refused with an {@link IllegalArgumentException} naming them,
   * so a typo never silently means "no fault".
   */
  public static FaultRates parse(String text) {
    Properties p = new Properties();
    try {
      p.load(new StringReader(text));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "fault file is not a properties text: " + e.getMessage(), e);
    }
    TreeSet<String> unknown = new TreeSet<>(p.stringPropertyNames());
    unknown.remove(FaultKind.WRITE_UNAVAILABLE.key());
    unknown.remove(FaultKind.WRITE_OUTCOME_UNKNOWN.key());
    unknown.remove(FaultKind.READ_UNAVAILABLE.key());
    unknown.remove(SLOW_KEY);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown fault file keys "
              + unknown
              + " (known: write_unavailable, write_outcome_unknown, read_unavailable, slow_ms)");
    }
    return new FaultRates(
        rate(p, FaultKind.WRITE_UNAVAILABLE),
        rate(p, FaultKind.WRITE_OUTCOME_UNKNOWN),
        rate(p, FaultKind.READ_UNAVAILABLE),
        slow(p));
  }

  /** The fault file key of {@link #slowMillis}. */
  static final String SLOW_KEY = "slow_ms";

  private static long slow(Properties p) {
    String v = p.getProperty(SLOW_KEY);
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      return Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          SLOW_KEY + " must be a whole number of milliseconds, got " + v.strip(), e);
    }
  }

  private static double rate(Properties p, FaultKind k) {
    String v = p.getProperty(k.key());
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      return Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          k.key() + " must be a probability in [0, 1], got " + v.strip(), e);
    }
  }

  /** The properties text {@link #parse} reads back as these rates. */
  public String toText() {
    return String.format(
        Locale.ROOT,
        "write_unavailable=%s%nwrite_outcome_unknown=%s%nread_unavailable=%s%nslow_ms=%d%n",
        writeUnavailable,
        writeOutcomeUnknown,
        readUnavailable,
        slowMillis);
  }
}
