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
 * Topics as streams of the listener's namespace: lookups by name and by topic id ({@link
 * TopicIds}), and auto-creation. Every answer comes from this node's metastore replica. The map
 * from topic id to stream name is a cache, refreshed from the stream list on a miss; an entry for a
 * deleted stream is harmless, since the name is described again before use.
 */
public final class Topics {
  private final Log log;
  private final String namespace;
  private final String clusterId;
  private final boolean autoCreate;
  private final int defaultPartitions;
  private final Map<Uuid, String> namesById = new ConcurrentHashMap<>();

  public Topics(
      Log log, String namespace, String clusterId, boolean autoCreate, int defaultPartitions) {
    this.log = log;
    this.namespace = namespace;
    this.clusterId = clusterId;
    this.autoCreate = autoCreate;
    this.defaultPartitions = defaultPartitions;
  }

  public Log log() {
    return log;
  }

  public String namespace() {
    return namespace;
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
    namesById.putIfAbsent(id, d.name());
    return id;
  }

  /** Every topic, sorted by name. */
  public CompletableFuture<List<StreamDescription>> list() {
    return log.listStreams(namespace)
        .thenApply(
            all -> {
              all.forEach(this::idOf);
              return all;
            });
  }

  /** The stream named {@code topic}; empty if there is none. */
  public CompletableFuture<Optional<StreamDescription>> describe(String topic) {
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
      String topic, boolean allowed) {
    return describe(topic)
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
                          return describe(topic);
                        }
                        return CompletableFuture.<Optional<StreamDescription>>failedFuture(c);
                      })
                  .thenCompose(f -> f);
            });
  }

  /** The name of the topic with id {@code id}; empty if no stream has it. */
  public CompletableFuture<Optional<String>> nameOf(Uuid id) {
    String cached = namesById.get(id);
    if (cached != null) {
      return CompletableFuture.completedFuture(Optional.of(cached));
    }
    return list().thenApply(all -> Optional.ofNullable(namesById.get(id)));
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
