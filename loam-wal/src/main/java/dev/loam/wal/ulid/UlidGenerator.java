package dev.loam.wal.ulid;

import dev.loam.error.LoamException;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Generates strictly increasing ULIDs from an injected randomness source and caller-supplied time
 * (no ambient clock or randomness, STYLE.md §5). Thread-safe.
 */
public final class UlidGenerator {
  private final RandomGenerator random;
  private boolean hasLast;
  private long lastMsb;
  private long lastLsb;

  /**
   * @throws NullPointerException if {@code random} is null
   */
  public UlidGenerator(RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * The next ULID. If {@code nowMillis} is after the previous id's time, a fresh id with new
   * randomness; otherwise (same millisecond, or the clock went backwards) the previous time is kept
   * and the 80-bit random part incremented, so ids from one generator strictly increase.
   *
   * @throws LoamException INVALID if {@code nowMillis} is outside 0..2^48-1; INTERNAL if the 80
   *     random bits overflow within one millisecond
   */
  public synchronized Ulid next(long nowMillis) {
    if (nowMillis < 0 || nowMillis > Ulid.MAX_TIMESTAMP) {
      throw new LoamException(
          LoamException.Kind.INVALID, "ulid time out of range nowMillis=" + nowMillis);
    }
    if (!hasLast || nowMillis > (lastMsb >>> 16)) {
      lastMsb = (nowMillis << 16) | (random.nextInt() & 0xffff);
      lastLsb = random.nextLong();
      hasLast = true;
    } else {
      long lsb = lastLsb + 1;
      long msb = lastMsb;
      if (lsb == 0) { // carry into the top 16 random bits
        if ((msb & 0xffff) == 0xffff) {
          throw new LoamException(
              LoamException.Kind.INTERNAL,
              "ulid random part overflow timestampMillis=" + (msb >>> 16));
        }
        msb++;
      }
      lastMsb = msb;
      lastLsb = lsb;
    }
    return new Ulid(lastMsb, lastLsb);
  }
}
