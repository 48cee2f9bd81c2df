package dev.loam.kafka.internal.api;

import dev.loam.kafka.internal.cluster.ClusterView;
import dev.loam.kafka.internal.cluster.ClusterView.Broker;
import dev.loam.kafka.internal.cluster.OwnerForwarding;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeCluster (Admin's {@code describeCluster}): the same brokers, cluster id and controller as
 * Metadata. Endpoint type 1 (brokers) is the only one served; asking for controllers (type 2) is
 * UNSUPPORTED_ENDPOINT_TYPE, as a broker answers.
 */
public final class DescribeClusterHandler implements ApiHandler {
  private final ClusterView cluster;
  private final String clusterId;

  public DescribeClusterHandler(ClusterView cluster, String clusterId) {
    this.cluster = cluster;
    this.clusterId = clusterId;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    org.apache.kafka.common.requests.DescribeClusterRequest req =
        (org.apache.kafka.common.requests.DescribeClusterRequest) request.body();
    if (request.version() >= 1 && req.data().endpointType() != 1) {
      return ApiHandler.answer(
          new DescribeClusterResponseData()
              .setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
              .setErrorMessage("only broker endpoints are served")
              .setEndpointType(req.data().endpointType()));
    }
    return cluster
        .brokers(request.zone())
        .thenApply(b -> OwnerForwarding.isForwarded(request.clientId()) ? b.selfOnly() : b)
        .thenApply(
            brokers -> {
              DescribeClusterResponseData r =
                  new DescribeClusterResponseData()
                      .setErrorCode(Errors.NONE.code())
                      .setClusterId(clusterId)
                      .setControllerId(brokers.controllerId())
                      .setEndpointType((byte) 1)
                      .setClusterAuthorizedOperations(Integer.MIN_VALUE);
              for (Broker b : brokers.all()) {
                r.brokers()
                    .add(
                        new DescribeClusterBroker()
                            .setBrokerId(b.kafkaId())
                            .setHost(b.address().host())
                            .setPort(b.address().port())
                            .setRack(b.zone().isEmpty() ? null : b.zone()));
              }
              return Optional.of(r);
            });
  }
}
