package dev.loam.sim;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.List;

/**
 * The canonical event log of one run, folded into a SHA-256 as it grows (so memory stays bounded);
 * the last few lines are kept to print with a failure. Two runs of one seed must give the same
 * hash: that is what {@code DeterminismSimTest} checks. Lines must not contain identity hash codes
 * or anything else that differs between runs.
 */
public final class Trace {
  private static final int TAIL = 40;

  private final SimClock clock;
  private final MessageDigest digest;
  private final ArrayDeque<String> tail = new ArrayDeque<>();
  private long lines;

  public Trace(SimClock clock) {
    this.clock = clock;
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  /**
   * Trace lines matching this regex ({@code -Dloam.sim.print=REGEX}) are printed as they happen.
   */
  private static final java.util.regex.Pattern PRINT =
      System.getProperty("loam.sim.print") == null
          ? null
          : java.util.regex.Pattern.compile(System.getProperty("loam.sim.print"));

  /** Adds one event, stamped with the simulated time. */
  public void add(String event) {
    String line = clock.nanos() + " " + event + "\n";
    if (PRINT != null && PRINT.matcher(event).find()) {
      System.out.print(line);
    }
    digest.update(line.getBytes(StandardCharsets.UTF_8));
    lines++;
    if (tail.size() == TAIL) {
      tail.removeFirst();
    }
    tail.addLast(line);
  }

  public long lines() {
    return lines;
  }

  /** The hash of every line so far (the digest is cloned, so the trace can keep growing). */
  public String hash() {
    try {
      MessageDigest copy = (MessageDigest) digest.clone();
      return HexFormat.of().formatHex(copy.digest());
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The last lines, oldest first. */
  public List<String> tail() {
    return List.copyOf(tail);
  }
}
