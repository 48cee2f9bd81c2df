package dev.loam.meta;

import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.GroupInfo;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.RetiredObject;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.WriterLease;
import java.util.List;
import java.util.Optional;

/**
 * A read-only view of the metastore state at one applied index. Only valid inside {@link
 * Metastore#read}; do not keep it.
 */
public interface MetaReader {
  /** The index of the last applied command (the consistency token this view satisfies). */
  long appliedIndex();

  /** The metastore clock: the highest command stamp applied so far (deterministic). */
  long clockMillis();

  /**
   * CloudEvents dedupe ledger entries, pending or done, expired ones included until a PruneEvents
   * removes them.
   */
  long eventLedgerEntries();

  /** Ledger entries expired by the metastore clock, waiting for a PruneEvents. */
  long eventLedgerExpired();

  /**
   * The cluster id recorded by the first InitCluster applied; empty until then. Once set it never
   * changes, on any replica, also across snapshots and restarts.
   */
  Optional<String> clusterId();

  Optional<NodeInfo> node(String nodeId);

  List<NodeInfo> nodes();

  /** The node's liveness (ownership-and-routing.txt); empty for an unregistered node. */
  Optional<NodeStatus> nodeStatus(String nodeId);

  /** The stream's ownership; empty for an unknown (or deleted) stream. */
  Optional<StreamOwnership> ownership(long streamId);

  /** How many streams are placed on or opened by {@code nodeId} (placement's numerator). */
  int assignedStreams(String nodeId);

  /** The node a PlaceStream applied now would choose; empty when no live node has slots. */
  Optional<String> placementChoice();

  /** The streams {@code nodeId} owns or is the pending transfer target of, in stream id order. */
  List<StreamOwnership> ownershipsInvolving(String nodeId);

  boolean namespaceExists(String namespace);

  /** Namespace names in sorted order. */
  List<String> namespaces();

  Optional<StreamInfo> stream(String namespace, String name);

  Optional<StreamInfo> streamById(long streamId);

  /** Streams of a namespace, sorted by name. */
  List<StreamInfo> streams(String namespace);

  /**
   * The schema versions of an arrow stream (Arrow schema JSON, version 1 first); empty for a
   * kafka-encoded stream or an unknown id (docs/reference/arrow.md).
   */
  List<String> streamSchemas(long streamId);

  /** The partition's bounds, or empty if the stream or partition does not exist. */
  Optional<PartitionInfo> partition(long streamId, int partition);

  /**
   * Up to {@code maxEntries} index entries, in offset order, starting with the one that contains
   * {@code fromOffset} (or the first one after it). Empty if nothing is at or after {@code
   * fromOffset}.
   */
  List<IndexEntry> indexEntries(long streamId, int partition, long fromOffset, int maxEntries);

  /**
   * The first index entry whose max timestamp is at or after {@code timestampMillis}, or empty if
   * none (Kafka's ListOffsets by timestamp, refined by the reader within the entry).
   */
  Optional<IndexEntry> entryForTimestamp(long streamId, int partition, long timestampMillis);

  /**
   * How many index entries reference {@code objectKey} (WAL object or segment); 0 for an object
   * that is retired, deleted, or was never committed.
   */
  int objectRefs(String objectKey);

  /** The object's retired record, if it is retired and its deletion not yet confirmed. */
  Optional<RetiredObject> retired(String objectKey);

  /** Up to {@code maxObjects} retired objects, oldest retirement first (the GC's work order). */
  List<RetiredObject> retiredObjects(int maxObjects);

  /** How many objects are retired and not yet confirmed deleted. */
  int retiredCount();

  /** The next producer id AllocateProducerIds hands out; ids below it were handed out. */
  long nextProducerId();

  /** The named consumer's lease and committed offset on one partition, if it ever took a lease. */
  Optional<ConsumerLease> consumerLease(long streamId, int partition, String consumer);

  /** The named consumer's state on every partition of a stream it took a lease on, by partition. */
  List<ConsumerLease> consumerLeases(long streamId, String consumer);

  /** The API key with this id, revoked or not; empty for an unknown id. */
  Optional<ApiKeyInfo> apiKey(String id);

  /** Every API key, revoked ones included, sorted by id. */
  List<ApiKeyInfo> apiKeys();

  /** A Kafka consumer group's record (generation, committed offsets), if it has one. */
  Optional<GroupInfo> group(String namespace, String group);

  /** The records of every consumer group of a namespace, sorted by group id. */
  List<GroupInfo> groups(String namespace);

  /**
   * A namespace's key-encryption keys, if it was ever given one: their ULIDs (the newest seals new
   * chunks) and whether its master key was destroyed. Empty for a namespace written plain.
   */
  Optional<dev.loam.meta.command.NamespaceKeys> namespaceKeys(String namespace);

  /** Whether any namespace has a key record: whether any WAL chunk of the cluster may be sealed. */
  boolean anyNamespaceKeys();

  /**
   * The writer lease of {@code source} on one partition with its source position, if the source
   * ever took one (docs/design/changelog.md).
   */
  Optional<WriterLease> writerLease(long streamId, int partition, String source);

  /** Every writer lease on one partition, sorted by source. */
  List<WriterLease> writerLeases(long streamId, int partition);

  /** The journal holding a quorum stream's partition, if it was assigned to one. */
  default Optional<String> journalOf(long streamId, int partition) {
    return Optional.empty();
  }

  /** Every placed journal and its replicas (node ids in placement order), by name. */
  default java.util.SortedMap<String, List<String>> journals() {
    return java.util.Collections.emptySortedMap();
  }

  /** The partitions assigned to a journal, by (stream, partition); empty for an unknown one. */
  default List<dev.loam.meta.command.JournalPartition> journalPartitions(String journal) {
    return List.of();
  }

  /** A placed journal's replicas, node ids in placement order; empty for an unknown journal. */
  default Optional<List<String>> journalReplicas(String journal) {
    return Optional.empty();
  }

  /**
   * The placement hint (a zone or a node id) a journal's leader follows: the one most of its hinted
   * partitions carry, ties by the smaller hint; empty when none is hinted (docs/design/quorum.md
   * "Leader transfer").
   */
  default Optional<String> journalLeaderHint(String journal) {
    return Optional.empty();
  }

  /** The placement hint a quorum partition was assigned with, if any. */
  default Optional<String> journalPlacementHint(long streamId, int partition) {
    return Optional.empty();
  }

  /** The journal a quorum partition is moving to, while a move is under way. */
  default Optional<String> journalMoveTarget(long streamId, int partition) {
    return Optional.empty();
  }
}
