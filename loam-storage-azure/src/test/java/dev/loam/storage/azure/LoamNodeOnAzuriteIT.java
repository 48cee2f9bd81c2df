package dev.loam.storage.azure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real node whose objects live in Azurite, opened by URI through the provider. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoamNodeOnAzuriteIT {
  @TempDir Path dir;

  @Test
  void appendsAThousandRecordsAndFetchesThemBackInOrder() throws Exception {
    Azurite azurite = Azurite.shared();
    String container = Azurite.newContainerName("node");
    String uri =
        "azblob://"
            + Azurite.ACCOUNT
            + "/"
            + container
            + "/loam/node-it?endpoint="
            + azurite.endpoint()
            + "&create-container=true";
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
      List<CompletableFuture<AppendResult>> appends = new ArrayList<>();
      for (int batch = 0; batch < 10; batch++) {
        List<AppendRecord> records = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          int n = batch * 100 + i;
          records.add(AppendRecord.of("k" + n, "v" + n));
        }
        // Each batch after the previous one is acknowledged, so the offsets follow n.
        appends.add(log.append("ns", "s", records));
        appends.get(batch).get(30, TimeUnit.SECONDS);
      }
      List<FetchedRecord> all = new ArrayList<>();
      long offset = 0;
      while (all.size() < 1000) {
        FetchResult r =
            log.fetch("ns", "s", 0, offset, 1 << 20, Duration.ZERO).get(30, TimeUnit.SECONDS);
        assertThat(r.records()).as("records from offset %d", offset).isNotEmpty();
        all.addAll(r.records());
        offset = r.nextOffset();
      }
      assertThat(all).hasSize(1000);
      for (int n = 0; n < 1000; n++) {
        assertThat(all.get(n).offset()).isEqualTo(n);
        assertThat(all.get(n).valueAsString()).isEqualTo("v" + n);
        assertThat(all.get(n).keyAsString()).isEqualTo("k" + n);
      }
    }
    // The node wrote its objects under the URI's prefix, in the container the store created.
    ExecutorService callbacks = Executors.newSingleThreadExecutor();
    try (AzureBlobObjectStore raw =
        AzureBlobObjectStore.open(
            AzureBlobStoreSettings.of(Azurite.ACCOUNT, container).withEndpoint(azurite.endpoint()),
            callbacks)) {
      var page = raw.list("", "", 1000).get(30, TimeUnit.SECONDS);
      assertThat(page.objects()).isNotEmpty();
      assertThat(page.objects()).allSatisfy(o -> assertThat(o.key()).startsWith("loam/node-it/"));
    } finally {
      callbacks.shutdownNow();
    }
  }
}
