package dev.loam.kafka.internal.api;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreatePartitionsRequest;

/**
 * CreatePartitions: grows a stream to the requested total ({@code Log.addPartitions}). A count not
 * above the current one is INVALID_PARTITIONS naming both, as Kafka answers; manual assignments are
 * refused. {@code validate_only} checks without changing anything. Only the stream's owner may grow
 * it; another node forwards the request to the owner's listener ({@link OwnerForwarding}).
 */
public final class CreatePartitionsHandler implements ApiHandler {
  private final Topics topics;
  private final OwnerForwarding owners;

  public CreatePartitionsHandler(Topics topics, OwnerForwarding owners) {
    this.topics = topics;
    this.owners = owners;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    CreatePartitionsRequest req = (CreatePartitionsRequest) request.body();
    boolean validateOnly = req.data().validateOnly();
    boolean mayForward = !OwnerForwarding.isForwarded(request.clientId());
    List<CompletableFuture<CreatePartitionsTopicResult>> each = new ArrayList<>();
    for (CreatePartitionsTopic t : req.data().topics()) {
      each.add(grow(request, t, validateOnly, mayForward));
    }
    return Futures.all(each)
        .thenApply(
            rs ->
                Optional.of(
                    new CreatePartitionsResponseData()
                        .setThrottleTimeMs(0)
                        .setResults(new ArrayList<>(rs))));
  }

  private CompletableFuture<CreatePartitionsTopicResult> grow(
      ClientRequest request, CreatePartitionsTopic t, boolean validateOnly, boolean mayForward) {
    String ns = request.namespace();
    if (t.assignments() != null && !t.assignments().isEmpty()) {
      return CompletableFuture.completedFuture(
          result(
              t.name(),
              Errors.INVALID_REPLICA_ASSIGNMENT,
              "manual replica assignment is not supported"));
    }
    return topics
        .describe(ns, t.name())
        .thenCompose(
            d -> {
              if (d.isEmpty()) {
                return CompletableFuture.completedFuture(
                    result(
                        t.name(),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        "no such topic topic=" + t.name()));
              }
              int current = d.get().partitions().size();
              if (t.count() <= current || t.count() > 10_000) {
                return CompletableFuture.completedFuture(
                    result(
                        t.name(),
                        Errors.INVALID_PARTITIONS,
                        "topic has "
                            + current
                            + " partitions; the new count must be above it and at most 10000"
                            + " count="
                            + t.count()));
              }
              if (validateOnly) {
                return CompletableFuture.completedFuture(result(t.name(), Errors.NONE, null));
              }
              return topics
                  .log()
                  .addPartitions(ns, t.name(), t.count())
                  .handle(
                      (v, e) ->
                          e == null
                              ? CompletableFuture.completedFuture(
                                  result(t.name(), Errors.NONE, null))
                              : orForward(request, t, e, mayForward))
                  .thenCompose(f -> f);
            })
        .exceptionally(e -> failure(t.name(), e));
  }

  private CompletableFuture<CreatePartitionsTopicResult> orForward(
      ClientRequest request, CreatePartitionsTopic t, Throwable e, boolean mayForward) {
    if (!mayForward) {
      return CompletableFuture.completedFuture(failure(t.name(), e));
    }
    return owners
        .owner(e)
        .thenCompose(
            owner ->
                owner.isEmpty()
                    ? CompletableFuture.completedFuture(failure(t.name(), e))
                    : owners
                        .forward(
                            owner.get(),
                            request.principal(),
                            request.namespace(),
                            a ->
                                a.createPartitions(
                                        Map.of(t.name(), NewPartitions.increaseTo(t.count())))
                                    .all())
                        .thenApply(answer -> result(t.name(), answer.error(), answer.message())));
  }

  private static CreatePartitionsTopicResult failure(String name, Throwable e) {
    Throwable c = ErrorMapping.unwrap(e);
    Errors code =
        c instanceof LoamException le && le.kind() == Kind.INVALID
            ? Errors.INVALID_PARTITIONS
            : ErrorMapping.of(c, ErrorMapping.Context.ADMIN);
    return result(name, code, ErrorMapping.message(c));
  }

  private static CreatePartitionsTopicResult result(String name, Errors e, String message) {
    return new CreatePartitionsTopicResult()
        .setName(name)
        .setErrorCode(e.code())
        .setErrorMessage(message);
  }
}
