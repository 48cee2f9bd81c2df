package dev.loam.kafka.internal.api;

import dev.loam.api.StreamUpdate;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.cluster.TopicConfigs;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;

/**
 * IncrementalAlterConfigs on topics: SET changes a served config ({@link TopicConfigs}), DELETE
 * returns it to its default (unlimited retention, delete policy); APPEND and SUBTRACT are refused
 * with INVALID_CONFIG (no served config is a list Loam can extend). All changes of one resource are
 * one atomic stream update ({@code Log.updateStream}); {@code validate_only} checks them and the
 * topic without changing anything. Other resource types are INVALID_REQUEST.
 */
public final class IncrementalAlterConfigsHandler implements ApiHandler {
  private static final byte SET = 0;
  private static final byte DELETE = 1;

  private final Topics topics;
  private final OwnerForwarding owners;

  public IncrementalAlterConfigsHandler(Topics topics, OwnerForwarding owners) {
    this.topics = topics;
    this.owners = owners;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    IncrementalAlterConfigsRequest req = (IncrementalAlterConfigsRequest) request.body();
    boolean validateOnly = req.data().validateOnly();
    boolean mayForward = !OwnerForwarding.isForwarded(request.clientId());
    List<CompletableFuture<AlterConfigsResourceResponse>> each = new ArrayList<>();
    for (AlterConfigsResource r : req.data().resources()) {
      each.add(alter(request, r, validateOnly, mayForward));
    }
    return Futures.all(each)
        .thenApply(
            rs ->
                Optional.of(
                    new IncrementalAlterConfigsResponseData()
                        .setThrottleTimeMs(0)
                        .setResponses(new ArrayList<>(rs))));
  }

  private CompletableFuture<AlterConfigsResourceResponse> alter(
      ClientRequest request, AlterConfigsResource r, boolean validateOnly, boolean mayForward) {
    String ns = request.namespace();
    AlterConfigsResourceResponse base =
        new AlterConfigsResourceResponse()
            .setResourceType(r.resourceType())
            .setResourceName(r.resourceName());
    if (r.resourceType() != ConfigResource.Type.TOPIC.id()) {
      return CompletableFuture.completedFuture(
          base.setErrorCode(Errors.INVALID_REQUEST.code())
              .setErrorMessage(
                  "only topic configs can be altered resourceType=" + r.resourceType()));
    }
    StreamUpdate update = StreamUpdate.none();
    try {
      for (AlterableConfig c : r.configs()) {
        update =
            switch (c.configOperation()) {
              case SET -> TopicConfigs.apply(update, c.name(), c.value());
              case DELETE ->
                  TopicConfigs.apply(update, c.name(), TopicConfigs.defaultValue(c.name()));
              default ->
                  throw new InvalidConfigurationException(
                      "config operation "
                          + c.configOperation()
                          + " is not supported for config "
                          + c.name()
                          + " (only SET and DELETE)");
            };
      }
    } catch (ApiException e) {
      return CompletableFuture.completedFuture(
          base.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage()));
    }
    StreamUpdate u = update;
    return topics
        .describe(ns, r.resourceName())
        .thenCompose(
            d -> {
              if (d.isEmpty()) {
                return CompletableFuture.completedFuture(
                    base.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("no such topic topic=" + r.resourceName()));
              }
              if (validateOnly || u.isEmpty()) {
                return CompletableFuture.completedFuture(base.setErrorCode(Errors.NONE.code()));
              }
              return topics
                  .log()
                  .updateStream(ns, r.resourceName(), u)
                  .handle(
                      (x, e) ->
                          e == null
                              ? CompletableFuture.completedFuture(
                                  base.setErrorCode(Errors.NONE.code()))
                              : orForward(request, r, base, e, mayForward))
                  .thenCompose(f -> f);
            })
        .exceptionally(
            e ->
                base.setErrorCode(ErrorMapping.of(e, ErrorMapping.Context.ADMIN).code())
                    .setErrorMessage(ErrorMapping.message(e)));
  }

  /**
   * The owner applies what this node may not: the same operations, through its own listener. A
   * failure that is not about ownership is answered as it is.
   */
  private CompletableFuture<AlterConfigsResourceResponse> orForward(
      ClientRequest request,
      AlterConfigsResource r,
      AlterConfigsResourceResponse base,
      Throwable e,
      boolean mayForward) {
    AlterConfigsResourceResponse failed =
        base.setErrorCode(ErrorMapping.of(e, ErrorMapping.Context.ADMIN).code())
            .setErrorMessage(ErrorMapping.message(e));
    if (!mayForward) {
      return CompletableFuture.completedFuture(failed);
    }
    List<AlterConfigOp> ops = new ArrayList<>();
    for (AlterableConfig c : r.configs()) {
      ops.add(
          new AlterConfigOp(
              new ConfigEntry(c.name(), c.value()),
              AlterConfigOp.OpType.forId(c.configOperation())));
    }
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, r.resourceName());
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
                            request.namespace(),
                            a -> a.incrementalAlterConfigs(Map.of(resource, ops)).all())
                        .thenApply(
                            answer ->
                                base.setErrorCode(answer.error().code())
                                    .setErrorMessage(answer.message())));
  }
}
