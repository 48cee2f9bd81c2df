package dev.loam.storage.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real node on a {@code gs://} store URI, end to end: append 1000 records, fetch them back. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GcsLoamNodeIT {
  @TempDir Path dir;

  @Test
  void aNodeAppendsAndFetchesThroughTheGcsStore() throws Exception {
    String bucket = TestServers.freshBucket();
    String uri =
        "gs://" + bucket + "/loam?host=" + TestServers.server().endpoint() + "&project=test";
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir)
            .storeUri(uri)
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
            .start()) {
      Log log = node.log();
      log.createNamespace("ns").get(30, TimeUnit.SECONDS);
      log.createStream("ns", "s", StreamSpec.standard(1)).get(30, TimeUnit.SECONDS);
      for (int batch = 0; batch < 10; batch++) {
        List<AppendRecord> records = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          int n = batch * 100 + i;
          records.add(AppendRecord.of("k" + n, "v" + n));
        }
        // Sequential per batch keeps the expected order simple.
        log.append("ns", "s", records).get(30, TimeUnit.SECONDS);
      }
      List<FetchedRecord> got = new ArrayList<>();
      long offset = 0;
      for (int rounds = 0; rounds < 2000 && got.size() < 1000; rounds++) {
        FetchResult r =
            log.fetch("ns", "s", 0, offset, 1 << 20, Duration.ZERO).get(30, TimeUnit.SECONDS);
        if (r.records().isEmpty()) {
          break;
        }
        got.addAll(r.records());
        offset = r.nextOffset();
      }
      assertThat(got).hasSize(1000);
      for (int n = 0; n < 1000; n++) {
        assertThat(got.get(n).offset()).isEqualTo(n);
        assertThat(got.get(n).valueAsString()).isEqualTo("v" + n);
        assertThat(got.get(n).keyAsString()).isEqualTo("k" + n);
      }
    }
    try (Storage raw = TestServers.rawClient()) {
      assertThat(raw.list(bucket, BlobListOption.prefix("loam/")).getValues()).isNotEmpty();
      assertThat(raw.list(bucket).getValues())
          .allSatisfy(b -> assertThat(b.getName()).startsWith("loam/"));
    }
  }
}
