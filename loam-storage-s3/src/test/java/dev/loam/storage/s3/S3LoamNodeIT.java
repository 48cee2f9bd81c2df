package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real LoamNode whose objects live in S3Proxy, opened by its s3:// URI through ServiceLoader. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class S3LoamNodeIT {
  @TempDir Path dir;

  @Test
  void appendsAndFetchesAThousandRecordsInOrder() throws Exception {
    Emulator server = Emulator.s3proxy();
    String bucket = server.newBucket();
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir)
            .storeUri(server.uri(bucket, "loam/node-test"))
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
            .start()) {
      Log log = node.log();
      log.createNamespace("ns").get(30, TimeUnit.SECONDS);
      log.createStream("ns", "events", StreamSpec.standard(1)).get(30, TimeUnit.SECONDS);
      List<CompletableFuture<?>> appends = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        appends.add(
            log.append("ns", "events", List.of(AppendRecord.of("k" + (i % 13), "value-" + i))));
      }
      CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      List<FetchedRecord> got = new ArrayList<>();
      long offset = 0;
      while (got.size() < 1000) {
        FetchResult r =
            log.fetch("ns", "events", 0, offset, 1 << 20, Duration.ZERO).get(30, TimeUnit.SECONDS);
        assertThat(r.records()).as("records after offset %d", offset).isNotEmpty();
        got.addAll(r.records());
        offset = r.nextOffset();
      }
      assertThat(got).hasSize(1000);
      for (int i = 0; i < 1000; i++) {
        assertThat(got.get(i).offset()).isEqualTo(i);
        assertThat(new String(got.get(i).value(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
      }
    }
    // The node's objects are under the URI's prefix, nowhere else.
    var listed = server.admin().listObjectsV2(b -> b.bucket(bucket)).join().contents();
    assertThat(listed).isNotEmpty();
    assertThat(listed).allSatisfy(o -> assertThat(o.key()).startsWith("loam/node-test/"));
  }
}
