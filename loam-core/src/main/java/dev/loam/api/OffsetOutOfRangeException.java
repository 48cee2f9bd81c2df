package dev.loam.api;

import dev.loam.error.LoamException;

/** A fetch asked for an offset below the log start or above the high watermark. */
public class OffsetOutOfRangeException extends LoamException {
  private static final long serialVersionUID = 1L;
  private final long logStartOffset;
  private final long highWatermark;

  public OffsetOutOfRangeException(
      String namespace, String stream, int partition, long offset, long logStart, long hw) {
    super(
        Kind.INVALID,
        "offset out of range stream="
            + namespace
            + "/"
            + stream
            + " partition="
            + partition
            + " offset="
            + offset
            + " logStartOffset="
            + logStart
            + " highWatermark="
            + hw);
    this.logStartOffset = logStart;
    this.highWatermark = hw;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  public long highWatermark() {
    return highWatermark;
  }
}
