package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.utils.Utils;

class PartitioningTest {
  @Property(tries = 2000)
  void murmur2MatchesKafka(@ForAll byte[] key) {
    assertThat(Partitioning.murmur2(key)).isEqualTo(Utils.murmur2(key));
  }

  @Property(tries = 500)
  void keyPartitionMatchesKafkaDefaultPartitioner(
      @ForAll byte[] key, @ForAll @IntRange(min = 1, max = 1000) int partitions) {
    assertThat(Partitioning.partitionForKey(key, partitions))
        .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
  }
}
