package dev.loam.meta.command;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the metastore keeps to verify an API key's secret, never the secret itself: the RFC 5802
 * salt and iteration count, and for SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 7677) the {@code
 * StoredKey} and {@code ServerKey} derived from the secret. Verifying a presented secret derives
 * its {@code ClientKey} with this salt and count and compares {@code H(ClientKey)} to the stored
 * key; the Kafka gateway's SCRAM exchange uses the same values.
 *
 * <p>The arrays are copied in and out, so an instance is immutable; {@code equals} compares
 * contents. {@code toString} shows lengths only: derived keys are not secrets, but a leaked {@code
 * StoredKey} and {@code ServerKey} let an attacker impersonate the server in a SCRAM exchange.
 */
public final class ScramSecrets {
  /** Salt length in bytes. */
  public static final int SALT_BYTES = 16;

  /** The fewest PBKDF2 iterations accepted: Kafka's SCRAM default and minimum. */
  public static final int MIN_ITERATIONS = 4096;

  /** The most PBKDF2 iterations accepted: a bound on what one verification costs. */
  public static final int MAX_ITERATIONS = 1_000_000;

  /** SHA-256 output length: StoredKey and ServerKey of SCRAM-SHA-256. */
  public static final int SHA256_BYTES = 32;

  /** SHA-512 output length: StoredKey and ServerKey of SCRAM-SHA-512. */
  public static final int SHA512_BYTES = 64;

  private final byte[] salt;
  private final int iterations;
  private final byte[] storedKey256;
  private final byte[] serverKey256;
  private final byte[] storedKey512;
  private final byte[] serverKey512;

  /** Copies the arrays; none may be null (their lengths are the state machine's to check). */
  public ScramSecrets(
      byte[] salt,
      int iterations,
      byte[] storedKey256,
      byte[] serverKey256,
      byte[] storedKey512,
      byte[] serverKey512) {
    this.salt = Objects.requireNonNull(salt, "salt").clone();
    this.iterations = iterations;
    this.storedKey256 = Objects.requireNonNull(storedKey256, "storedKey256").clone();
    this.serverKey256 = Objects.requireNonNull(serverKey256, "serverKey256").clone();
    this.storedKey512 = Objects.requireNonNull(storedKey512, "storedKey512").clone();
    this.serverKey512 = Objects.requireNonNull(serverKey512, "serverKey512").clone();
  }

  public byte[] salt() {
    return salt.clone();
  }

  public int iterations() {
    return iterations;
  }

  public byte[] storedKey256() {
    return storedKey256.clone();
  }

  public byte[] serverKey256() {
    return serverKey256.clone();
  }

  public byte[] storedKey512() {
    return storedKey512.clone();
  }

  public byte[] serverKey512() {
    return serverKey512.clone();
  }

  /** Whether every length and the iteration count are what the state machine accepts. */
  public boolean isWellFormed() {
    return salt.length == SALT_BYTES
        && iterations >= MIN_ITERATIONS
        && iterations <= MAX_ITERATIONS
        && storedKey256.length == SHA256_BYTES
        && serverKey256.length == SHA256_BYTES
        && storedKey512.length == SHA512_BYTES
        && serverKey512.length == SHA512_BYTES;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScramSecrets s
        && iterations == s.iterations
        && MessageDigest.isEqual(salt, s.salt)
        && MessageDigest.isEqual(storedKey256, s.storedKey256)
        && MessageDigest.isEqual(serverKey256, s.serverKey256)
        && MessageDigest.isEqual(storedKey512, s.storedKey512)
        && MessageDigest.isEqual(serverKey512, s.serverKey512);
  }

  @Override
  public int hashCode() {
    int h = iterations;
    for (byte[] b : new byte[][] {salt, storedKey256, serverKey256, storedKey512, serverKey512}) {
      h = 31 * h + Arrays.hashCode(b);
    }
    return h;
  }

  @Override
  public String toString() {
    return "ScramSecrets{salt=" + salt.length + " bytes, iterations=" + iterations + ", keys=***}";
  }
}
