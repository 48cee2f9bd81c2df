package dev.loam.kafka.internal.cluster;

import java.util.Optional;

/** A Kafka listener address as Metadata announces it. */
public record HostPort(String host, int port) {
  /** Parses {@code host:port} (IPv6 hosts in brackets); empty for anything else. */
  public static Optional<HostPort> parse(String address) {
    if (address == null) {
      return Optional.empty();
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      return Optional.empty();
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      return port > 0 && port <= 65535 && !host.isEmpty()
          ? Optional.of(new HostPort(host, port))
          : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
