package dev.loam.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One real {@link KafkaConsumer} in a group, polling on its own thread (the consumer is not
 * thread-safe): it records every record it receives, keeps its current assignment visible, and
 * commits what it processed synchronously after each poll and before giving partitions up.
 */
final class GroupMember implements AutoCloseable {
  /** Every (partition, offset) received, by every member of a test: duplicates are detected. */
  final Map<TopicPartition, Set<Long>> received;

  final Set<TopicPartition> assignment = new CopyOnWriteArraySet<>();
  final String name;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Map<TopicPartition, Set<Long>> duplicates = new ConcurrentHashMap<>();
  private volatile boolean running = true;
  private volatile int commitFailures;
  private volatile boolean leaveOnClose = true;
  private final Map<TopicPartition, Long> next = new HashMap<>();

  GroupMember(
      String bootstrap,
      String group,
      String topic,
      String name,
      Map<String, Object> overrides,
      Map<TopicPartition, Set<Long>> received) {
    this.name = name;
    this.received = received;
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 3_000);
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
    p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
    p.putAll(overrides);
    if ("consumer".equals(p.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG))) {
      // KIP-848 members get their session and heartbeat interval from the coordinator.
      p.remove(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
      p.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
    }
    consumer = new KafkaConsumer<>(p);
    thread = new Thread(() -> run(topic), "member-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run(String topic) {
    try {
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              commit();
              assignment.removeAll(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              assignment.addAll(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
              // Another member may own them already: nothing of ours may be committed.
              partitions.forEach(next::remove);
              assignment.removeAll(partitions);
            }
          });
      while (running) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (!received.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(r.offset())) {
            duplicates.computeIfAbsent(tp, x -> ConcurrentHashMap.newKeySet()).add(r.offset());
          }
          next.put(tp, r.offset() + 1);
        }
        commit();
      }
    } catch (WakeupException e) {
      // close() asked the poll to end.
    } catch (Throwable t) {
      failure.set(t);
    } finally {
      try {
        if (leaveOnClose) {
          try {
            commit();
          } catch (RuntimeException e) {
            // Recorded, and the consumer still closes: a consumer left open keeps heartbeating
            // from its background thread, so it never leaves the group and keeps its partitions.
            failure.compareAndSet(null, e);
          }
          consumer.close(Duration.ofSeconds(5));
        } else {
          // A process that dies sends nothing: no commit, no LeaveGroup.
          consumer.close(Duration.ZERO);
        }
      } catch (RuntimeException e) {
        failure.compareAndSet(null, e);
      }
    }
  }

  private void commit() {
    if (next.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    next.forEach((tp, o) -> offsets.put(tp, new OffsetAndMetadata(o)));
    try {
      consumer.commitSync(offsets);
    } catch (RebalanceInProgressException | CommitFailedException e) {
      // The group moved on: these records go to the partitions' next owner again (Kafka's
      // at-least-once), which the test counts as duplicates, never as losses.
      commitFailures++;
    }
    next.clear();
  }

  /** Commits refused because the group was rebalancing or had moved to a newer generation. */
  int commitFailures() {
    return commitFailures;
  }

  Throwable failure() {
    return failure.get();
  }

  /** The offsets this member received that some member had received before, by partition. */
  Map<TopicPartition, Set<Long>> duplicates() {
    return duplicates;
  }

  /**
   * Stops without leaving the group, as a killed process does: only for static members (a dynamic
   * member's close always sends LeaveGroup), whose partitions then move when the session times out.
   */
  void die() throws InterruptedException {
    leaveOnClose = false;
    stop();
  }

  private void stop() throws InterruptedException {
    running = false;
    consumer.wakeup();
    // A last commit (up to the API timeout, 15 s) and the close (5 s) may both run out.
    thread.join(30_000);
  }

  @Override
  public void close() {
    if (thread.isAlive()) {
      try {
        stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
