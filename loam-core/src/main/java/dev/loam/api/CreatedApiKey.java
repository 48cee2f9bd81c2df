package dev.loam.api;

/**
 * A key just created, with its secret: the one time the secret is shown. The token a client sends
 * in {@code Authorization: Bearer} is {@link #token()}, {@code <id>.<secret>}; a Kafka client uses
 * the id as its SASL user name and the secret as its password. {@code toString} masks the secret.
 */
public record CreatedApiKey(ApiKey key, String secret) {
  /** The bearer token: {@code <id>.<secret>}. */
  public String token() {
    return key.id() + "." + secret;
  }

  @Override
  public String toString() {
    return "CreatedApiKey[key=" + key + ", secret=***]";
  }
}
