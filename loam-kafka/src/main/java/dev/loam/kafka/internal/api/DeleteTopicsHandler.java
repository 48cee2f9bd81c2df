package dev.loam.kafka.internal.api;

import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteTopicsRequest;

/**
 * DeleteTopics, by name (v0–5) or by name or topic id (v6+): deletes the stream. A missing topic is
 * UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID when named by id). Only the stream's owner may
 * delete it; another node forwards the deletion to the owner's listener ({@link OwnerForwarding}).
 */
public final class DeleteTopicsHandler implements ApiHandler {
  private final Topics topics;
  private final OwnerForwarding owners;

  public DeleteTopicsHandler(Topics topics, OwnerForwarding owners) {
    this.topics = topics;
    this.owners = owners;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    DeleteTopicsRequest req = (DeleteTopicsRequest) request.body();
    boolean mayForward = !OwnerForwarding.isForwarded(request.clientId());
    String ns = request.namespace();
    List<CompletableFuture<DeletableTopicResult>> each = new ArrayList<>();
    if (request.version() < 6) {
      for (String name : req.data().topicNames()) {
        each.add(delete(request, name, null, mayForward));
      }
    } else {
      for (DeleteTopicState s : req.data().topics()) {
        if (s.name() != null) {
          each.add(delete(request, s.name(), null, mayForward));
        } else {
          Uuid id = s.topicId();
          each.add(
              topics
                  .nameOf(ns, id)
                  .thenCompose(
                      n ->
                          n.isPresent()
                              ? delete(request, n.get(), id, mayForward)
                              : CompletableFuture.completedFuture(
                                  new DeletableTopicResult()
                                      .setTopicId(id)
                                      .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
                                      .setErrorMessage("no topic has id " + id))));
        }
      }
    }
    return Futures.all(each)
        .thenApply(
            rs -> {
              DeleteTopicsResponseData r = new DeleteTopicsResponseData().setThrottleTimeMs(0);
              rs.forEach(r.responses()::add);
              return Optional.of(r);
            });
  }

  private CompletableFuture<DeletableTopicResult> delete(
      ClientRequest request, String name, Uuid id, boolean mayForward) {
    String ns = request.namespace();
    return topics
        .describe(ns, name)
        .thenCompose(
            d -> {
              if (d.isEmpty()) {
                return CompletableFuture.completedFuture(
                    new DeletableTopicResult()
                        .setName(name)
                        .setTopicId(id == null ? Uuid.ZERO_UUID : id)
                        .setErrorCode(
                            (id == null
                                    ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                                    : Errors.UNKNOWN_TOPIC_ID)
                                .code())
                        .setErrorMessage("no such topic topic=" + name));
              }
              Uuid topicId = topics.idOf(d.get());
              return topics
                  .log()
                  .deleteStream(ns, name)
                  .handle(
                      (v, e) -> {
                        DeletableTopicResult r =
                            new DeletableTopicResult().setName(name).setTopicId(topicId);
                        if (e == null) {
                          topics.forget(topicId);
                          return CompletableFuture.completedFuture(
                              r.setErrorCode(Errors.NONE.code()));
                        }
                        DeletableTopicResult failed =
                            r.setErrorCode(ErrorMapping.of(e, ErrorMapping.Context.ADMIN).code())
                                .setErrorMessage(ErrorMapping.message(e));
                        if (!mayForward) {
                          return CompletableFuture.completedFuture(failed);
                        }
                        return owners
                            .owner(e)
                            .thenCompose(
                                owner ->
                                    owner.isEmpty()
                                        ? CompletableFuture.completedFuture(failed)
                                        : owners
                                            .forward(
                                                owner.get(),
                                                request.principal(),
                                                ns,
                                                a -> a.deleteTopics(List.of(name)).all())
                                            .thenApply(
                                                answer -> {
                                                  if (answer.error() == Errors.NONE) {
                                                    topics.forget(topicId);
                                                  }
                                                  return r.setErrorCode(answer.error().code())
                                                      .setErrorMessage(answer.message());
                                                }));
                      })
                  .thenCompose(f -> f);
            })
        .exceptionally(
            e ->
                new DeletableTopicResult()
                    .setName(name)
                    .setErrorCode(ErrorMapping.of(e, ErrorMapping.Context.ADMIN).code())
                    .setErrorMessage(ErrorMapping.message(e)));
  }
}
