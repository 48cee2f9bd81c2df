package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An arrow stream through a real embedded node: created with a schema, appended to with JSON
 * records (refused ones naming the field), read back as canonical records, evolved with a nullable
 * column so that old and new batches read together, and closed to Kafka batches.
 */
class ArrowStreamEmbeddedTest {
  static final String V1 =
      """
      {"fields":[
        {"name":"id","nullable":false,"type":{"name":"int","bitWidth":64,"isSigned":true},"children":[]},
        {"name":"name","nullable":true,"type":{"name":"utf8"},"children":[]}
      ]}""";
  static final String V2 =
      """
      {"fields":[
        {"name":"id","nullable":false,"type":{"name":"int","bitWidth":64,"isSigned":true},"children":[]},
        {"name":"name","nullable":true,"type":{"name":"utf8"},"children":[]},
        {"name":"score","nullable":true,"type":{"name":"floatingpoint","precision":"DOUBLE"},"children":[]}
      ]}""";

  @TempDir Path dir;
  private LoamNode node;
  private Log log;

  @BeforeEach
  void start() {
    node =
        LoamNode.builder().nodeId("arrow-1").dataDir(dir).settings(NodeSettings.defaults()).start();
    log = node.log();
  }

  @AfterEach
  void stop() throws Exception {
    node.close();
  }

  private static AppendRecord rec(String key, String json, long ts) {
    return AppendRecord.of(key, json).toPartition(0).withTimestamp(ts);
  }

  private List<FetchedRecord> readAll(String stream) {
    List<FetchedRecord> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      FetchResult r = log.fetch("default", stream, 0, offset, 1 << 20, Duration.ZERO).join();
      out.addAll(r.records());
      if (r.nextOffset() >= r.highWatermark()) {
        return out;
      }
      offset = r.nextOffset();
    }
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static LoamException failure(Runnable r) {
    try {
      r.run();
    } catch (CompletionException e) {
      return (LoamException) e.getCause();
    } catch (LoamException e) {
      return e;
    }
    throw new AssertionError("no failure");
  }

  @Test
  void appendsReadBackAndEvolve() {
    log.createArrowStream("default", "users", StreamSpec.standard(1), V1).join();
    assertThat(log.streamSchemas("default", "users").join())
        .containsExactly(StreamSchema.fromJson(V1).toJson());

    AppendResult a =
        log.append(
                "default",
                "users",
                List.of(
                    rec("k1", "{\"id\":1,\"name\":\"ann\"}", 1000), rec(null, "{\"id\":2}", 1001)))
            .join();
    assertThat(a.positions()).extracting(p -> p.offset()).containsExactly(0L, 1L);

    LoamException refused =
        failure(
            () -> log.append("default", "users", List.of(rec(null, "{\"id\":\"x\"}", 1))).join());
    assertThat(refused.kind()).isEqualTo(LoamException.Kind.INVALID);
    assertThat(refused.getMessage())
        .contains("field=id: expected an integer, got a string")
        .contains("stream=default/users");

    // An incompatible change is refused naming the field; a compatible one is version 2.
    LoamException bad =
        failure(
            () ->
                log.addStreamSchema(
                        "default",
                        "users",
                        V2.replace("\"name\",\"nullable\":true", "\"name\",\"nullable\":false"))
                    .join());
    assertThat(bad.getMessage()).contains("field=name: nullability changed");
    assertThat(log.addStreamSchema("default", "users", V2).join()).isEqualTo(2);
    log.append("default", "users", List.of(rec("k3", "{\"id\":3,\"score\":0.25}", 1002))).join();

    List<FetchedRecord> all = readAll("users");
    assertThat(all).extracting(FetchedRecord::offset).containsExactly(0L, 1L, 2L);
    assertThat(all.stream().map(r -> text(r.value())))
        .containsExactly(
            "{\"id\":1,\"name\":\"ann\",\"score\":null}",
            "{\"id\":2,\"name\":null,\"score\":null}",
            "{\"id\":3,\"name\":null,\"score\":0.25}");
    assertThat(all).extracting(FetchedRecord::timestamp).containsExactly(1000L, 1001L, 1002L);
    assertThat(text(all.get(0).key())).isEqualTo("k1");
    assertThat(all.get(1).key()).isNull();
  }

  @Test
  void kafkaBatchesAndBadSpecsAreRefused() {
    log.createArrowStream("default", "t", StreamSpec.standard(1), V1).join();
    LoamException produce =
        failure(() -> log.appendBatch("default", "t", 0, ByteBuffer.wrap(new byte[70])).join());
    assertThat(produce.kind()).isEqualTo(LoamException.Kind.INVALID);
    assertThat(produce.getMessage()).contains("an arrow stream takes JSON records");
    log.append("default", "t", List.of(rec(null, "{\"id\":1}", 5))).join();
    LoamException fetch =
        failure(() -> log.fetchBatches("default", "t", 0, 0, 1 << 20, Duration.ZERO).join());
    assertThat(fetch.getMessage()).contains("an arrow stream has no Kafka batches");

    assertThat(
            failure(
                    () ->
                        log.createArrowStream("default", "u", StreamSpec.standard(1), "{}").join())
                .getMessage())
        .contains("arrow schema");
    assertThat(
            failure(
                    () ->
                        log.createArrowStream(
                                "default",
                                "u",
                                StreamSpec.standard(1)
                                    .withCompression(dev.loam.api.Compression.ZSTD),
                                V1)
                            .join())
                .getMessage())
        .contains("compression=zstd does not apply");
    assertThat(failure(() -> log.addStreamSchema("default", "nope", V2).join()).kind())
        .isEqualTo(LoamException.Kind.NOT_FOUND);
    assertThat(
            failure(
                    () ->
                        log.updateStream(
                                "default",
                                "t",
                                dev.loam.api.StreamUpdate.none().withCompacted(true))
                            .join())
                .getMessage())
        .contains("an arrow stream cannot be compacted");
    log.createStream("default", "plain", StreamSpec.standard(1)).join();
    assertThat(log.streamSchemas("default", "plain").join()).isEmpty();
    assertThat(failure(() -> log.addStreamSchema("default", "plain", V2).join()).getMessage())
        .contains("not an arrow stream");
  }
}
