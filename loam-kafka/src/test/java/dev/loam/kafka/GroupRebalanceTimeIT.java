package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How long a group of N consumers started together takes from their first JoinGroup to every one of
 * 30 partitions assigned to exactly one member, with Kafka's initial rebalance delay (3 s: the
 * consumers land in one generation) and without it (each arrival rebalances). Printed for
 * docs/operations/performance.md; asserted only to finish.
 */
class GroupRebalanceTimeIT {
  static final int PARTITIONS = 30;

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} members, initial delay {1} ms")
  @CsvSource({"3, 0", "3, 3000", "30, 0", "30, 3000"})
  void membersStartedTogetherAreAllAssigned(int n, long delayMillis) throws Exception {
    try (KafkaTestSupport k =
        new KafkaTestSupport(
            dir.resolve(n + "-" + delayMillis),
            KafkaTestSupport.FAST,
            b ->
                b.groups(
                    GroupSettings.classic(
                        Duration.ofMillis(500),
                        Duration.ofMinutes(5),
                        Duration.ofMillis(delayMillis))))) {
      try (Admin admin = k.admin()) {
        admin.createTopics(List.of(new NewTopic("t", PARTITIONS, (short) 1))).all().get();
      }
      Map<TopicPartition, Set<Long>> received = new ConcurrentHashMap<>();
      List<GroupMember> members = new ArrayList<>();
      long start = System.nanoTime();
      try {
        for (int i = 0; i < n; i++) {
          Map<String, Object> o = new HashMap<>();
          o.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
          members.add(new GroupMember(k.bootstrap, "g", "t", "m" + i, o, received));
        }
        long deadline = start + Duration.ofSeconds(90).toNanos();
        while (!allAssigned(members)) {
          assertThat(System.nanoTime()).as("all assigned within 90 s").isLessThan(deadline);
          Thread.sleep(10);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println(
            "rebalance: "
                + n
                + " members, initial delay "
                + delayMillis
                + " ms: all "
                + PARTITIONS
                + " partitions assigned after "
                + millis
                + " ms");
      } finally {
        members.forEach(GroupMember::close);
      }
    }
  }

  private static boolean allAssigned(List<GroupMember> members) {
    Set<TopicPartition> seen = new HashSet<>();
    for (GroupMember m : members) {
      for (TopicPartition tp : m.assignment) {
        if (!seen.add(tp)) {
          return false;
        }
      }
    }
    if (seen.size() != PARTITIONS) {
      return false;
    }
    // Every member holds its share: the rebalance is complete, not merely under way.
    for (GroupMember m : members) {
      if (m.assignment.isEmpty() && members.size() <= PARTITIONS) {
        return false;
      }
    }
    return true;
  }
}
