package dev.loam.core.node;

import dev.loam.core.ClusterMarker;
import dev.loam.core.Rejections;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.StreamInfo;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The start step that ties a node's metastore to its store ("a store root belongs to exactly one
 * cluster", DESIGN.md): the cluster id is the metastore's (minted by the first node of a cluster
 * with {@link InitCluster}, the first proposal winning); the store root's {@link ClusterMarker}
 * must name the same id (the first node creates it, with create-if-absent); and an object the
 * metastore's index references must be in the store. A node that fails any of these refuses to
 * start: CONFLICT when the store belongs to another cluster, CORRUPTION when the metastore
 * references objects the store does not hold (a different or emptied store), each naming the ids,
 * the store and the key.
 *
 * <p>This check at start keeps a misconfigured node from writing; what keeps two clusters' GC from
 * deleting each other's objects is the cluster id in every data key (ObjectLayout), which does not
 * depend on it.
 */
final class ClusterIdentity {
  private ClusterIdentity() {}

  /**
   * Establishes the cluster id and checks the stores; completes with the id. {@code stores} are the
   * node's stores by role (the standard store first, then the express store if any), each checked
   * for the marker; {@code routing} reads any referenced object. {@code newId} draws an id for a
   * cluster whose metastore has none yet.
   */
  static CompletableFuture<String> establish(
      Metastore meta,
      Origin origin,
      List<ObjectStore> stores,
      ObjectStore routing,
      Supplier<String> newId) {
    return clusterId(meta, origin, newId)
        .thenCompose(id -> markers(stores, 0, id).thenApply(v -> id))
        .thenCompose(id -> sampleReferencedObject(meta, routing).thenApply(v -> id));
  }

  private static CompletableFuture<String> clusterId(
      Metastore meta, Origin origin, Supplier<String> newId) {
    Optional<String> known = meta.read(MetaReader::clusterId);
    if (known.isPresent()) {
      return CompletableFuture.completedFuture(known.get());
    }
    return meta.propose(new InitCluster(origin, newId.get()))
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, "node=" + origin.nodeId());
              }
              return ((Outcome.ClusterInitialized) a.outcome()).clusterId();
            });
  }

  private static CompletableFuture<Void> markers(List<ObjectStore> stores, int i, String id) {
    if (i >= stores.size()) {
      return CompletableFuture.completedFuture(null);
    }
    ObjectStore store = stores.get(i);
    return store
        .create(ClusterMarker.KEY, ClusterMarker.encode(id))
        .exceptionallyCompose(
            t ->
                // Taken (the usual case after the first start), or an attempt whose outcome is
                // unknown: the marker that is there decides.
                store
                    .get(ClusterMarker.KEY)
                    .handle(
                        (bytes, getFailure) -> {
                          if (getFailure != null) {
                            Throwable created = unwrap(t);
                            throw created instanceof ObjectExistsException
                                ? asLoam(unwrap(getFailure))
                                : asLoam(created);
                          }
                          String marked = ClusterMarker.decode(bytes);
                          if (!marked.equals(id)) {
                            throw new LoamException(
                                Kind.CONFLICT,
                                "the store belongs to another cluster: its marker names cluster="
                                    + marked
                                    + " but this node's metastore is of cluster="
                                    + id
                                    + "; a store root belongs to exactly one cluster store="
                                    + store
                                    + " key="
                                    + ClusterMarker.KEY);
                          }
                          return null;
                        }))
        .thenCompose(v -> markers(stores, i + 1, id));
  }

  /**
   * One object the index references (the first entry of the first partition that has one) must be
   * in the store. A miss is looked at again in a fresh view: an entry swapped away and its object
   * deleted meanwhile is not a mismatch.
   */
  private static CompletableFuture<Void> sampleReferencedObject(Metastore meta, ObjectStore store) {
    Optional<String> key = meta.read(ClusterIdentity::firstReferencedKey);
    if (key.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    String k = key.get();
    return store
        .head(k)
        .thenAccept(
            info -> {
              if (info.isEmpty() && meta.read(r -> r.objectRefs(k)) > 0) {
                throw new LoamException(
                    Kind.CORRUPTION,
                    "the metastore references objects the store does not hold: the store is not"
                        + " this cluster's (or was emptied); start the node on the store its"
                        + " metastore was created with store="
                        + store
                        + " key="
                        + k);
              }
            });
  }

  private static Optional<String> firstReferencedKey(MetaReader r) {
    for (String ns : r.namespaces()) {
      for (StreamInfo s : r.streams(ns)) {
        for (int p = 0; p < s.config().partitions(); p++) {
          var bounds = r.partition(s.id(), p);
          if (bounds.isEmpty()) {
            continue;
          }
          List<IndexEntry> es = r.indexEntries(s.id(), p, bounds.get().logStartOffset(), 1);
          if (!es.isEmpty()) {
            return Optional.of(es.get(0).objectKey());
          }
        }
      }
    }
    return Optional.empty();
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  private static RuntimeException asLoam(Throwable t) {
    return t instanceof LoamException le
        ? le
        : new LoamException(Kind.UNAVAILABLE, "could not read the store's cluster marker", t);
  }
}
