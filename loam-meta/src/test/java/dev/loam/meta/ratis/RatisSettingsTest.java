package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RatisSettingsTest {
  private static final Map<String, String> VOTERS =
      Map.of("a", "h1:9000", "b", "h2:9000", "c", "h3:9000");
  private static final Path DIR = Path.of("/tmp/x");

  @Test
  void defaultsAreValidAndBounded() {
    RatisSettings s = RatisSettings.builder("a", VOTERS, DIR).build();
    assertThat(s.localIsVoter()).isTrue();
    assertThat(s.voters()).containsOnlyKeys("a", "b", "c");
    // Bounded retries (STYLE.md §9): 30 x (3 s + 100 ms).
    assertThat(s.proposalTimeoutBound()).isEqualTo(Duration.ofMillis(93_000));
    RatisSettings other = s.forPeer("b", Path.of("/tmp/y"));
    assertThat(other.localPeerId()).isEqualTo("b");
    assertThat(other.voters()).isEqualTo(s.voters());
  }

  @Test
  void listenerIsAReplicaButNotAVoter() {
    RatisSettings s =
        RatisSettings.builder("d", VOTERS, DIR).listeners(Map.of("d", "h4:9000")).build();
    assertThat(s.localIsVoter()).isFalse();
  }

  @Test
  void invalidSettingsAreRefused() {
    assertThatThrownBy(() -> RatisSettings.builder("z", VOTERS, DIR).build())
        .hasMessageContaining("localPeerId=z");
    assertThatThrownBy(() -> RatisSettings.builder("a", Map.of(), DIR).build())
        .hasMessageContaining("voters");
    assertThatThrownBy(() -> RatisSettings.builder("a", Map.of("a", "nohost"), DIR).build())
        .hasMessageContaining("host:port");
    assertThatThrownBy(() -> RatisSettings.builder("a", Map.of("a", "h:70000"), DIR).build())
        .hasMessageContaining("port");
    assertThatThrownBy(() -> RatisSettings.builder("a b", Map.of("a b", "h:1"), DIR).build())
        .hasMessageContaining("peer id");
    assertThatThrownBy(
            () -> RatisSettings.builder("a", VOTERS, DIR).listeners(Map.of("a", "h9:1")).build())
        .hasMessageContaining("both a voter and a listener");
    assertThatThrownBy(
            () ->
                RatisSettings.builder("a", VOTERS, DIR)
                    .electionTimeout(Duration.ofMillis(300), Duration.ofMillis(300))
                    .build())
        .hasMessageContaining("electionTimeoutMax");
    assertThatThrownBy(() -> RatisSettings.builder("a", VOTERS, DIR).maxAttempts(0).build())
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> RatisSettings.builder("a", VOTERS, DIR).maxAttempts(1_000_000).build())
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(
            () -> RatisSettings.builder("a", VOTERS, DIR).snapshotThresholdEntries(0).build())
        .hasMessageContaining("snapshotThresholdEntries");
    assertThatThrownBy(
            () -> RatisSettings.builder("a", VOTERS, DIR).logSegmentSizeBytes(100).build())
        .hasMessageContaining("logSegmentSizeBytes");
    assertThatThrownBy(
            () -> RatisSettings.builder("a", VOTERS, DIR).requestTimeout(Duration.ZERO).build())
        .hasMessageContaining("requestTimeout");
  }
}
