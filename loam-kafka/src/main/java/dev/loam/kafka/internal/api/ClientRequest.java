package dev.loam.kafka.internal.api;

import dev.loam.api.Principal;
import dev.loam.kafka.internal.cluster.ClientZone;
import dev.loam.kafka.internal.security.Session;
import java.util.Optional;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One parsed request of a connection, with the connection's {@link Session}: handlers read the
 * namespace the request acts in and who sent it here, in one place.
 */
public record ClientRequest(RequestHeader header, AbstractRequest body, Session session) {
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

  /**
   * The namespace whose streams are this request's topics: the connection's key's namespace, or the
   * listener's for a cluster-wide key or an unauthenticated connection.
   */
  public String namespace() {
    return session.namespace();
  }

  /** Who the connection authenticated as; empty when it did not (no authentication required). */
  public Optional<Principal> principal() {
    return session.principal();
  }

  /**
   * Whether the request may create topics (auto-creation included): Kafka's CREATE, Loam's admin.
   */
  public boolean mayCreateTopics() {
    return session.has(dev.loam.api.Role.ADMIN);
  }
}
