package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BenchConfigTest {
  @Test
  void walObjectOptionsAreParsedDescribedAndReported() {
    BenchConfig c =
        BenchConfig.parse(
                new String[] {"--wal-object-bytes", "1048576", "--objects-in-flight", "8"})
            .scenarios()
            .get(0);
    assertThat(c.walObjectBytes()).isEqualTo(1 << 20);
    assertThat(c.objectsInFlight()).isEqualTo(8);
    assertThat(c.describe()).contains("wal-object-bytes=1048576 objects-in-flight=8");
    assertThat(c.toJson()).containsEntry("wal_object_max_bytes", 1 << 20);
    assertThat(c.toJson()).containsEntry("wal_objects_in_flight", 8);
    // Every baseline scenario keeps them.
    assertThat(
            BenchConfig.parse(new String[] {"--scenario", "baseline", "--wal-object-bytes", "2048"})
                .scenarios())
        .allSatisfy(s -> assertThat(s.walObjectBytes()).isEqualTo(2048));
  }

  @Test
  void defaultsAreTheNodeDefaultsAndOutOfRangeValuesAreRefused() {
    BenchConfig c = BenchConfig.parse(new String[0]).scenarios().get(0);
    assertThat(c.describe()).doesNotContain("wal-object-bytes");
    assertThat(c.toJson()).containsEntry("wal_object_max_bytes", 8 << 20);
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--wal-object-bytes", "100"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wal-object-bytes>=1024");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--objects-in-flight", "65"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("objects-in-flight 1..64");
  }
}
