package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.Header;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Records that do not match the schema are refused with the field and the reason named. */
class RecordRefusalTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final SchemaHistory history =
      SchemaHistory.of(
          StreamSchema.fromJson(
              """
              {"fields":[
                {"name":"id","nullable":false,"type":{"name":"int","bitWidth":32,"isSigned":true},"children":[]},
                {"name":"ok","nullable":true,"type":{"name":"bool"},"children":[]},
                {"name":"f","nullable":true,"type":{"name":"floatingpoint","precision":"SINGLE"},"children":[]},
                {"name":"b","nullable":true,"type":{"name":"binary"},"children":[]},
                {"name":"d","nullable":true,"type":{"name":"date","unit":"DAY"},"children":[]}
              ]}"""));

  @AfterEach
  void close() {
    allocator.close();
  }

  private void refused(String json, String message) {
    List<RecordData> rs =
        List.of(
            RecordData.of(1, null, "{\"id\":1}".getBytes(StandardCharsets.UTF_8)),
            RecordData.of(2, null, json == null ? null : json.getBytes(StandardCharsets.UTF_8)));
    assertThatThrownBy(() -> ArrowBatches.encode(history, rs, allocator))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(message)
        .hasMessageContaining("record=1");
  }

  @Test
  void namesTheFieldAndTheReason() {
    refused("{\"id\":\"x\"}", "field=id: expected an integer, got a string");
    refused("{\"id\":2147483648}", "field=id: out of int32 range");
    refused("{\"id\":null}", "field=id: null, and the field is not nullable");
    refused("{}", "field=id: missing, and the field is not nullable");
    refused("{\"id\":1,\"zzz\":1}", "field=zzz: not in the stream's schema");
    refused("{\"id\":1,\"ok\":1}", "field=ok: expected true or false, got an integer");
    refused("{\"id\":1,\"f\":1e39}", "field=f: out of float32 range");
    refused("{\"id\":1,\"b\":\"***\"}", "field=b: not base64");
    refused("{\"id\":1,\"d\":\"2026-13-01\"}", "field=d: not a date");
    refused("{\"id\":1,\"id\":2}", "not valid JSON");
    refused("[1]", "not a JSON object");
    refused("{\"id\":1} {}", "trailing content");
    refused(null, "the value is null");
  }

  @Test
  void headersAreRefused() {
    List<RecordData> rs =
        List.of(
            new RecordData(
                1,
                null,
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8),
                List.of(new Header("h", new byte[0]))));
    assertThatThrownBy(() -> ArrowBatches.encode(history, rs, allocator))
        .hasMessageContaining("arrow streams keep no record headers");
  }

  @Test
  void canonicalValueWritesEveryFieldInOrder() {
    byte[] f =
        ArrowBatches.encode(
            history,
            List.of(
                RecordData.of(
                    7,
                    "k".getBytes(StandardCharsets.UTF_8),
                    "{\"d\":\"2026-12-01\",\"id\":-5,\"b\":\"AAE=\",\"f\":1.5}"
                        .getBytes(StandardCharsets.UTF_8))),
            allocator);
    List<RecordData> out =
        ArrowBatches.decode(ArrowFrame.read(ByteBuffer.wrap(f)), history, allocator);
    assertThat(new String(out.get(0).value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"id\":-5,\"ok\":null,\"f\":1.5,\"b\":\"AAE=\",\"d\":\"2026-12-01\"}");
    assertThat(out.get(0).key()).isEqualTo("k".getBytes(StandardCharsets.UTF_8));
    assertThat(out.get(0).timestamp()).isEqualTo(7);
  }
}
