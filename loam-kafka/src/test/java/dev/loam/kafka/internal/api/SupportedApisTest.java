package dev.loam.kafka.internal.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** The advertised ranges lie within what kafka-clients knows, and the reference page lists them. */
class SupportedApisTest {
  @Test
  void everyRangeIsOneKafkaDefines() {
    SupportedApis.table()
        .forEach(
            (k, r) -> {
              assertThat(r.min()).as("%s min", k).isGreaterThanOrEqualTo(k.oldestVersion());
              assertThat(r.max()).as("%s max", k).isLessThanOrEqualTo(k.latestVersion(false));
            });
  }

  @Test
  void theReferencePageListsEveryApiWithItsRange() throws IOException {
    String doc = Files.readString(Path.of("../docs/reference/kafka.md"));
    SupportedApis.table()
        .forEach(
            (ApiKeys k, SupportedApis.Range r) ->
                assertThat(doc)
                    .as("row for %s", k)
                    .contains(
                        "| " + k.name + " (" + k.id + ") | " + r.min() + "–" + r.max() + " |"));
  }
}
