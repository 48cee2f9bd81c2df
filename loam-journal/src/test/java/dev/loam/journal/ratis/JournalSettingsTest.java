package dev.loam.journal.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad journal settings and groups are refused INVALID, naming what was wrong. */
class JournalSettingsTest {
  static final Path DIR = Path.of("/tmp/j");

  @Test
  void defaultsAreValidAndBoundTheProposal() {
    JournalSettings s = JournalSettings.defaults("n1", "127.0.0.1:9900", DIR);
    assertThat(s.bindHost()).isEqualTo("127.0.0.1");
    assertThat(s.bindPort()).isEqualTo(9900);
    assertThat(s.proposalTimeoutBound()).isEqualTo(Duration.ofMillis(1050 * 60));
  }

  @Test
  void badSettingsNameTheField() {
    assertThatThrownBy(() -> JournalSettings.defaults("n 1", "h:1", DIR))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("nodeId=n 1");
    assertThatThrownBy(() -> JournalSettings.defaults("n1", "nohost", DIR))
        .hasMessageContaining("address=nohost");
    assertThatThrownBy(() -> JournalSettings.defaults("n1", "h:70000", DIR))
        .hasMessageContaining("port 1..65535");
    JournalSettings s = JournalSettings.defaults("n1", "h:1", DIR);
    assertThatThrownBy(() -> s.withElectionTimeout(Duration.ofMillis(500), Duration.ofMillis(100)))
        .hasMessageContaining("electionTimeoutMax must be >= electionTimeoutMin");
    assertThatThrownBy(() -> s.withElectionTimeout(Duration.ZERO, Duration.ofMillis(100)))
        .hasMessageContaining("electionTimeoutMin must be positive");
    assertThatThrownBy(() -> s.withMaxUnsealedBytes(1000)).hasMessageContaining("1 MiB");
    assertThatThrownBy(() -> s.withSnapshotThresholdEntries(0))
        .hasMessageContaining("snapshotThresholdEntries");
    assertThatThrownBy(() -> s.withLogSegmentSizeBytes(1)).hasMessageContaining("64 KiB");
  }

  @Test
  void badGroupsNameTheField() {
    assertThatThrownBy(() -> new JournalGroup("a/b", Map.of("n1", "h:1")))
        .hasMessageContaining("journal=a/b");
    assertThatThrownBy(() -> new JournalGroup("j", Map.of()))
        .hasMessageContaining("1..9 replicas journal=j replicas=0");
    assertThatThrownBy(() -> new JournalGroup("j", Map.of("n1", "h")))
        .hasMessageContaining("journal j replica n1");
  }
}
