package dev.loam.meta.command;

import java.util.List;

/**
 * The result of applying one command: a value, never an exception (STYLE.md §4). Each command has
 * one success type; any command may be {@link Rejected}.
 */
public sealed interface Outcome {

  /** The command changed nothing; {@code reason} says why and {@code message} names the subject. */
  record Rejected(RejectReason reason, String message) implements Outcome {}

  /**
   * A {@link Rejected} outcome. The state machine's rules refuse through this, so a refusal is a
   * value returned, never an exception thrown from apply.
   */
  static Rejected rejected(RejectReason reason, String message) {
    return new Rejected(reason, message);
  }

  /**
   * A group command was applied: the group's stored generation after it (0: the group has no
   * record) and how many partitions it has committed offsets for.
   */
  record GroupChanged(String namespace, String group, int generation, int offsets)
      implements Outcome {}

  /**
   * ClaimEvents was applied: the claim's id (the command's log index), when its pending keys lapse,
   * and one answer per key in the command's order.
   */
  record EventsClaimed(long claimId, long expiresAtMillis, List<EventClaim> claims)
      implements Outcome {
    public EventsClaimed {
      claims = List.copyOf(claims);
    }
  }

  /**
   * One key's answer to a claim: for DUPLICATE the first write's partition and offset, for
   * IN_FLIGHT when the other claim lapses; the fields a status does not use are -1.
   */
  record EventClaim(ClaimStatus status, int partition, long offset, long expiresAtMillis) {
    /** A key now claimed. */
    public static EventClaim claimed() {
      return new EventClaim(ClaimStatus.CLAIMED, -1, -1, -1);
    }

    /** A key done by an earlier write at {@code partition}/{@code offset}. */
    public static EventClaim duplicate(int partition, long offset) {
      return new EventClaim(ClaimStatus.DUPLICATE, partition, offset, -1);
    }

    /** A key pending under another claim until {@code expiresAtMillis}. */
    public static EventClaim inFlight(long expiresAtMillis) {
      return new EventClaim(ClaimStatus.IN_FLIGHT, -1, -1, expiresAtMillis);
    }
  }

  /** A key's claim status. */
  enum ClaimStatus {
    CLAIMED,
    DUPLICATE,
    IN_FLIGHT
  }

  /** CompleteEvents was applied: keys now done, and keys no longer pending under the claim. */
  record EventsCompleted(int completed, int notHeld) implements Outcome {}

  /** ReleaseEvents or PruneEvents was applied: ledger entries removed. */
  record EventsRemoved(int removed) implements Outcome {}

  /**
   * PlaceJournal or AssignJournalPartition: the journal's replicas, node ids in placement order.
   * {@code alreadyPlaced}: the journal (or the partition's assignment) existed, nothing changed.
   */
  record JournalPlaced(String journal, List<String> replicas, boolean alreadyPlaced)
      implements Outcome {
    public JournalPlaced {
      replicas = List.copyOf(replicas);
    }
  }

  /** Why a command was refused. */
  enum RejectReason {
    /** The proposer's node epoch is lower than the registered one (a zombie process). */
    STALE_NODE_EPOCH,
    /** The proposer is not registered, or not at this epoch. */
    UNKNOWN_NODE,
    /** The command is stamped too far ahead of the proposing replica's clock. */
    FUTURE_STAMP,
    /** A CommitWal older than the stale-commit window (§3 commit window). */
    STALE_COMMIT,
    ALREADY_EXISTS,
    NOT_FOUND,
    /** The namespace still holds streams, or a compare-and-swap found other entries. */
    CONFLICT,
    INVALID,
    /**
     * A consumer lease generation that is not current, or whose lease expired (§7); a group
     * generation that is not the stored one.
     */
    FENCED,
    /** A committed offset outside the partition's {@code [logStartOffset, highWatermark]}. */
    OUT_OF_RANGE,
    /** An owner-bound command from a node that does not own the stream (ownership). */
    NOT_OWNER
  }

  /** RegisterNode succeeded. */
  record NodeRegistered(NodeInfo node) implements Outcome {}

  /** CreateNamespace succeeded. */
  record NamespaceCreated(String name) implements Outcome {}

  /** AddStreamSchema succeeded: the stream now has {@code version} schema versions. */
  record SchemaAdded(long streamId, int version) implements Outcome {}

  /** CreateStream succeeded. */
  record StreamCreated(StreamInfo stream) implements Outcome {}

  /** DeleteNamespace or DeleteStream succeeded. */
  record Deleted(String name) implements Outcome {}

  /**
   * CommitWal was applied. {@code chunks} has one list per chunk of the command, in order, with one
   * {@link BatchResult} per batch. {@code deduplicated} is true when this is a retry of an object
   * already committed: the results are the first commit's, and nothing was appended again.
   */
  record WalCommitted(boolean deduplicated, List<List<BatchResult>> chunks) implements Outcome {
    public WalCommitted {
      chunks = chunks.stream().map(List::copyOf).toList();
    }
  }

  /**
   * CommitWalGroup was applied: one outcome per member, in order, each {@link WalCommitted} or
   * {@link Rejected} (a member refused alone, e.g. STALE_COMMIT, while the others commit).
   */
  record WalGroupCommitted(List<Outcome> members) implements Outcome {
    public WalGroupCommitted {
      members = List.copyOf(members);
      for (Outcome m : members) {
        if (!(m instanceof WalCommitted) && !(m instanceof Rejected)) {
          throw new IllegalArgumentException(
              "a group member's outcome is WalCommitted or Rejected, not " + m);
        }
      }
    }
  }

  /** What happened to one batch of a CommitWal. */
  record BatchResult(BatchStatus status, long baseOffset) {}

  /** The per-batch status; only APPENDED and DUPLICATE carry a meaningful {@code baseOffset}. */
  enum BatchStatus {
    /** Appended now at {@code baseOffset}. */
    APPENDED,
    /** Same producer, epoch and sequences as one of the last 5 batches: the original offset. */
    DUPLICATE,
    /** The sequence does not follow the producer's last one. Nothing appended. */
    OUT_OF_ORDER_SEQUENCE,
    /** The producer epoch is older than the one seen. Nothing appended. */
    PRODUCER_FENCED,
    /** The stream was deleted or the partition does not exist. Nothing appended. */
    UNKNOWN_PARTITION,
    /**
     * A fenced batch whose source range ends at or below the source's {@code sourceUpto}: already
     * in the partition (a retry). Nothing appended.
     */
    ALREADY_APPENDED,
    /**
     * A fenced batch whose lease epoch is not the current one, or whose lease expired or does not
     * exist. Nothing appended.
     */
    WRITER_FENCED,
    /** A fenced batch starting beyond {@code sourceUpto + 1}. Nothing appended. */
    SOURCE_GAP,
    /**
     * A fenced batch starting at or below {@code sourceUpto} and ending beyond it: part of it is
     * already there, and one batch cannot be split. Nothing appended.
     */
    SOURCE_OVERLAP
  }

  /**
   * SwapSegment was applied: {@code entriesReplaced} entries now point into the segment. {@code
   * deduplicated}: the swap was already in place (a retry), nothing changed.
   */
  record SegmentSwapped(boolean deduplicated, int entriesReplaced) implements Outcome {}

  /**
   * TrimPartition was applied: the partition's log start is now {@code logStartOffset}, and {@code
   * entriesDropped} index entries were dropped (0 for a no-op).
   */
  record Trimmed(long logStartOffset, int entriesDropped) implements Outcome {}

  /** DeleteObjects was applied: {@code removed} retired records were removed. */
  record ObjectsDeleted(int removed) implements Outcome {}

  /** AllocateProducerIds succeeded: the ids {@code [firstProducerId, firstProducerId + count)}. */
  record ProducerIdsAllocated(long firstProducerId, int count) implements Outcome {}

  /** AcquireWriterLease succeeded: the lease now held, with its source position. */
  record WriterLeaseGranted(WriterLease lease) implements Outcome {}

  /** AcquireConsumerLease succeeded: the lease now held, with the committed offset. */
  record ConsumerLeaseGranted(ConsumerLease lease) implements Outcome {}

  /** CommitConsumerOffset succeeded: the state after the commit (the lease renewed). */
  record ConsumerOffsetCommitted(ConsumerLease lease) implements Outcome {}

  /** UpdateStreamConfig succeeded: the stream with its configuration after the update. */
  record StreamConfigUpdated(StreamInfo stream) implements Outcome {}

  /**
   * AddPartitions succeeded: the stream with its new partition count; partitions {@code
   * [previousPartitions, stream.config().partitions())} are new and empty.
   */
  record PartitionsAdded(StreamInfo stream, int previousPartitions) implements Outcome {}

  /**
   * RenewNode, ExpireNode or DeregisterNode succeeded: the node's status after it, and how many
   * streams it owned were closed ({@code changed} false: nothing to do, e.g. already dead).
   */
  record NodeStatusChanged(NodeStatus status, boolean changed, int streamsClosed)
      implements Outcome {}

  /**
   * PlaceStream, OpenStream, CloseStream or TransferStream succeeded: the stream's ownership after
   * it; {@code changed} false for an idempotent no-op (e.g. placing a placed stream).
   */
  record OwnershipChanged(StreamOwnership ownership, boolean changed) implements Outcome {}

  /**
   * InitCluster succeeded: the cluster id recorded after it, which is the first InitCluster's id
   * (for the one that set it, and for every later one, whatever id it proposed).
   */
  record ClusterInitialized(String clusterId) implements Outcome {}

  /** CreateApiKey succeeded: the key as stored (a retry answers the key created first). */
  record ApiKeyCreated(ApiKeyInfo key) implements Outcome {}

  /**
   * RevokeApiKey succeeded: the key after it; {@code changed} false when it was already revoked.
   */
  /**
   * AddNamespaceKey or DestroyNamespaceKeys was applied: the namespace's keys after it, and whether
   * it changed anything (false for a retry).
   */
  record NamespaceKeysChanged(NamespaceKeys keys, boolean changed) implements Outcome {}

  record ApiKeyRevoked(ApiKeyInfo key, boolean changed) implements Outcome {}
}
