package dev.loam.api;

import java.util.List;
import java.util.Objects;

/**
 * The types of the CloudEvents dedupe ledger calls of {@link Log} ({@link Log#claimEvents}, {@link
 * Log#completeEvents}, {@link Log#releaseEvents}; docs/reference/cloudevents.md "Deduplication"). A
 * key is the 32-byte SHA-256(source ‖ 0x00 ‖ id) of an event, scoped by the stream.
 */
public final class EventLedger {
  private EventLedger() {}

  /** A key's state when a claim asked for it. */
  public enum Status {
    /** Now pending under this claim: append the event, then complete or release. */
    CLAIMED,
    /** Done by an earlier write within the window: {@code partition} and {@code offset} are its. */
    DUPLICATE,
    /** Pending under another claim until {@code expiresAtMillis} (metastore clock). */
    IN_FLIGHT
  }

  /**
   * One key's answer; partition and offset -1 unless DUPLICATE, expiresAtMillis -1 unless
   * IN_FLIGHT.
   */
  public record Claim(Status status, int partition, long offset, long expiresAtMillis) {}

  /** The answer to a claim: its id (to complete or release it) and one answer per key, in order. */
  public record Claims(long claimId, long expiresAtMillis, List<Claim> claims) {
    public Claims {
      claims = List.copyOf(claims);
    }
  }

  /** A claimed key and where its event was appended. */
  public record Completed(byte[] key, int partition, long offset) {
    public Completed {
      Objects.requireNonNull(key, "key");
    }
  }
}
