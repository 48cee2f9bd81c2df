package dev.loam.kafka.internal.group;

import dev.loam.api.GroupCoordination;
import dev.loam.api.Log;
import dev.loam.api.StreamDescription;
import dev.loam.kafka.GroupSettings;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic groups this node coordinates (docs/design/consumer-groups.md). A group is loaded on
 * the first request that reaches this node while it owns the group's coordinator stream, and
 * checked again on every request: {@link Log#acquireGroupCoordinator} answers the coordination (its
 * epoch) or fails with the owner elsewhere, so a group whose coordination moved or was reopened is
 * unloaded and its members told NOT_COORDINATOR. A timer ticks every group for session expiry and
 * rebalance deadlines.
 */
public final class GroupCoordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

  /** How often session and rebalance deadlines are checked. */
  static final long TICK_MILLIS = 50;

  /** A group's identity: the namespace (the listener's, or the client's) and the group id. */
  record Key(String namespace, String group) {}

  private final Log log;
  private final GroupSettings settings;
  private final LongSupplier clock;
  private final Map<Key, ClassicGroup> groups = new ConcurrentHashMap<>();
  private final Map<Key, ConsumerGroup> consumerGroups = new ConcurrentHashMap<>();

  /** Partition counts by (namespace, topic) as {@link #describe} last found them. */
  private final Map<Key, Integer> knownTopics = new ConcurrentHashMap<>();

  private final ScheduledExecutorService timer;

  public GroupCoordinator(Log log, GroupSettings settings) {
    this.log = log;
    this.settings = settings;
    this.clock = System::currentTimeMillis;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "loam-kafka-groups");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  Log log() {
    return log;
  }

  long now() {
    return clock.getAsLong();
  }

  int minSessionTimeoutMs() {
    return (int) settings.minSessionTimeout().toMillis();
  }

  int maxSessionTimeoutMs() {
    return (int) settings.maxSessionTimeout().toMillis();
  }

  long initialRebalanceDelayMs() {
    return settings.initialRebalanceDelay().toMillis();
  }

  /**
   * The group as this node coordinates it, loaded (or reloaded at a new coordinator epoch) as
   * needed. Fails with the Log's NotOwnerException when another node coordinates it; the group is
   * then unloaded here.
   */
  CompletableFuture<ClassicGroup> load(String namespace, String group) {
    Key key = new Key(namespace, group);
    return log.acquireGroupCoordinator(namespace, group)
        .handle(
            (GroupCoordination c, Throwable t) -> {
              if (t != null) {
                ClassicGroup gone = groups.remove(key);
                if (gone != null) {
                  synchronized (gone) {
                    gone.unload(Errors.NOT_COORDINATOR);
                  }
                }
                throw ErrorMapping.unwrap(t) instanceof RuntimeException re
                    ? re
                    : new java.util.concurrent.CompletionException(t);
              }
              return groups.compute(
                  key,
                  (k, cur) -> {
                    if (cur != null
                        && cur.coordination.coordinatorEpoch() == c.coordinatorEpoch()
                        && cur.state != ClassicGroup.State.DEAD) {
                      return cur;
                    }
                    if (cur != null) {
                      synchronized (cur) {
                        cur.unload(Errors.NOT_COORDINATOR);
                      }
                    }
                    return new ClassicGroup(this, c);
                  });
            });
  }

  /**
   * The KIP-848 group as this node coordinates it, loaded (or reloaded at a new coordinator epoch)
   * as needed; fails like {@link #load}.
   */
  CompletableFuture<ConsumerGroup> loadConsumer(String namespace, String group) {
    Key key = new Key(namespace, group);
    return log.acquireGroupCoordinator(namespace, group)
        .handle(
            (GroupCoordination c, Throwable t) -> {
              if (t != null) {
                ConsumerGroup gone = consumerGroups.remove(key);
                if (gone != null) {
                  synchronized (gone) {
                    gone.dead = true;
                  }
                }
                throw new java.util.concurrent.CompletionException(ErrorMapping.unwrap(t));
              }
              return consumerGroups.compute(
                  key,
                  (k, cur) -> {
                    if (cur != null
                        && cur.coordination.coordinatorEpoch() == c.coordinatorEpoch()
                        && !cur.dead) {
                      return cur;
                    }
                    if (cur != null) {
                      synchronized (cur) {
                        cur.dead = true;
                      }
                    }
                    return new ConsumerGroup(c);
                  });
            });
  }

  /** Every KIP-848 group loaded here of {@code namespace}. */
  List<ConsumerGroup> loadedConsumers(String namespace) {
    return consumerGroups.entrySet().stream()
        .filter(e -> e.getKey().namespace().equals(namespace))
        .map(Map.Entry::getValue)
        .toList();
  }

  /** The KIP-848 group if it is loaded here. */
  ConsumerGroup loadedConsumer(String namespace, String group) {
    return consumerGroups.get(new Key(namespace, group));
  }

  long consumerSessionTimeoutMs() {
    return settings.consumerSessionTimeout().toMillis();
  }

  int consumerHeartbeatIntervalMs() {
    return (int) settings.consumerHeartbeatInterval().toMillis();
  }

  /**
   * Describes {@code topics} of {@code namespace} without blocking: the ones that exist, by name.
   * The answers are remembered for {@link #partitions}, which the group timer uses, since a timer
   * must not wait on the log.
   */
  CompletableFuture<Map<String, StreamDescription>> describe(
      String namespace, Collection<String> topics) {
    Map<String, CompletableFuture<Optional<StreamDescription>>> each = new LinkedHashMap<>();
    for (String t : new TreeSet<>(topics)) {
      each.put(
          t,
          log.describeStream(namespace, t)
              .handle((d, e) -> e == null ? Optional.of(d) : Optional.<StreamDescription>empty()));
    }
    return CompletableFuture.allOf(each.values().toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              Map<String, StreamDescription> out = new HashMap<>();
              each.forEach(
                  (t, f) -> {
                    Optional<StreamDescription> d = f.join(); // done: allOf
                    if (d.isPresent()) {
                      out.put(t, d.get());
                      knownTopics.put(new Key(namespace, t), d.get().partitions().size());
                    } else {
                      knownTopics.remove(new Key(namespace, t));
                    }
                  });
              return out;
            });
  }

  /**
   * A topic's partition count in {@code namespace} as the last {@link #describe} of it found it; 0
   * if absent or never described.
   */
  int partitions(String namespace, String topic) {
    return knownTopics.getOrDefault(new Key(namespace, topic), 0);
  }

  /** The group if it is loaded here, without checking the coordination. */
  ClassicGroup loaded(String namespace, String group) {
    return groups.get(new Key(namespace, group));
  }

  /** Every group loaded here of {@code namespace}. */
  List<ClassicGroup> loaded(String namespace) {
    return groups.entrySet().stream()
        .filter(e -> e.getKey().namespace().equals(namespace))
        .map(Map.Entry::getValue)
        .toList();
  }

  /** Forgets a group (deleted, or empty and its record removed). */
  void forget(ClassicGroup g) {
    groups.remove(new Key(g.coordination.namespace(), g.groupId()), g);
  }

  /**
   * Records generation {@code next} of {@code g} in the metastore, then lets the group tell its
   * members (under its lock). A failure — the coordination was lost, or a generation above it was
   * stored meanwhile — unloads the group: its members rediscover the coordinator and rejoin.
   */
  void advance(ClassicGroup g, int next, List<String> included) {
    log.advanceGroupGeneration(g.coordination, next)
        .whenComplete(
            (v, t) -> {
              synchronized (g) {
                if (t == null) {
                  g.generationRecorded(next, included, now());
                } else {
                  LOG.info(
                      "group {} could not record generation {}: {}",
                      g.groupId(),
                      next,
                      ErrorMapping.message(t));
                  groups.remove(new Key(g.coordination.namespace(), g.groupId()), g);
                  g.generationFailed(GroupErrors.coordinatorLost(t));
                }
              }
            });
  }

  private void tick() {
    long now = now();
    consumerGroups.forEach(
        (key, g) -> {
          try {
            synchronized (g) {
              g.expire(now, t -> partitions(key.namespace(), t));
            }
          } catch (RuntimeException e) {
            LOG.warn("group tick failed group={}", key.group(), e);
          }
        });
    for (ClassicGroup g : groups.values()) {
      try {
        synchronized (g) {
          g.tick(now);
        }
      } catch (RuntimeException e) {
        LOG.warn("group tick failed group={}", g.groupId(), e);
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    for (ClassicGroup g : groups.values()) {
      synchronized (g) {
        g.unload(Errors.NOT_COORDINATOR);
      }
    }
    groups.clear();
  }
}
