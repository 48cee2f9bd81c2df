package dev.loam.kafka.internal.api;

import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.cluster.TopicConfigs;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * DescribeConfigs: a topic's three served configs ({@link TopicConfigs}), each marked as the
 * default or as set on the topic. A broker resource answers an empty config list (the gateway has
 * no Kafka broker configs to show); other resource types are INVALID_REQUEST.
 */
public final class DescribeConfigsHandler implements ApiHandler {
  private final Topics topics;

  public DescribeConfigsHandler(Topics topics) {
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    DescribeConfigsRequest req = (DescribeConfigsRequest) request.body();
    List<CompletableFuture<DescribeConfigsResult>> each = new ArrayList<>();
    for (DescribeConfigsResource r : req.data().resources()) {
      each.add(describe(request.namespace(), r));
    }
    return Futures.all(each)
        .thenApply(
            rs ->
                Optional.of(
                    new DescribeConfigsResponseData()
                        .setThrottleTimeMs(0)
                        .setResults(new ArrayList<>(rs))));
  }

  private CompletableFuture<DescribeConfigsResult> describe(String ns, DescribeConfigsResource r) {
    DescribeConfigsResult base =
        new DescribeConfigsResult()
            .setResourceType(r.resourceType())
            .setResourceName(r.resourceName())
            .setConfigs(new ArrayList<>());
    if (r.resourceType() == ConfigResource.Type.BROKER.id()) {
      return CompletableFuture.completedFuture(base.setErrorCode(Errors.NONE.code()));
    }
    if (r.resourceType() != ConfigResource.Type.TOPIC.id()) {
      return CompletableFuture.completedFuture(
          base.setErrorCode(Errors.INVALID_REQUEST.code())
              .setErrorMessage(
                  "only topic and broker configs are served resourceType=" + r.resourceType()));
    }
    return topics
        .describe(ns, r.resourceName())
        .handle(
            (d, e) -> {
              if (e != null) {
                return base.setErrorCode(ErrorMapping.of(e, ErrorMapping.Context.ADMIN).code())
                    .setErrorMessage(ErrorMapping.message(e));
              }
              if (d.isEmpty()) {
                return base.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                    .setErrorMessage("no such topic topic=" + r.resourceName());
              }
              return base.setErrorCode(Errors.NONE.code()).setConfigs(configs(d.get(), r));
            });
  }

  private static List<DescribeConfigsResourceResult> configs(
      StreamDescription d, DescribeConfigsResource r) {
    List<DescribeConfigsResourceResult> out = new ArrayList<>();
    for (Map.Entry<String, String> e : TopicConfigs.of(d).entrySet()) {
      if (r.configurationKeys() != null && !r.configurationKeys().contains(e.getKey())) {
        continue;
      }
      boolean isDefault = e.getValue().equals(TopicConfigs.defaultValue(e.getKey()));
      out.add(
          new DescribeConfigsResourceResult()
              .setName(e.getKey())
              .setValue(e.getValue())
              .setReadOnly(false)
              .setIsSensitive(false)
              .setConfigSource(
                  (isDefault ? ConfigSource.DEFAULT_CONFIG : ConfigSource.TOPIC_CONFIG).id())
              .setConfigType(
                  (e.getKey().equals(TopicConfigs.CLEANUP_POLICY)
                          ? ConfigType.LIST
                          : ConfigType.LONG)
                      .id())
              .setSynonyms(new ArrayList<>()));
    }
    return out;
  }
}
