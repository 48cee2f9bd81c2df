package dev.loam.kafka.internal.cluster;

import dev.loam.api.Log;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;

/**
 * Topics as streams of a namespace, the one each request acts in ({@code ClientRequest#namespace}):
 * lookups by name and by topic id ({@link TopicIds}), and auto-creation. Every answer comes from
 * this node's metastore replica. The map from topic id to stream is a cache, refreshed from the
 * namespace's stream list on a miss; an id resolves only within its own namespace, and an entry for
 * a deleted stream is harmless, since the name is described again before use.
 */
public final class Topics {
  private final Log log;
  private final String clusterId;
  private final boolean autoCreate;
  private final int defaultPartitions;
  private final Map<Uuid, Named> namesById = new ConcurrentHashMap<>();

  /** A stream's namespace and name. */
  private record Named(String namespace, String name) {}

  public Topics(Log log, String clusterId, boolean autoCreate, int defaultPartitions) {
    this.log = log;
    this.clusterId = clusterId;
    this.autoCreate = autoCreate;
    this.defaultPartitions = defaultPartitions;
  }

  public Log log() {
    return log;
  }

  /** Whether a missing topic is created when a request allows it (Kafka's auto-creation). */
  public boolean autoCreate() {
    return autoCreate;
  }

  public String clusterId() {
    return clusterId;
  }

  public int defaultPartitions() {
    return defaultPartitions;
  }

  /** The topic id of a stream. */
  public Uuid idOf(StreamDescription d) {
    Uuid id = TopicIds.of(clusterId, d.id());
    namesById.putIfAbsent(id, new Named(d.namespace(), d.name()));
    return id;
  }

  /** Every topic of {@code namespace}, sorted by name; none when the namespace does not exist. */
  public CompletableFuture<List<StreamDescription>> list(String namespace) {
    return log.listStreams(namespace)
        .handle(
            (all, t) -> {
              if (t != null) {
                if (isNotFound(t)) {
                  return List.<StreamDescription>of();
                }
                throw rethrow(t);
              }
              all.forEach(this::idOf);
              return all;
            });
  }

  /** The stream named {@code topic} in {@code namespace}; empty if there is none. */
  public CompletableFuture<Optional<StreamDescription>> describe(String namespace, String topic) {
    return log.describeStream(namespace, topic)
        .handle(
            (d, t) -> {
              if (t == null) {
                idOf(d);
                return Optional.of(d);
              }
              if (isNotFound(t)) {
                return Optional.<StreamDescription>empty();
              }
              throw rethrow(t);
            });
  }

  /**
   * The stream named {@code topic}, created with the default partitions if missing and
   * auto-creation is on (and {@code allowed} by the request); empty otherwise. A concurrent
   * creation of the same topic is not an error.
   */
  public CompletableFuture<Optional<StreamDescription>> describeOrCreate(
      String namespace, String topic, boolean allowed) {
    return describe(namespace, topic)
        .thenCompose(
            found -> {
              if (found.isPresent() || !autoCreate || !allowed) {
                return CompletableFuture.completedFuture(found);
              }
              return log.createStream(namespace, topic, StreamSpec.standard(defaultPartitions))
                  .handle(
                      (d, t) -> {
                        if (t == null) {
                          idOf(d);
                          return CompletableFuture.completedFuture(Optional.of(d));
                        }
                        Throwable c = ErrorMapping.unwrap(t);
                        if (c instanceof LoamException le && le.kind() == Kind.CONFLICT) {
                          return describe(namespace, topic);
                        }
                        return CompletableFuture.<Optional<StreamDescription>>failedFuture(c);
                      })
                  .thenCompose(f -> f);
            });
  }

  /** The name of the topic with id {@code id} in {@code namespace}; empty if no stream has it. */
  public CompletableFuture<Optional<String>> nameOf(String namespace, Uuid id) {
    Named cached = namesById.get(id);
    if (cached != null) {
      return CompletableFuture.completedFuture(
          cached.namespace().equals(namespace) ? Optional.of(cached.name()) : Optional.empty());
    }
    return list(namespace)
        .thenApply(
            all ->
                Optional.ofNullable(namesById.get(id))
                    .filter(n -> n.namespace().equals(namespace))
                    .map(Named::name));
  }

  /** Forgets a deleted topic's id. */
  public void forget(Uuid id) {
    namesById.remove(id);
  }

  static boolean isNotFound(Throwable t) {
    return ErrorMapping.unwrap(t) instanceof LoamException le && le.kind() == Kind.NOT_FOUND;
  }

  static RuntimeException rethrow(Throwable t) {
    Throwable c = ErrorMapping.unwrap(t);
    return c instanceof RuntimeException re ? re : new IllegalStateException(c);
  }
}
