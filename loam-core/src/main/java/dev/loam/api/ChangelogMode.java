package dev.loam.api;

import java.util.Locale;

/**
 * Which change records a changelog stream holds (docs/design/changelog.md "The change records").
 */
public enum ChangelogMode {
  /**
   * {@code +I} for an insert, {@code -U} (the before-image) then {@code +U} for an update, {@code
   * -D} with the before-image for a delete.
   */
  FULL,
  /** {@code +U} for an insert or an update, {@code -D} without a value for a delete. */
  UPSERT;

  /** The mode's name in configuration and sources: {@code full} or {@code upsert}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
