package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import dev.loam.kafka.internal.api.Dispatcher;
import dev.loam.kafka.internal.api.Handlers;
import dev.loam.kafka.internal.api.SupportedApis;
import dev.loam.kafka.internal.cluster.HostPort;
import dev.loam.kafka.internal.cluster.KafkaEndpoints;
import dev.loam.kafka.internal.cluster.TopicIds;
import dev.loam.kafka.internal.network.RequestCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * Fuzzes the frame decoder and the dispatcher with random bytes and with mutated valid requests of
 * every served API at every served version: decoding either yields a request or refuses the frame
 * (the connection would close), and a decoded request always gets an encodable response — no
 * exception escapes. Over the wire, after any frame a fresh connection is still served.
 */
class FrameFuzzPropertyTest {
  static Path dir;
  static LoamNode node;
  static KafkaGateway gateway;
  static Dispatcher dispatcher;
  static Uuid topicId;
  static List<byte[]> valid;

  @BeforeContainer
  static void start() throws IOException {
    dir = Files.createTempDirectory("loam-kafka-fuzz");
    node = LoamNode.builder().nodeId("n1").dataDir(dir).settings(KafkaTestSupport.FAST).start();
    KafkaGatewaySettings s =
        KafkaGatewaySettings.builder()
            .port(0)
            .ioThreads(1)
            .autoCreateTopics(false)
            .maxFetchWait(Duration.ofMillis(50))
            .maxRequestBytes(1 << 20)
            .build();
    gateway = KafkaGateway.start(node, s);
    dispatcher =
        Handlers.dispatcher(
            node, s, new KafkaEndpoints(node.nodeId(), new HostPort("127.0.0.1", gateway.port())));
    var d = node.log().createStream("default", "t", StreamSpec.standard(2)).join();
    topicId = TopicIds.of(node.clusterId(), d.id());
    valid = validFrames();
  }

  @AfterContainer
  static void stop() throws IOException {
    gateway.close();
    node.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** One valid request of every served API at every served version. */
  static List<byte[]> validFrames() {
    List<byte[]> out = new ArrayList<>();
    SupportedApis served = dispatcher.supported();
    served
        .served()
        .forEach(
            (key, range) -> {
              for (short v = range.min(); v <= range.max(); v++) {
                try {
                  out.add(frame(key, v, request(key, v)));
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

  static ApiMessage request(ApiKeys key, short v) {
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
      default -> throw new IllegalArgumentException("no sample request for " + key);
    };
  }

  @Provide
  Arbitrary<byte[]> frames() {
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(300);
    Arbitrary<byte[]> mutated =
        Arbitraries.integers()
            .between(0, valid.size() - 1)
            .flatMap(i -> Arbitraries.longs().map(seed -> mutate(valid.get(i), seed)));
    Arbitrary<byte[]> intact = Arbitraries.integers().between(0, valid.size() - 1).map(valid::get);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, random),
        net.jqwik.api.Tuple.of(6, mutated),
        net.jqwik.api.Tuple.of(1, intact));
  }

  /** Flips, overwrites, truncates or extends a valid frame, driven by {@code seed}. */
  static byte[] mutate(byte[] frame, long seed) {
    Random r = new Random(seed);
    byte[] f = frame.clone();
    int ops = 1 + r.nextInt(4);
    for (int i = 0; i < ops; i++) {
      switch (r.nextInt(4)) {
        case 0 -> {
          if (f.length > 0) {
            f[r.nextInt(f.length)] ^= (byte) (1 << r.nextInt(8));
          }
        }
        case 1 -> {
          if (f.length > 0) {
            f[r.nextInt(f.length)] = (byte) r.nextInt(256);
          }
        }
        case 2 -> f = java.util.Arrays.copyOf(f, r.nextInt(f.length + 1));
        default -> {
          byte[] extra = new byte[1 + r.nextInt(16)];
          r.nextBytes(extra);
          byte[] g = java.util.Arrays.copyOf(f, f.length + extra.length);
          System.arraycopy(extra, 0, g, f.length, extra.length);
          f = g;
        }
      }
    }
    return f;
  }

  @net.jqwik.api.Example
  void theSamplesCoverEveryServedApiAndVersionAndDecode() throws Exception {
    int versions = 0;
    for (SupportedApis.Range r : dispatcher.supported().served().values()) {
      versions += r.max() - r.min() + 1;
    }
    assertThat(valid).hasSize(versions);
    for (byte[] f : valid) {
      assertThat(RequestCodec.decode(ByteBuffer.wrap(f), dispatcher.supported()))
          .isInstanceOf(RequestCodec.Parsed.class);
    }
  }

  @Property(tries = 1000)
  void decodingAndDispatchingNeverThrow(@ForAll("frames") byte[] frame) throws Exception {
    RequestCodec.Decoded d;
    try {
      d = RequestCodec.decode(ByteBuffer.wrap(frame), dispatcher.supported());
    } catch (RequestCodec.BadFrameException refused) {
      return;
    }
    if (d instanceof RequestCodec.Parsed p) {
      Optional<ApiMessage> response;
      try {
        response = dispatcher.dispatch(p.request()).get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        // The one failure allowed: the connection closes, as for a malformed frame.
        assertThat(e.getCause()).isInstanceOf(Dispatcher.UnanswerableRequestException.class);
        return;
      }
      if (response.isPresent()) {
        ByteBuf out =
            RequestCodec.encode(UnpooledByteBufAllocator.DEFAULT, p.request(), response.get());
        assertThat(out.readableBytes()).isGreaterThan(4);
        out.release();
      }
    } else {
      ByteBuf out =
          RequestCodec.encodeUnsupportedApiVersions(
              UnpooledByteBufAllocator.DEFAULT, 1, dispatcher.supported());
      out.release();
    }
  }

  @Property(tries = 60)
  void theServerKeepsServingOtherConnections(@ForAll("frames") byte[] frame) throws Exception {
    try (RawKafkaClient bad = new RawKafkaClient(gateway.port())) {
      bad.sendFrame(frame);
      try (RawKafkaClient good = new RawKafkaClient(gateway.port())) {
        ApiVersionsResponse r = good.call(new ApiVersionsRequest.Builder().build((short) 3));
        assertThat(r.data().errorCode()).isZero();
      }
    }
  }
}
