package dev.loam.kafka.internal.group;

import dev.loam.api.NotOwnerException;
import dev.loam.kafka.internal.api.ApiHandler;
import dev.loam.kafka.internal.api.ClientRequest;
import dev.loam.kafka.internal.cluster.ClusterView.Broker;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;

/**
 * FindCoordinator (v0–6, batched keys from v4): a group's coordinator is the node that owns its
 * coordinator stream; asking here places or revives it as ownership routing says. Transaction and
 * share-group keys are refused at once with a message saying Loam does not support them.
 */
public final class FindCoordinatorHandler implements ApiHandler {
  static final byte GROUP = 0;
  static final byte TRANSACTION = 1;

  private final GroupApis apis;

  public FindCoordinatorHandler(GroupApis apis) {
    this.apis = apis;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    FindCoordinatorRequestData d = ((FindCoordinatorRequest) request.body()).data();
    List<String> keys = request.version() >= 4 ? d.coordinatorKeys() : List.of(d.key());
    String ns = apis.namespace(request);
    List<CompletableFuture<Coordinator>> each = new ArrayList<>();
    for (String key : keys) {
      each.add(find(ns, key, d.keyType()));
    }
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              FindCoordinatorResponseData r = new FindCoordinatorResponseData();
              if (request.version() >= 4) {
                each.forEach(f -> r.coordinators().add(f.join()));
              } else {
                Coordinator c = each.get(0).join();
                r.setErrorCode(c.errorCode())
                    .setErrorMessage(c.errorMessage())
                    .setNodeId(c.nodeId())
                    .setHost(c.host())
                    .setPort(c.port());
              }
              return Optional.of(r);
            });
  }

  private CompletableFuture<Coordinator> find(String ns, String key, byte keyType) {
    if (keyType == TRANSACTION) {
      return error(
          key,
          Errors.INVALID_REQUEST,
          "Kafka transactions are not supported by Loam (transactional.id=" + key + ")");
    }
    if (keyType != GROUP) {
      return error(key, Errors.INVALID_REQUEST, "share groups are not supported by Loam");
    }
    if (key == null || key.isEmpty()) {
      return error(key, Errors.INVALID_REQUEST, "the group id must not be empty");
    }
    return apis.log
        .acquireGroupCoordinator(ns, key)
        .thenApply(c -> apis.endpoints.selfNodeId())
        .exceptionally(
            t -> {
              if (dev.loam.kafka.internal.errors.ErrorMapping.unwrap(t)
                  instanceof NotOwnerException n) {
                return n.ownerNodeId();
              }
              throw new java.util.concurrent.CompletionException(t);
            })
        .thenCompose(
            node ->
                apis.cluster
                    .brokers(Optional.empty())
                    .thenApply(
                        b -> {
                          for (Broker x : b.all()) {
                            if (x.nodeId().equals(node)) {
                              return new Coordinator()
                                  .setKey(key)
                                  .setNodeId(x.kafkaId())
                                  .setHost(x.address().host())
                                  .setPort(x.address().port())
                                  .setErrorCode(Errors.NONE.code());
                            }
                          }
                          // The owner serves no Kafka listener (yet): the client asks again.
                          return coordinatorError(
                              key,
                              Errors.COORDINATOR_NOT_AVAILABLE,
                              "the group's coordinator node " + node + " has no Kafka listener");
                        }))
        .exceptionally(
            t -> {
              Errors e = GroupErrors.of(t);
              if (e == Errors.NOT_COORDINATOR || e == Errors.UNKNOWN_SERVER_ERROR) {
                e = Errors.COORDINATOR_NOT_AVAILABLE;
              }
              return coordinatorError(
                  key, e, dev.loam.kafka.internal.errors.ErrorMapping.message(t));
            });
  }

  private static CompletableFuture<Coordinator> error(String key, Errors e, String message) {
    return CompletableFuture.completedFuture(coordinatorError(key, e, message));
  }

  private static Coordinator coordinatorError(String key, Errors e, String message) {
    return new Coordinator()
        .setKey(key)
        .setNodeId(-1)
        .setHost("")
        .setPort(-1)
        .setErrorCode(e.code())
        .setErrorMessage(message);
  }
}
