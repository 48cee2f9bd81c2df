package dev.loam.kafka.internal.security;

/** The entry point of the SASL fuzz target ({@code SaslTokenFuzzTest}) into this package. */
public final class SaslTokenFuzzing {
  private SaslTokenFuzzing() {}

  /** {@link SaslTokenContract#check} of {@code token} in {@code mode}. */
  public static void check(int mode, byte[] token) throws Exception {
    SaslTokenContract.check(mode, token);
  }
}
