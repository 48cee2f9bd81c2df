package dev.loam.kafka;

import dev.loam.kafka.internal.api.SupportedApis;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * A valid request frame (header and body, without the size prefix) of every served API at every
 * served version, on topic {@code t} with two partitions: the seeds the frame fuzzer mutates.
 */
final class SampleRequests {
  private SampleRequests() {}

  /** One valid request of every served API at every served version. */
  static List<byte[]> all(SupportedApis served, Uuid topicId) {
    List<byte[]> out = new ArrayList<>();
    served
        .served()
        .forEach(
            (key, range) -> {
              for (short v = range.min(); v <= range.max(); v++) {
                try {
                  out.add(frame(key, v, request(key, v, topicId)));
                } catch (RuntimeException e) {
                  // A field this version cannot carry: the other versions cover the API.
                }
              }
            });
    return out;
  }

  static byte[] frame(ApiKeys key, short version, ApiMessage body) {
    RequestHeaderData h =
        new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setClientId("fuzz,loam_az=z1")
            .setCorrelationId(42);
    ByteBuffer b = RequestUtils.serialize(h, key.requestHeaderVersion(version), body, version);
    byte[] a = new byte[b.remaining()];
    b.get(a);
    return a;
  }

  static ApiMessage request(ApiKeys key, short v, Uuid topicId) {
    return switch (key) {
      case API_VERSIONS ->
          new ApiVersionsRequestData()
              .setClientSoftwareName(v >= 3 ? "fuzz" : "")
              .setClientSoftwareVersion(v >= 3 ? "1" : "");
      case METADATA ->
          new MetadataRequestData()
              .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("t")))
              .setAllowAutoTopicCreation(v < 4);
      case DESCRIBE_CLUSTER -> new DescribeClusterRequestData();
      case PRODUCE -> {
        var t = new ProduceRequestData.TopicProduceData();
        if (v >= 13) {
          t.setTopicId(topicId);
        } else {
          t.setName("t");
        }
        t.setPartitionData(
            List.of(
                new ProduceRequestData.PartitionProduceData()
                    .setIndex(1)
                    .setRecords(RawKafkaClient.batch(-1, (short) -1, -1, 2, 1000))));
        yield new ProduceRequestData()
            .setAcks((short) -1)
            .setTimeoutMs(5000)
            .setTopicData(new ProduceRequestData.TopicProduceDataCollection(List.of(t).iterator()));
      }
      case FETCH -> {
        var t = new FetchRequestData.FetchTopic();
        if (v >= 13) {
          t.setTopicId(topicId);
        } else {
          t.setTopic("t");
        }
        t.setPartitions(
            List.of(
                new FetchRequestData.FetchPartition()
                    .setPartition(1)
                    .setFetchOffset(0)
                    .setPartitionMaxBytes(1 << 16)));
        yield new FetchRequestData()
            .setMaxWaitMs(10)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .setSessionEpoch(v >= 7 ? -1 : 0)
            .setTopics(List.of(t));
      }
      case LIST_OFFSETS ->
          new ListOffsetsRequestData()
              .setReplicaId(-1)
              .setTopics(
                  List.of(
                      new ListOffsetsRequestData.ListOffsetsTopic()
                          .setName("t")
                          .setPartitions(
                              List.of(
                                  new ListOffsetsRequestData.ListOffsetsPartition()
                                      .setPartitionIndex(0)
                                      .setTimestamp(v >= 7 ? -3 : -1)))));
      case OFFSET_FOR_LEADER_EPOCH -> {
        var c = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        c.add(
            new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                .setTopic("t")
                .setPartitions(
                    List.of(
                        new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(0)
                            .setLeaderEpoch(0))));
        yield new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(c);
      }
      case CREATE_TOPICS -> {
        var c = new CreateTopicsRequestData.CreatableTopicCollection();
        c.add(
            new CreateTopicsRequestData.CreatableTopic()
                .setName("fuzz-new")
                .setNumPartitions(2)
                .setReplicationFactor((short) 1));
        yield new CreateTopicsRequestData().setTopics(c).setValidateOnly(true).setTimeoutMs(5000);
      }
      case DELETE_TOPICS ->
          v >= 6
              ? new DeleteTopicsRequestData()
                  .setTopics(
                      List.of(new DeleteTopicsRequestData.DeleteTopicState().setName("gone")))
              : new DeleteTopicsRequestData().setTopicNames(List.of("gone"));
      case CREATE_PARTITIONS -> {
        var c = new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
        c.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("t").setCount(4));
        yield new CreatePartitionsRequestData().setTopics(c).setValidateOnly(true);
      }
      case DESCRIBE_CONFIGS ->
          new DescribeConfigsRequestData()
              .setResources(
                  List.of(
                      new DescribeConfigsRequestData.DescribeConfigsResource()
                          .setResourceType((byte) 2)
                          .setResourceName("t")));
      case INCREMENTAL_ALTER_CONFIGS -> {
        var configs = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(
            new IncrementalAlterConfigsRequestData.AlterableConfig()
                .setName("retention.ms")
                .setConfigOperation((byte) 0)
                .setValue("60000"));
        var rs = new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        rs.add(
            new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType((byte) 2)
                .setResourceName("t")
                .setConfigs(configs));
        yield new IncrementalAlterConfigsRequestData().setResources(rs).setValidateOnly(true);
      }
      case INIT_PRODUCER_ID ->
          new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(1000);
      case FIND_COORDINATOR ->
          v >= 4
              ? new FindCoordinatorRequestData()
                  .setKeyType((byte) 0)
                  .setCoordinatorKeys(List.of("g"))
              : new FindCoordinatorRequestData().setKey("g");
      case JOIN_GROUP -> {
        var protocols = new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(
            new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName("range")
                .setMetadata(new byte[] {0, 1, 0, 0, 0, 1, 0, 1, 't', -1, -1, -1, -1}));
        yield new JoinGroupRequestData()
            .setGroupId("g")
            .setSessionTimeoutMs(100)
            .setRebalanceTimeoutMs(50)
            .setMemberId("")
            .setProtocolType("consumer")
            .setProtocols(protocols);
      }
      case SYNC_GROUP ->
          new SyncGroupRequestData()
              .setGroupId("g")
              .setGenerationId(1)
              .setMemberId("m")
              .setAssignments(
                  List.of(
                      new SyncGroupRequestData.SyncGroupRequestAssignment()
                          .setMemberId("m")
                          .setAssignment(new byte[] {0, 1})));
      case HEARTBEAT ->
          new HeartbeatRequestData().setGroupId("g").setGenerationId(1).setMemberId("m");
      case LEAVE_GROUP ->
          v >= 3
              ? new LeaveGroupRequestData()
                  .setGroupId("g")
                  .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("m")))
              : new LeaveGroupRequestData().setGroupId("g").setMemberId("m");
      case OFFSET_COMMIT ->
          new OffsetCommitRequestData()
              .setGroupId("g")
              .setGenerationIdOrMemberEpoch(-1)
              .setMemberId("")
              .setTopics(
                  List.of(
                      new OffsetCommitRequestData.OffsetCommitRequestTopic()
                          .setName("t")
                          .setPartitions(
                              List.of(
                                  new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                      .setPartitionIndex(1)
                                      .setCommittedOffset(0)
                                      .setCommittedMetadata("m")))));
      case OFFSET_FETCH ->
          v >= 8
              ? new OffsetFetchRequestData()
                  .setGroups(
                      List.of(
                          new OffsetFetchRequestData.OffsetFetchRequestGroup()
                              .setGroupId("g")
                              .setTopics(
                                  List.of(
                                      new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                          .setName("t")
                                          .setPartitionIndexes(List.of(0, 1))))))
              : new OffsetFetchRequestData()
                  .setGroupId("g")
                  .setTopics(
                      List.of(
                          new OffsetFetchRequestData.OffsetFetchRequestTopic()
                              .setName("t")
                              .setPartitionIndexes(List.of(0, 1))));
      case LIST_GROUPS -> new ListGroupsRequestData();
      case DESCRIBE_GROUPS -> new DescribeGroupsRequestData().setGroups(List.of("g", "other"));
      case DELETE_GROUPS -> new DeleteGroupsRequestData().setGroupsNames(List.of("other"));
      case OFFSET_DELETE -> {
        var parts = new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        parts.add(
            new OffsetDeleteRequestData.OffsetDeleteRequestTopic()
                .setName("t")
                .setPartitions(
                    List.of(
                        new OffsetDeleteRequestData.OffsetDeleteRequestPartition()
                            .setPartitionIndex(0))));
        yield new OffsetDeleteRequestData().setGroupId("g").setTopics(parts);
      }
      case CONSUMER_GROUP_HEARTBEAT ->
          new ConsumerGroupHeartbeatRequestData()
              .setGroupId("g848")
              .setMemberId("member-1")
              .setMemberEpoch(0)
              .setRebalanceTimeoutMs(1000)
              .setSubscribedTopicNames(List.of("t"))
              .setTopicPartitions(
                  List.of(
                      new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                          .setTopicId(topicId)
                          .setPartitions(List.of(0))));
      case CONSUMER_GROUP_DESCRIBE ->
          new ConsumerGroupDescribeRequestData().setGroupIds(List.of("g848", "other"));
      case SASL_HANDSHAKE -> new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-256");
      case SASL_AUTHENTICATE ->
          new SaslAuthenticateRequestData()
              .setAuthBytes(
                  "n,,n=abcdefghijklmnop,r=fyko+d2lbbFgONRv9qkxdawL"
                      .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      default -> throw new IllegalArgumentException("no sample request for " + key);
    };
  }
}
