package dev.loam.sim;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Per-component random streams derived from the root seed: each component draws from its own
 * stream, so adding a draw in one component does not shift every other component's choices.
 */
public final class Seeds {
  private Seeds() {}

  /** A generator for the component {@code name}, a pure function of (root, name). */
  public static SplittableRandom stream(long root, String name) {
    long h = 0xcbf29ce484222325L; // FNV-1a 64 over the name's UTF-8 bytes
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    return new SplittableRandom(mix(root ^ mix(h)));
  }

  /** SplitMix64's finaliser. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
