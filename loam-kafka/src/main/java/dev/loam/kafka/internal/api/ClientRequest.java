package dev.loam.kafka.internal.api;

import dev.loam.kafka.internal.cluster.ClientZone;
import java.util.Optional;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/** One parsed request of a connection, with the zone its client id names. */
public record ClientRequest(RequestHeader header, AbstractRequest body) {
  /** The request's API version. */
  public short version() {
    return header.apiVersion();
  }

  /** The client id, possibly null. */
  public String clientId() {
    return header.clientId();
  }

  /** The zone the client id names ({@link ClientZone}). */
  public Optional<String> zone() {
    return ClientZone.of(header.clientId());
  }
}
