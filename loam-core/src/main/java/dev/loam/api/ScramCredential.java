package dev.loam.api;

/**
 * What the Kafka gateway's SASL/SCRAM needs of one API key (RFC 5802, RFC 7677): the mechanism
 * ({@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}), salt, iteration count, {@code StoredKey} and
 * {@code ServerKey}. Not the secret; the arrays are copies. {@code toString} shows no key bytes.
 */
public record ScramCredential(
    String mechanism, byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
  /** The SCRAM-SHA-256 mechanism name. */
  public static final String SCRAM_SHA_256 = "SCRAM-SHA-256";

  /** The SCRAM-SHA-512 mechanism name. */
  public static final String SCRAM_SHA_512 = "SCRAM-SHA-512";

  public ScramCredential {
    salt = salt.clone();
    storedKey = storedKey.clone();
    serverKey = serverKey.clone();
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  @Override
  public byte[] storedKey() {
    return storedKey.clone();
  }

  @Override
  public byte[] serverKey() {
    return serverKey.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScramCredential c
        && mechanism.equals(c.mechanism)
        && iterations == c.iterations
        && java.util.Arrays.equals(salt, c.salt)
        && java.security.MessageDigest.isEqual(storedKey, c.storedKey)
        && java.security.MessageDigest.isEqual(serverKey, c.serverKey);
  }

  @Override
  public int hashCode() {
    return mechanism.hashCode() * 31 + iterations;
  }

  @Override
  public String toString() {
    return "ScramCredential[mechanism=" + mechanism + ", iterations=" + iterations + ", keys=***]";
  }
}
