package dev.loam.client;

/**
 * 416: a fetch or consumer commit named an offset outside the partition's {@code [logStartOffset,
 * highWatermark]}; both bounds come with it, so the caller can reset to either.
 */
public final class OffsetOutOfRangeException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  private final long logStartOffset;
  private final long highWatermark;

  public OffsetOutOfRangeException(
      String message, String node, long logStartOffset, long highWatermark) {
    super("offset_out_of_range", 416, message, node, null);
    this.logStartOffset = logStartOffset;
    this.highWatermark = highWatermark;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  public long highWatermark() {
    return highWatermark;
  }
}
