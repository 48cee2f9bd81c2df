package dev.loam.kafka.internal.api;

import dev.loam.api.StreamDescription;
import dev.loam.error.LoamException;
import dev.loam.kafka.internal.cluster.ClusterView;
import dev.loam.kafka.internal.cluster.ClusterView.Broker;
import dev.loam.kafka.internal.cluster.ClusterView.Brokers;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import dev.loam.kafka.internal.cluster.Topics;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;

/**
 * Metadata: the live brokers ({@link ClusterView}) and the requested topics, each partition led by
 * a node in the client's zone (for a quorum stream, its journal's leader or a replica of the
 * journal, {@link ClusterView#partitionLeader}). Leader epochs are answered as -1 (unknown): Loam
 * has no leader elections, and with no epoch a client never validates its position with
 * OffsetForLeaderEpoch. Every partition's replica and in-sync set is its leader alone (replication
 * is the object store's business, not the brokers'). A missing topic named by the request is
 * created when auto-creation is on and the request allows it.
 */
public final class MetadataHandler implements ApiHandler {
  private final Topics topics;
  private final ClusterView cluster;

  public MetadataHandler(Topics topics, ClusterView cluster) {
    this.topics = topics;
    this.cluster = cluster;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    MetadataRequest req = (MetadataRequest) request.body();
    return cluster
        .brokers(request.zone())
        .thenApply(b -> OwnerForwarding.isForwarded(request.clientId()) ? b.selfOnly() : b)
        .thenCompose(
            brokers -> topicsOf(request, req).thenApply(ts -> Optional.of(response(brokers, ts))));
  }

  /** A requested topic: its stream, or the error topic to answer. */
  private record Found(StreamDescription stream, MetadataResponseTopic error) {
    static Found of(StreamDescription d) {
      return new Found(d, null);
    }

    static Found error(MetadataResponseTopic t) {
      return new Found(null, t);
    }
  }

  private CompletableFuture<List<Found>> topicsOf(ClientRequest request, MetadataRequest req) {
    String ns = request.namespace();
    if (req.isAllTopics()) {
      return topics.list(ns).thenApply(all -> all.stream().map(Found::of).toList());
    }
    boolean allowAuto = req.version() < 4 || req.data().allowAutoTopicCreation();
    // Auto-creation is creation: a key without the admin role gets TOPIC_AUTHORIZATION_FAILED for a
    // missing topic it would have created, as Kafka answers a principal without CREATE.
    boolean mayCreate = request.mayCreateTopics();
    boolean refuseCreate = allowAuto && topics.autoCreate() && !mayCreate;
    List<CompletableFuture<Found>> each = new ArrayList<>();
    for (MetadataRequestTopic t : req.data().topics()) {
      boolean byId =
          (t.name() == null || t.name().isEmpty())
              && t.topicId() != null
              && !t.topicId().equals(Uuid.ZERO_UUID);
      if (byId || t.name() == null) {
        Uuid id = t.topicId() == null ? Uuid.ZERO_UUID : t.topicId();
        each.add(
            topics
                .nameOf(ns, id)
                .thenCompose(
                    n ->
                        n.isEmpty()
                            ? CompletableFuture.completedFuture(Optional.<StreamDescription>empty())
                            : topics.describe(ns, n.get()))
                .handle(
                    (d, e) ->
                        e == null && d.isPresent()
                            ? Found.of(d.get())
                            : Found.error(
                                new MetadataResponseTopic()
                                    .setTopicId(id)
                                    .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()))));
      } else {
        String name = t.name();
        each.add(
            topics
                .describeOrCreate(ns, name, allowAuto && mayCreate)
                .handle(
                    (d, e) -> {
                      if (e != null) {
                        return Found.error(topicError(name, e));
                      }
                      if (d.isPresent()) {
                        return Found.of(d.get());
                      }
                      Errors missing =
                          refuseCreate
                              ? Errors.TOPIC_AUTHORIZATION_FAILED
                              : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                      return Found.error(
                          new MetadataResponseTopic().setName(name).setErrorCode(missing.code()));
                    }));
      }
    }
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
        .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
  }

  static MetadataResponseTopic topicError(String name, Throwable e) {
    Throwable c = ErrorMapping.unwrap(e);
    Errors code =
        c instanceof LoamException le && le.kind() == LoamException.Kind.INVALID
            ? Errors.INVALID_TOPIC_EXCEPTION
            : ErrorMapping.of(c, ErrorMapping.Context.DATA);
    return new MetadataResponseTopic().setName(name).setErrorCode(code.code());
  }

  private MetadataResponseData response(Brokers brokers, List<Found> found) {
    MetadataResponseData r =
        new MetadataResponseData()
            .setThrottleTimeMs(0)
            .setClusterId(topics.clusterId())
            .setControllerId(brokers.controllerId());
    for (Broker b : brokers.all()) {
      r.brokers()
          .add(
              new MetadataResponseBroker()
                  .setNodeId(b.kafkaId())
                  .setHost(b.address().host())
                  .setPort(b.address().port())
                  .setRack(b.zone().isEmpty() ? null : b.zone()));
    }
    for (Found f : found) {
      r.topics().add(f.error() != null ? f.error() : topic(f.stream(), brokers));
    }
    return r;
  }

  private MetadataResponseTopic topic(StreamDescription d, Brokers brokers) {
    MetadataResponseTopic t =
        new MetadataResponseTopic()
            .setName(d.name())
            .setTopicId(topics.idOf(d))
            .setErrorCode(Errors.NONE.code())
            .setIsInternal(false);
    for (StreamDescription.PartitionBounds p : d.partitions()) {
      int leader = cluster.partitionLeader(brokers, d, p.partition()).kafkaId();
      t.partitions()
          .add(
              new MetadataResponsePartition()
                  .setPartitionIndex(p.partition())
                  .setErrorCode(Errors.NONE.code())
                  .setLeaderId(leader)
                  .setLeaderEpoch(-1)
                  .setReplicaNodes(List.of(leader))
                  .setIsrNodes(List.of(leader))
                  .setOfflineReplicas(List.of()));
    }
    return t;
  }
}
