package dev.loam.kafka.internal.cluster;

import dev.loam.api.Log;
import dev.loam.api.NotOwnerException;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * Carries a topic admin request that only a stream's owner may apply (delete, grow, alter configs:
 * owner-bound in ownership-and-routing.txt) to the owner's own Kafka listener. Kafka clients send
 * admin requests to the controller Metadata names, and every gateway names itself, so a gateway
 * that is not the owner forwards: with a Kafka {@link Admin} client bootstrapped on the owner's
 * listener, as named by the {@link NotOwnerException} and the node registry. A forwarding client is
 * told about the owner alone (Metadata and DescribeCluster name only the answering node for its
 * client id), so every request it sends reaches the owner. A forwarded request carries the client
 * id {@value #CLIENT_ID} and is never forwarded again: an owner that moved meanwhile answers
 * NOT_CONTROLLER and the original client retries.
 */
public final class OwnerForwarding implements AutoCloseable {
  /** The client id of forwarded requests. */
  public static final String CLIENT_ID = "loam-owner-forward";

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Log log;
  private final KafkaEndpoints endpoints;
  private final Map<String, Admin> admins = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public OwnerForwarding(Log log, KafkaEndpoints endpoints) {
    this.log = log;
    this.endpoints = endpoints;
  }

  /** What the owner answered: {@link Errors#NONE}, or the error and its message. */
  public record Answer(Errors error, String message) {
    static final Answer OK = new Answer(Errors.NONE, null);
  }

  /** Whether a request came from another gateway's forwarding (and so must not go on). */
  public static boolean isForwarded(String clientId) {
    return CLIENT_ID.equals(clientId);
  }

  /**
   * The owner's Kafka listener when {@code failure} is a {@link NotOwnerException} naming another
   * node that serves one; empty otherwise (then the failure is answered as it is).
   */
  public CompletableFuture<Optional<String>> ownerListener(Throwable failure) {
    if (!(ErrorMapping.unwrap(failure) instanceof NotOwnerException n) || closed) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    if (n.ownerNodeId() == null || n.ownerNodeId().equals(endpoints.selfNodeId())) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return log.listNodes(Optional.empty())
        .thenApply(
            nodes ->
                nodes.stream()
                    .filter(d -> d.nodeId().equals(n.ownerNodeId()))
                    .findFirst()
                    .flatMap(endpoints::address)
                    .map(HostPort::toString));
  }

  /** Sends one admin operation to the listener at {@code address} and completes with its answer. */
  public CompletableFuture<Answer> forward(
      String address, Function<Admin, KafkaFuture<Void>> operation) {
    CompletableFuture<Answer> out = new CompletableFuture<>();
    try {
      operation
          .apply(admins.computeIfAbsent(address, OwnerForwarding::admin))
          .whenComplete(
              (v, e) -> {
                if (e == null) {
                  out.complete(Answer.OK);
                } else {
                  Throwable c = ErrorMapping.unwrap(e);
                  out.complete(new Answer(Errors.forException(c), c.getMessage()));
                }
              });
    } catch (RuntimeException e) {
      out.complete(new Answer(Errors.forException(e), e.getMessage()));
    }
    return out;
  }

  private static Admin admin(String address) {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            address,
            AdminClientConfig.CLIENT_ID_CONFIG,
            CLIENT_ID,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) TIMEOUT.toMillis(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            (int) TIMEOUT.toMillis()));
  }

  @Override
  public void close() {
    closed = true;
    for (Admin a : admins.values()) {
      a.close(Duration.ofSeconds(2));
    }
    admins.clear();
  }
}
