package dev.loam.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder's zone sources and its bounds (no I/O: a client does none until its first call). */
class LoamClientBuilderTest {
  @Test
  void theZoneComesFromTheBuilderThenTheSystemProperty() {
    String old = System.getProperty(LoamClient.ZONE_PROPERTY);
    try {
      System.setProperty(LoamClient.ZONE_PROPERTY, "zone-from-property");
      try (LoamClient c = LoamClient.builder().bootstrap("http://127.0.0.1:1").build()) {
        assertThat(c.zone()).isEqualTo("zone-from-property");
      }
      try (LoamClient c =
          LoamClient.builder().bootstrap("http://127.0.0.1:1").zone("explicit").build()) {
        assertThat(c.zone()).isEqualTo("explicit");
      }
      System.clearProperty(LoamClient.ZONE_PROPERTY);
      try (LoamClient c = LoamClient.builder().bootstrap("http://127.0.0.1:1").build()) {
        String env = System.getenv(LoamClient.ZONE_ENV);
        assertThat(c.zone()).isEqualTo(env == null ? "" : env.trim());
      }
    } finally {
      if (old == null) {
        System.clearProperty(LoamClient.ZONE_PROPERTY);
      } else {
        System.setProperty(LoamClient.ZONE_PROPERTY, old);
      }
    }
  }

  @Test
  void unboundedOrMissingSettingsAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> LoamClient.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bootstrap");
    assertThatThrownBy(() -> LoamClient.builder().bootstrap("http://a:1").maxAttempts(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> LoamClient.builder().bootstrap("http://a:1").maxRedirects(17).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRedirects");
    assertThatThrownBy(
            () ->
                LoamClient.builder().bootstrap("http://a:1").requestTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
  }
}
