package dev.loam.kafka.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.kafka.internal.api.SupportedApis;
import dev.loam.kafka.internal.network.RequestCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Coverage-guided fuzzing of the Kafka request frame decoder ({@code RequestCodec.decode}: Kafka's
 * request header, then the body with kafka-clients' generated parser for that API and version). The
 * first input byte is a mode: with bit 0 clear the rest is a whole frame as it came off the socket
 * (unknown keys, short frames); with bit 0 set the next two bytes pick a served API and a version
 * in its range and the rest follows that frame's API key and version, so the fuzzer spends its time
 * inside the body parsers. Contract: a {@code BadFrameException} with a message (the connection
 * closes), or a request whose header names the frame's API key, version and correlation id; never
 * another exception.
 */
class KafkaFrameFuzzTest {
  private static final SupportedApis SUPPORTED = new SupportedApis(SupportedApis.table().keySet());
  private static final List<Map.Entry<ApiKeys, SupportedApis.Range>> SERVED =
      List.copyOf(SupportedApis.table().entrySet());

  @FuzzTest
  void frames(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    byte[] frame;
    if ((input[0] & 1) == 0) {
      frame = Arrays.copyOfRange(input, 1, input.length);
    } else {
      if (input.length < 3) {
        return;
      }
      Map.Entry<ApiKeys, SupportedApis.Range> api = SERVED.get((input[1] & 0xff) % SERVED.size());
      SupportedApis.Range r = api.getValue();
      short version = (short) (r.min() + (input[2] & 0xff) % (r.max() - r.min() + 1));
      ByteBuffer b = ByteBuffer.allocate(4 + input.length - 3);
      b.putShort(api.getKey().id).putShort(version).put(input, 3, input.length - 3);
      frame = b.array();
    }
    ByteBuffer buf = ByteBuffer.wrap(frame);
    RequestCodec.Decoded d;
    try {
      d = RequestCodec.decode(buf, SUPPORTED);
    } catch (RequestCodec.BadFrameException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    ByteBuffer head = ByteBuffer.wrap(frame);
    short key = head.getShort();
    short version = head.getShort();
    int correlationId = head.getInt();
    if (d instanceof RequestCodec.Parsed p) {
      RequestHeader h = p.request().header();
      assertThat(h.apiKey().id).isEqualTo(key);
      assertThat(h.apiVersion()).isEqualTo(version);
      assertThat(h.correlationId()).isEqualTo(correlationId);
      assertThat(SUPPORTED.supports(h.apiKey(), version)).isTrue();
    } else {
      assertThat(d).isInstanceOf(RequestCodec.UnsupportedApiVersions.class);
      assertThat(key).isEqualTo(ApiKeys.API_VERSIONS.id);
      assertThat(((RequestCodec.UnsupportedApiVersions) d).correlationId())
          .isEqualTo(correlationId);
    }
  }
}
