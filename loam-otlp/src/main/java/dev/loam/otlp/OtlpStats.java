package dev.loam.otlp;

import java.util.Map;

/**
 * Counters of an {@link OtlpReceiver} since it started, both transports together.
 *
 * @param exports export requests answered with success
 * @param records records committed
 * @param rejectedRecords LogRecords rejected as invalid (reported in {@code partial_success})
 * @param refusals refused requests by reason ({@code MALFORMED}, {@code QUOTA_EXCEEDED}, ...)
 */
public record OtlpStats(
    long exports, long records, long rejectedRecords, Map<String, Long> refusals) {
  public OtlpStats {
    refusals = Map.copyOf(refusals);
  }

  /** Refusals of one reason. */
  public long refused(String reason) {
    return refusals.getOrDefault(reason, 0L);
  }
}
