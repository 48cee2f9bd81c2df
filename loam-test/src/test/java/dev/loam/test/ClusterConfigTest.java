package dev.loam.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder's validation: each bad value fails naming itself. */
class ClusterConfigTest {

  @Test
  void defaults() {
    ClusterConfig c = LoamTestCluster.builder().build();
    assertThat(c.nodes()).isEqualTo(3);
    assertThat(c.voters()).isEqualTo(3);
    assertThat(c.mode()).isEqualTo(LoamTestCluster.Mode.RATIS);
    assertThat(c.flushInterval()).isEqualTo(Duration.ofMillis(5));
    assertThat(c.zone(0)).isNull();
  }

  @Test
  void moreThanFiveNodesGetFiveVotersAndListeners() {
    assertThat(LoamTestCluster.builder().nodes(10).build().voters()).isEqualTo(5);
    assertThat(LoamTestCluster.builder().nodes(10).voters(3).build().voters()).isEqualTo(3);
  }

  @Test
  void zonesGoRoundRobin() {
    ClusterConfig c = LoamTestCluster.builder().zones("a", "b").build();
    assertThat(c.zone(0)).isEqualTo("a");
    assertThat(c.zone(1)).isEqualTo("b");
    assertThat(c.zone(2)).isEqualTo("a");
  }

  @Test
  void badValuesAreNamed() {
    assertThatThrownBy(() -> LoamTestCluster.builder().nodes(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nodes");
    assertThatThrownBy(() -> LoamTestCluster.builder().nodes(33).build())
        .hasMessageContaining("nodes");
    assertThatThrownBy(() -> LoamTestCluster.builder().nodes(3).voters(4).build())
        .hasMessageContaining("voters");
    assertThatThrownBy(() -> LoamTestCluster.builder().nodes(3).voters(0).build())
        .hasMessageContaining("voters");
    assertThatThrownBy(() -> LoamTestCluster.builder().nodes(12).voters(10).build())
        .hasMessageContaining("voters");
    assertThatThrownBy(() -> LoamTestCluster.builder().zones("a", " ").build())
        .hasMessageContaining("zone");
    assertThatThrownBy(() -> LoamTestCluster.builder().flushInterval(Duration.ZERO).build())
        .hasMessageContaining("flushInterval");
    assertThatThrownBy(
            () -> LoamTestCluster.builder().livenessTimeout(Duration.ofMillis(500)).build())
        .hasMessageContaining("livenessTimeout");
    assertThatThrownBy(() -> LoamTestCluster.builder().timeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("timeout");
    assertThatThrownBy(() -> LoamTestCluster.builder().storeDirectory(null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void lastStoreChoiceWins() {
    ClusterConfig c =
        LoamTestCluster.builder().storeDirectory(Path.of("x")).inMemoryStore().build();
    assertThat(c.storeDir()).isNull();
    assertThat(c.store()).isNull();
  }
}
