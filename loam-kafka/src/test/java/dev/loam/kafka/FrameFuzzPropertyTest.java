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
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;

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
            // Short sessions bound how long a group request may wait (a rebalance waits for
            // members that never rejoin only until their sessions expire).
            .groups(
                GroupSettings.classic(Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ZERO))
            .build();
    gateway = KafkaGateway.start(node, s);
    dispatcher =
        Handlers.dispatcher(
            node, s, new KafkaEndpoints(node.nodeId(), new HostPort("127.0.0.1", gateway.port())));
    var d = node.log().createStream("default", "t", StreamSpec.standard(2)).join();
    topicId = TopicIds.of(node.clusterId(), d.id());
    valid = SampleRequests.all(dispatcher.supported(), topicId);
  }

  @AfterContainer
  static void stop() throws IOException {
    gateway.close();
    node.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
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
