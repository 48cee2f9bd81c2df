package dev.loam.kafka.internal.api;

import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kafka.internal.cluster.TopicConfigs;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/**
 * CreateTopics: each topic becomes a standard-class stream with the requested partitions (-1: the
 * listener's default) and configs ({@link TopicConfigs}). The replication factor is accepted and
 * ignored (durability is the object store's: a stream is as durable as its class says), and
 * answered as 1; manual replica assignments are refused. {@code validate_only} checks the name,
 * partitions, configs and existence without creating anything.
 */
public final class CreateTopicsHandler implements ApiHandler {
  private final Topics topics;

  public CreateTopicsHandler(Topics topics) {
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    CreateTopicsRequest req = (CreateTopicsRequest) request.body();
    boolean validateOnly = req.data().validateOnly();
    List<CompletableFuture<CreatableTopicResult>> each = new ArrayList<>();
    for (CreatableTopic t : req.data().topics()) {
      each.add(create(request.namespace(), t, validateOnly));
    }
    return Futures.all(each)
        .thenApply(
            rs -> {
              CreateTopicsResponseData r = new CreateTopicsResponseData().setThrottleTimeMs(0);
              rs.forEach(r.topics()::add);
              return Optional.of(r);
            });
  }

  private CompletableFuture<CreatableTopicResult> create(
      String ns, CreatableTopic t, boolean validateOnly) {
    StreamSpec spec;
    try {
      Topic.validate(t.name());
      if (!t.assignments().isEmpty()) {
        return done(
            failed(
                t.name(),
                Errors.INVALID_REPLICA_ASSIGNMENT,
                "manual replica assignment is not supported"));
      }
      if (t.replicationFactor() != -1 && t.replicationFactor() < 1) {
        return done(
            failed(
                t.name(),
                Errors.INVALID_REPLICATION_FACTOR,
                "replication factor must be -1 or at least 1 replicationFactor="
                    + t.replicationFactor()));
      }
      int partitions = t.numPartitions() == -1 ? topics.defaultPartitions() : t.numPartitions();
      if (partitions < 1 || partitions > 10_000) {
        return done(
            failed(
                t.name(),
                Errors.INVALID_PARTITIONS,
                "partitions must be -1 or within 1..10000 numPartitions=" + t.numPartitions()));
      }
      Map<String, String> configs = new LinkedHashMap<>();
      for (CreatableTopicConfig c : t.configs()) {
        configs.put(c.name(), c.value());
      }
      spec = TopicConfigs.spec(partitions, configs);
    } catch (ApiException e) {
      return done(failed(t.name(), Errors.forException(e), e.getMessage()));
    }
    if (validateOnly) {
      return topics
          .describe(ns, t.name())
          .handle(
              (d, e) -> {
                if (e != null) {
                  return failure(t.name(), e);
                }
                return d.isPresent()
                    ? failed(
                        t.name(), Errors.TOPIC_ALREADY_EXISTS, "topic exists topic=" + t.name())
                    : success(t.name(), Uuid.ZERO_UUID, spec);
              });
    }
    return topics
        .log()
        .createStream(ns, t.name(), spec)
        .handle(
            (StreamDescription d, Throwable e) ->
                e == null ? success(t.name(), topics.idOf(d), d.spec()) : failure(t.name(), e));
  }

  private static CompletableFuture<CreatableTopicResult> done(CreatableTopicResult r) {
    return CompletableFuture.completedFuture(r);
  }

  static CreatableTopicResult success(String name, Uuid id, StreamSpec spec) {
    CreatableTopicResult r =
        new CreatableTopicResult()
            .setName(name)
            .setTopicId(id)
            .setErrorCode(Errors.NONE.code())
            .setNumPartitions(spec.partitions())
            .setReplicationFactor((short) 1);
    List<CreatableTopicConfigs> cs = new ArrayList<>();
    Map<String, String> values =
        TopicConfigs.of(new StreamDescription(0, "", name, spec, List.of()));
    values.forEach(
        (k, v) ->
            cs.add(
                new CreatableTopicConfigs()
                    .setName(k)
                    .setValue(v)
                    .setReadOnly(false)
                    .setIsSensitive(false)
                    .setConfigSource(
                        (v.equals(TopicConfigs.defaultValue(k))
                                ? ConfigSource.DEFAULT_CONFIG
                                : ConfigSource.TOPIC_CONFIG)
                            .id())));
    r.setConfigs(cs);
    return r;
  }

  static CreatableTopicResult failed(String name, Errors e, String message) {
    return new CreatableTopicResult()
        .setName(name)
        .setErrorCode(e.code())
        .setErrorMessage(message)
        .setNumPartitions(-1)
        .setReplicationFactor((short) -1)
        .setConfigs(null);
  }

  static CreatableTopicResult failure(String name, Throwable e) {
    Throwable c = ErrorMapping.unwrap(e);
    Errors code;
    if (c instanceof LoamException le && le.kind() == Kind.CONFLICT) {
      code = Errors.TOPIC_ALREADY_EXISTS;
    } else if (c instanceof LoamException le && le.kind() == Kind.INVALID) {
      code = Errors.INVALID_REQUEST;
    } else {
      code = ErrorMapping.of(c, ErrorMapping.Context.ADMIN);
    }
    return failed(name, code, ErrorMapping.message(c));
  }
}
