package dev.loam.kafka.internal.cluster;

import java.util.Optional;

/**
 * The availability zone a client declares in its client id, after WarpStream's {@code ws_az}
 * convention: one comma-separated element {@code loam_az=<zone>}, for example {@code
 * myapp,loam_az=zone-a}. A Kafka Metadata request carries no rack (producers never send one), so
 * the client id is the one field every client can set.
 */
public final class ClientZone {
  /** The element prefix that names the zone. */
  public static final String PREFIX = "loam_az=";

  private ClientZone() {}

  /** The zone named in {@code clientId}; empty when none (or an empty value) is given. */
  public static Optional<String> of(String clientId) {
    if (clientId == null || clientId.isEmpty()) {
      return Optional.empty();
    }
    for (String element : clientId.split(",")) {
      String e = element.trim();
      if (e.startsWith(PREFIX) && e.length() > PREFIX.length()) {
        return Optional.of(e.substring(PREFIX.length()));
      }
    }
    return Optional.empty();
  }
}
