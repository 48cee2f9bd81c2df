package dev.loam.meta.state;

import dev.loam.meta.MetaReader;
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
import java.util.TreeMap;

/**
 * The {@link MetaReader} of a {@link MetaStateMachine}: a live read-only view over its tables. Not
 * thread-safe: callers hold the lock apply takes.
 */
final class StateView implements MetaReader {
  private final MetaStateMachine machine;
  private final Catalog catalog;
  private final ClusterRules cluster;
  private final ObjectLedger objects;
  private final ConsumerTable consumers;
  private final ApiKeyTable apiKeys;
  private final GroupTable groups;

  StateView(
      MetaStateMachine machine,
      Catalog catalog,
      ClusterRules cluster,
      ObjectLedger objects,
      ConsumerTable consumers,
      ApiKeyTable apiKeys,
      GroupTable groups) {
    this.machine = machine;
    this.catalog = catalog;
    this.cluster = cluster;
    this.objects = objects;
    this.consumers = consumers;
    this.apiKeys = apiKeys;
    this.groups = groups;
  }

  @Override
  public Optional<GroupInfo> group(String namespace, String group) {
    return groups.group(namespace, group);
  }

  @Override
  public List<GroupInfo> groups(String namespace) {
    return groups.groups(namespace);
  }

  @Override
  public Optional<ApiKeyInfo> apiKey(String id) {
    return Optional.ofNullable(apiKeys.get(id));
  }

  @Override
  public List<ApiKeyInfo> apiKeys() {
    return apiKeys.all();
  }

  @Override
  public boolean anyNamespaceKeys() {
    return machine.namespaceKeys().any();
  }

  @Override
  public Optional<dev.loam.meta.command.NamespaceKeys> namespaceKeys(String namespace) {
    return Optional.ofNullable(machine.namespaceKeys().get(namespace));
  }

  @Override
  public long appliedIndex() {
    return machine.appliedIndex();
  }

  @Override
  public long clockMillis() {
    return machine.clockMillis();
  }

  @Override
  public long eventLedgerEntries() {
    return machine.events().size();
  }

  @Override
  public long eventLedgerExpired() {
    return machine.events().expired(machine.clockMillis());
  }

  @Override
  public Optional<String> clusterId() {
    return Optional.ofNullable(cluster.clusterId());
  }

  @Override
  public Optional<NodeInfo> node(String nodeId) {
    return Optional.ofNullable(cluster.nodes().get(nodeId));
  }

  @Override
  public List<NodeInfo> nodes() {
    return List.copyOf(cluster.nodes().values());
  }

  @Override
  public Optional<NodeStatus> nodeStatus(String nodeId) {
    NodeInfo n = nodeId == null ? null : cluster.nodes().get(nodeId);
    return n == null ? Optional.empty() : Optional.of(cluster.ownership().status(n));
  }

  @Override
  public Optional<StreamOwnership> ownership(long streamId) {
    return catalog.exists(streamId)
        ? Optional.of(cluster.ownership().get(streamId))
        : Optional.empty();
  }

  @Override
  public int assignedStreams(String nodeId) {
    return cluster.ownership().assigned(nodeId);
  }

  @Override
  public Optional<String> placementChoice() {
    return Optional.ofNullable(cluster.ownership().choose(cluster.nodes().values()));
  }

  @Override
  public List<StreamOwnership> ownershipsInvolving(String nodeId) {
    return cluster.ownership().involving(nodeId);
  }

  @Override
  public boolean namespaceExists(String namespace) {
    return catalog.namespaces().containsKey(namespace);
  }

  @Override
  public List<String> namespaces() {
    return List.copyOf(catalog.namespaces().keySet());
  }

  @Override
  public Optional<StreamInfo> stream(String namespace, String name) {
    TreeMap<String, Catalog.StreamState> streams = catalog.namespaces().get(namespace);
    Catalog.StreamState s = streams == null ? null : streams.get(name);
    return s == null ? Optional.empty() : Optional.of(s.info);
  }

  @Override
  public Optional<StreamInfo> streamById(long streamId) {
    Catalog.StreamState s = catalog.stream(streamId);
    return s == null ? Optional.empty() : Optional.of(s.info);
  }

  @Override
  public List<StreamInfo> streams(String namespace) {
    TreeMap<String, Catalog.StreamState> streams = catalog.namespaces().get(namespace);
    if (streams == null) {
      return List.of();
    }
    return streams.values().stream().map(s -> s.info).toList();
  }

  @Override
  public List<String> streamSchemas(long streamId) {
    return machine.schemas().versions(streamId);
  }

  @Override
  public Optional<PartitionInfo> partition(long streamId, int partition) {
    PartitionState p = catalog.partitionState(streamId, partition);
    if (p == null) {
      return Optional.empty();
    }
    return Optional.of(new PartitionInfo(streamId, partition, p.logStartOffset, p.highWatermark));
  }

  @Override
  public List<IndexEntry> indexEntries(
      long streamId, int partition, long fromOffset, int maxEntries) {
    PartitionState p = catalog.partitionState(streamId, partition);
    return p == null ? List.of() : p.entriesFrom(fromOffset, maxEntries);
  }

  @Override
  public int objectRefs(String objectKey) {
    return objects.refs(objectKey);
  }

  @Override
  public Optional<RetiredObject> retired(String objectKey) {
    return objects.retired(objectKey);
  }

  @Override
  public List<RetiredObject> retiredObjects(int maxObjects) {
    return objects.retiredObjects(maxObjects);
  }

  @Override
  public int retiredCount() {
    return objects.retiredCount();
  }

  @Override
  public long nextProducerId() {
    return consumers.nextProducerId();
  }

  @Override
  public Optional<ConsumerLease> consumerLease(long streamId, int partition, String consumer) {
    return consumers.lease(streamId, partition, consumer);
  }

  @Override
  public List<ConsumerLease> consumerLeases(long streamId, String consumer) {
    return consumers.leases(streamId, consumer);
  }

  @Override
  public Optional<WriterLease> writerLease(long streamId, int partition, String source) {
    return machine.writers().lease(streamId, partition, source);
  }

  @Override
  public List<WriterLease> writerLeases(long streamId, int partition) {
    return machine.writers().leases(streamId, partition);
  }

  @Override
  public Optional<IndexEntry> entryForTimestamp(
      long streamId, int partition, long timestampMillis) {
    PartitionState p = catalog.partitionState(streamId, partition);
    return p == null ? Optional.empty() : Optional.ofNullable(p.entryForTimestamp(timestampMillis));
  }

  @Override
  public Optional<String> journalOf(long streamId, int partition) {
    return machine.journals().journalOf(streamId, partition);
  }

  @Override
  public java.util.SortedMap<String, List<String>> journals() {
    return machine.journals().journals();
  }

  @Override
  public List<dev.loam.meta.command.JournalPartition> journalPartitions(String journal) {
    return machine.journals().partitionsOf(journal);
  }

  @Override
  public Optional<List<String>> journalReplicas(String journal) {
    return machine.journals().replicas(journal);
  }

  @Override
  public Optional<String> journalLeaderHint(String journal) {
    return machine.journals().hints.leaderHint(journal);
  }

  @Override
  public Optional<String> journalPlacementHint(long streamId, int partition) {
    return machine.journals().hints.of(streamId, partition);
  }

  @Override
  public Optional<String> journalMoveTarget(long streamId, int partition) {
    return machine.journals().moves.moveTarget(streamId, partition);
  }
}
