package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AddStreamSchema;
import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.CreateArrowStream;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.PruneEvents;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.ReleaseEvents;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.UpdateStreamConfig;
import java.util.Objects;

/**
 * The metastore's deterministic state machine: nodes, namespaces, streams and, per partition, the
 * sequencer of stream-engine.txt §3 (offsets, producer idempotence, offset index, commit dedupe).
 * Every replica applies the same commands in the same order and reaches the same state and the same
 * snapshot bytes.
 *
 * <p>Pure: no I/O, no clock, no randomness. Time is the metastore clock, the highest command stamp
 * applied so far. Rejections are {@link Outcome.Rejected} values, never exceptions. Not
 * thread-safe: the caller serialises {@link #apply} against readers.
 *
 * <p>The state is held by tables that keep their own maps consistent and write their own snapshot
 * sections ({@link Catalog}, {@link ObjectLedger}, {@link DedupeLedger}, {@link ConsumerTable},
 * {@link OwnershipTable}); the commit rules sit next to them ({@link Sequencer}, {@link
 * SegmentRules}, {@link ClusterRules}, and the catalog's and consumers' own). This class orders
 * every apply (clock, dedupe prune, fencing, dispatch) and applies the one rule that spans tables,
 * deleting a stream.
 */
public final class MetaStateMachine {
  /** The namespace that exists from the initial state and cannot be deleted. */
  public static final String DEFAULT_NAMESPACE = "default";

  /**
   * The newest snapshot version written. Each state is written in the oldest version that can hold
   * it, so older states stay byte-identical to what older writers produced: version 1 without
   * retired objects, producer ids or named consumers; version 2 with retired objects only; version
   * 3 (retired objects, the producer-id counter and named consumers) when there is no ownership
   * activity; version 4 (version 3 plus node liveness and stream ownership) when there is but no
   * cluster id is set; version 5 (version 4 plus the cluster id) once it is; version 6 (version 5,
   * its id possibly unset, plus the nodes' named endpoints) while some node advertises an endpoint;
   * version 7 (version 6, its endpoints possibly none, plus the API keys) once a key exists;
   * version 8 (version 7, its keys possibly none, plus the consumer groups) while a group has a
   * record; version 9 (version 8, its groups possibly none, plus the CloudEvents dedupe ledger)
   * while the ledger has an entry; version 10 (version 9, its ledger possibly empty, plus the
   * namespaces' keys) once a namespace has a key; version 11 (version 10, its keys possibly none,
   * plus the writer leases of fenced appends) while a writer lease exists or a dedupe record holds
   * a fenced batch's verdict; version 12 (version 11, its leases possibly none, plus the arrow
   * streams' schema versions) while an arrow stream exists; version 13 (version 12, its schemas
   * possibly none, plus the quorum journals' placement) once a journal is placed; version 14
   * (version 13 plus the quorum partitions' placement hints and moves under way) while a partition
   * carries a hint or is moving. Restore reads all fourteen (metastore-snapshot.md).
   */
  public static final int SNAPSHOT_VERSION = 14;

  /**
   * Named consumers per partition at most (STYLE.md §9): bounds the state one partition can hold
   * and the snapshot it adds.
   */
  public static final int MAX_CONSUMERS_PER_PARTITION = ConsumerTable.MAX_CONSUMERS_PER_PARTITION;

  private final MetaSettings settings;

  private long appliedIndex;
  private long clockMillis;

  private final Catalog catalog = new Catalog();
  private final ObjectLedger objects = new ObjectLedger();
  private final DedupeLedger dedupe;
  private final ConsumerTable consumers = new ConsumerTable(catalog);
  private final ClusterRules cluster = new ClusterRules(catalog);
  private final ApiKeyTable apiKeys = new ApiKeyTable();
  private final GroupTable groups = new GroupTable(catalog);
  private final EventLedgerTable events = new EventLedgerTable(catalog);
  private final NamespaceKeyTable namespaceKeys = new NamespaceKeyTable(catalog);
  private final WriterTable writers = new WriterTable(catalog);
  private final SchemaTable schemas = new SchemaTable(catalog);
  private final JournalTable journals = new JournalTable(catalog);
  private final Sequencer sequencer;
  private final SegmentRules segments;
  private final JournalSegmentRules journalSegments;

  private final StateView view;

  /** An empty state holding only the default namespace, at applied index 0. */
  public MetaStateMachine(MetaSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.dedupe = new DedupeLedger(settings.dedupeRetention().toMillis());
    this.sequencer = new Sequencer(settings, catalog, objects, dedupe, writers);
    this.segments = new SegmentRules(settings, catalog, objects);
    this.journalSegments = new JournalSegmentRules(settings, catalog, objects, journals);
    this.view = new StateView(this, catalog, cluster, objects, consumers, apiKeys, groups);
  }

  /** The index of the last applied command; 0 before the first. */
  public long appliedIndex() {
    return appliedIndex;
  }

  /** The settings this state machine applies with. */
  public MetaSettings settings() {
    return settings;
  }

  /** A live read-only view of this state. Not thread-safe: callers hold the lock apply takes. */
  public MetaReader reader() {
    return view;
  }

  /**
   * Applies one command at {@code index}, which must be greater than {@link #appliedIndex()} (a
   * lower one is a caller bug, an {@link IllegalArgumentException}). Returns the outcome.
   */
  public Outcome apply(long index, Command command) {
    Objects.requireNonNull(command, "command");
    if (index <= appliedIndex) {
      throw new IllegalArgumentException(
          "apply index must increase index=" + index + " appliedIndex=" + appliedIndex);
    }
    appliedIndex = index;
    // The metastore clock moves first, on every command, so that the rules below see the same
    // time on every replica (§3 commit window; no wall clock in apply).
    clockMillis = Math.max(clockMillis, command.origin().stampMillis());
    dedupe.prune(clockMillis);
    if (command instanceof RegisterNode c) {
      return cluster.registerNode(c, clockMillis);
    }
    Outcome.Rejected fenced = cluster.checkNode(command.origin());
    if (fenced != null) {
      return fenced;
    }
    if (command instanceof OwnerFenced c) {
      Outcome.Rejected refused = cluster.checkFenced(c);
      return refused != null ? refused : dispatch(c.inner());
    }
    if (OwnerFenced.ownerBound(command)) {
      Outcome.Rejected notOwner = cluster.checkOwner(command);
      if (notOwner != null) {
        return notOwner;
      }
    }
    return dispatch(command);
  }

  private Outcome dispatch(Command command) {
    long now = clockMillis;
    if (command instanceof CreateNamespace c) {
      return catalog.createNamespace(c);
    } else if (command instanceof DeleteNamespace c) {
      Outcome o = catalog.deleteNamespace(c);
      if (o instanceof Outcome.Deleted) {
        groups.dropNamespace(c.name());
        namespaceKeys.dropNamespace(c.name());
      }
      return o;
    } else if (command instanceof CreateStream c) {
      return catalog.createStream(c);
    } else if (command instanceof DeleteStream c) {
      return deleteStream(c);
    } else if (command instanceof CommitWal c) {
      return sequencer.commitWal(c, now);
    } else if (command instanceof CommitWalGroup c) {
      return sequencer.commitWalGroup(c, now);
    } else if (command instanceof SwapSegment c) {
      return segments.swapSegment(c, now);
    } else if (command instanceof TrimPartition c) {
      return segments.trimPartition(c, now);
    } else if (command instanceof DeleteObjects c) {
      return objects.deleteObjects(c);
    } else if (command instanceof AllocateProducerIds c) {
      return consumers.allocateProducerIds(c);
    } else if (command instanceof AcquireConsumerLease c) {
      return consumers.acquireConsumerLease(c, now);
    } else if (command instanceof CommitConsumerOffset c) {
      return consumers.commitConsumerOffset(c, now);
    } else if (command instanceof UpdateStreamConfig c) {
      return catalog.updateStreamConfig(c);
    } else if (command instanceof AddPartitions c) {
      return catalog.addPartitions(c);
    } else if (command instanceof RenewNode c) {
      return cluster.renewNode(c, now);
    } else if (command instanceof ExpireNode c) {
      return cluster.expireNode(c, now);
    } else if (command instanceof DeregisterNode c) {
      return cluster.deregisterNode(c);
    } else if (command instanceof SetNodeSlots c) {
      return cluster.setNodeSlots(c);
    } else if (command instanceof SetNodeEndpoint c) {
      return cluster.setNodeEndpoint(c);
    } else if (command instanceof PlaceStream c) {
      return cluster.placeStream(c);
    } else if (command instanceof OpenStream c) {
      return cluster.openStream(c);
    } else if (command instanceof CloseStream c) {
      return cluster.closeStream(c);
    } else if (command instanceof TransferStream c) {
      return cluster.transferStream(c);
    } else if (command instanceof InitCluster c) {
      return cluster.initCluster(c);
    } else if (command instanceof CreateApiKey c) {
      return apiKeys.create(c, now);
    } else if (command instanceof RevokeApiKey c) {
      return apiKeys.revoke(c, now);
    } else if (command instanceof AdvanceGroupGeneration c) {
      return groups.advanceGeneration(c);
    } else if (command instanceof CommitGroupOffsets c) {
      return groups.commitOffsets(c);
    } else if (command instanceof DeleteGroupOffsets c) {
      return groups.deleteOffsets(c);
    } else if (command instanceof PlaceJournal c) {
      return journals.place(c, cluster.nodes(), cluster.ownership());
    } else if (command instanceof AssignJournalPartition c) {
      return journals.assign(c, cluster.nodes(), cluster.ownership());
    } else if (command instanceof dev.loam.meta.command.MoveJournalPartition c) {
      return journals.moves.move(c);
    } else if (command instanceof CommitJournalSegment c) {
      return journalSegments.commit(c, now);
    } else if (command instanceof ClaimEvents c) {
      // the claim's id is its log index: unique for the metastore's life, equal on every replica
      return events.claim(c, appliedIndex, now);
    } else if (command instanceof CompleteEvents c) {
      return events.complete(c, now);
    } else if (command instanceof ReleaseEvents c) {
      return events.release(c);
    } else if (command instanceof PruneEvents c) {
      return events.prune(c, now);
    } else if (command instanceof AddNamespaceKey c) {
      return namespaceKeys.add(c);
    } else if (command instanceof DestroyNamespaceKeys c) {
      return namespaceKeys.destroy(c);
    } else if (command instanceof AcquireWriterLease c) {
      return writers.acquire(c, now);
    } else if (command instanceof CreateArrowStream c) {
      return schemas.createArrowStream(c);
    } else if (command instanceof AddStreamSchema c) {
      return schemas.addSchema(c);
    }
    throw new IllegalArgumentException("unknown command type " + command.getClass());
  }

  /** Deleting a stream reaches every table that holds something of it. */
  private Outcome deleteStream(DeleteStream c) {
    Catalog.StreamState s = catalog.removeStream(c.namespace(), c.name());
    if (s == null) {
      return rejected(
          RejectReason.NOT_FOUND,
          "no such stream namespace=" + c.namespace() + " stream=" + c.name());
    }
    cluster.ownership().remove(s.info.id());
    // Its named consumers go too: a stream re-created under this name is another stream (new id)
    // and starts without committed offsets.
    consumers.dropStream(s.info.id());
    groups.dropStream(s.info.id());
    events.dropStream(s.info.id());
    writers.dropStream(s.info.id());
    schemas.dropStream(s.info.id());
    journals.dropStream(s.info.id());
    // Its objects lose these references; those referenced by nothing else are retired for GC.
    for (PartitionState p : s.partitions) {
      for (IndexEntry e : p.entries) {
        objects.unref(e.objectKey(), clockMillis);
      }
    }
    return new Outcome.Deleted(c.name());
  }

  // ---- helpers kept here for their tests

  /** Kafka's topic name rules; see {@link Catalog#validName}. */
  static boolean validName(String name) {
    return Catalog.validName(name);
  }

  /** Kafka's sequence arithmetic; see {@link Sequencer#lastSequence}. */
  static int lastSequence(int baseSequence, int recordCount) {
    return Sequencer.lastSequence(baseSequence, recordCount);
  }

  static int nextSequence(int lastSequence) {
    return Sequencer.nextSequence(lastSequence);
  }

  // ---- the tables, for the reader view and the snapshot format

  long clockMillis() {
    return clockMillis;
  }

  Catalog catalog() {
    return catalog;
  }

  ObjectLedger objects() {
    return objects;
  }

  DedupeLedger dedupe() {
    return dedupe;
  }

  ConsumerTable consumers() {
    return consumers;
  }

  ClusterRules cluster() {
    return cluster;
  }

  ApiKeyTable apiKeys() {
    return apiKeys;
  }

  GroupTable groups() {
    return groups;
  }

  EventLedgerTable events() {
    return events;
  }

  NamespaceKeyTable namespaceKeys() {
    return namespaceKeys;
  }

  WriterTable writers() {
    return writers;
  }

  SchemaTable schemas() {
    return schemas;
  }

  JournalTable journals() {
    return journals;
  }

  /** Sets the header fields of a state being restored (before any command is applied). */
  void restoreHeader(long appliedIndex, long clockMillis) {
    this.appliedIndex = appliedIndex;
    this.clockMillis = clockMillis;
  }

  // ---- snapshots (docs/formats/metastore-snapshot.md)

  /** The whole state as versioned bytes with a CRC-32C trailer; identical on every replica. */
  public byte[] snapshot() {
    return SnapshotFormat.write(this);
  }

  /**
   * Rebuilds a state machine from {@link #snapshot()} bytes. Bad magic, version, checksum or
   * structure is a {@link CorruptionException} naming the field.
   */
  public static MetaStateMachine restore(byte[] snapshot, MetaSettings settings) {
    return SnapshotFormat.read(snapshot, settings);
  }

  @Override
  public String toString() {
    return "MetaStateMachine{appliedIndex="
        + appliedIndex
        + ", clock="
        + clockMillis
        + ", streams="
        + catalog.streamsById().size()
        + ", dedupe="
        + dedupe.size()
        + ", retired="
        + objects.retiredCount()
        + ", consumers="
        + consumers.size()
        + ", apiKeys="
        + apiKeys.all().size()
        + ", groups="
        + groups.size()
        + ", eventLedger="
        + events.size()
        + ", writers="
        + writers.size()
        + "}";
  }
}
