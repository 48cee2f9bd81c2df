package dev.loam.examples.fault;

import java.util.Locale;

/**
 * The faults a {@link FaultInjectingStore} injects; each name is also the key of its rate in a
 * fault file ({@link FaultRates#parse}) and the {@code kind=} of the line a node prints.
 */
public enum FaultKind {
  /** A create or put refused with a transient error; nothing written. */
  WRITE_UNAVAILABLE,
  /** A create or put that was written, but reported as outcome unknown. */
  WRITE_OUTCOME_UNKNOWN,
  /** A get or getTail refused with a transient error. */
  READ_UNAVAILABLE,
  /**
   * A create, put, get or getTail held back before it reaches the store (a slow store); its rate is
   * a delay in milliseconds, {@code slow_ms} in a fault file.
   */
  SLOW;

  /** The lower-case name used in fault files and log lines, e.g. {@code write_unavailable}. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
