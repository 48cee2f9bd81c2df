package dev.loam.api;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The public log API of a {@link LoamNode}: stream admin, append, fetch and offsets. Every method
 * is asynchronous and thread-safe; failures arrive only through the future as a {@link
 * dev.loam.error.LoamException} whose kind says what to do:
 *
 * <ul>
 *   <li>INVALID: bad arguments (names, partition out of range, offsets out of range: {@link
 *       OffsetOutOfRangeException});
 *   <li>NOT_FOUND: the namespace or stream does not exist;
 *   <li>CONFLICT: already exists, out-of-order producer sequence, {@link StaleCommitException};
 *   <li>FENCED: this node, the producer epoch or a consumer lease generation was replaced;
 *   <li>UNAVAILABLE: a transient failure, nothing was appended;
 *   <li>OUTCOME_UNKNOWN: {@link CommitUnknownException};
 *   <li>CORRUPTION: stored bytes failed their checksum (the message names the object).
 * </ul>
 *
 * <p>The futures of {@code LoamNode.log()} complete on the node's callback thread; a {@code join()}
 * or {@code get()} there (inside a callback), before the awaited future is done, fails at once with
 * {@link BlockingOnLoamThreadException}: compose instead (docs/reference/embedded-api.md).
 */
public interface Log {
  /** Creates a namespace. CONFLICT if it exists. */
  CompletableFuture<Void> createNamespace(String namespace);

  /** Namespace names, sorted. */
  CompletableFuture<List<String>> listNamespaces();

  /** Deletes an empty namespace. NOT_FOUND, or CONFLICT while it holds streams. */
  CompletableFuture<Void> deleteNamespace(String namespace);

  /** Creates a stream. NOT_FOUND for a missing namespace, CONFLICT if it exists. */
  CompletableFuture<StreamDescription> createStream(
      String namespace, String stream, StreamSpec spec);

  /**
   * Creates an arrow stream (docs/reference/arrow.md): appends take JSON object values that must
   * match {@code schemaJson} (Arrow's schema JSON), and are stored as Arrow IPC record batches.
   * INVALID naming the problem for a schema that is not valid or not supported, for a compacted or
   * compressed spec, or without the loam-arrow module on the class path; otherwise as {@link
   * #createStream}.
   */
  CompletableFuture<StreamDescription> createArrowStream(
      String namespace, String stream, StreamSpec spec, String schemaJson);

  /**
   * Adds a schema version to an arrow stream: {@code schemaJson} must keep every field of the
   * newest version, in order and unchanged, and add at least one nullable field at the end.
   * Completes with the new version number. INVALID naming the field and the reason for an
   * incompatible change or a stream without a schema; CONFLICT if another version was added
   * concurrently (read and retry); NOT_FOUND for a missing stream.
   */
  CompletableFuture<Integer> addStreamSchema(String namespace, String stream, String schemaJson);

  /**
   * The schema versions of a stream, version 1 first, as Arrow schema JSON; empty for a stream that
   * is not an arrow stream. NOT_FOUND for a missing stream.
   */
  CompletableFuture<List<String>> streamSchemas(String namespace, String stream);

  /** Describes a stream with its partitions' bounds. NOT_FOUND if missing. */
  CompletableFuture<StreamDescription> describeStream(String namespace, String stream);

  /** The streams of a namespace, sorted by name. */
  CompletableFuture<List<StreamDescription>> listStreams(String namespace);

  /**
   * Changes a stream's retention and cleanup policy: only the fields set in {@code update} change,
   * atomically, in the metastore; the retention task applies the new values from its next pass.
   * Completes with the stream as described after the change. Idempotent: the same update again
   * changes nothing. INVALID naming the field for a value that is neither -1 nor positive, or for
   * an update that sets no field; NOT_FOUND for a missing stream.
   */
  CompletableFuture<StreamDescription> updateStream(
      String namespace, String stream, StreamUpdate update);

  /**
   * Grows a stream to {@code partitions} partitions in total (Kafka's CreatePartitions). The new
   * partitions start empty at offset 0; the existing ones keep their records, offsets, producers
   * and named consumers. Keyed records may map to another partition afterwards, since the key hash
   * is taken modulo the new count. INVALID unless {@code partitions} is greater than the current
   * count and at most {@code StreamConfig.MAX_PARTITIONS} (10000), with the current count in the
   * message; a retry of an applied request therefore fails INVALID too. NOT_FOUND for a missing
   * stream.
   */
  CompletableFuture<StreamDescription> addPartitions(
      String namespace, String stream, int partitions);

  /** Deletes a stream. NOT_FOUND if missing. */
  CompletableFuture<Void> deleteStream(String namespace, String stream);

  /**
   * Appends records (buffered with every other append of this node until the next flush) and
   * completes once they are durable and committed, with each record's partition and offset. Records
   * to one partition keep their order. Atomic per partition, not across partitions.
   */
  CompletableFuture<AppendResult> append(
      String namespace, String stream, List<AppendRecord> records);

  /**
   * An idempotent append: all records must go to one partition; a retry with the same producer
   * identity returns the first append's offsets.
   */
  CompletableFuture<AppendResult> append(
      String namespace, String stream, List<AppendRecord> records, ProducerIdentity producer);

  /**
   * As {@link #append(String, String, List, ProducerIdentity)} ({@code producer} null for a plain
   * append), with an admission step: {@code admission} runs once the append passed every check this
   * node makes before buffering it (the stream exists, partitions are in range, an idempotent
   * append targets one partition, the size is within the limit) and before anything is buffered. If
   * it throws, the append fails with what it threw and nothing is appended; if a check fails first,
   * it is not run. For a quota that charges only the appends the node accepts.
   */
  CompletableFuture<AppendResult> append(
      String namespace,
      String stream,
      List<AppendRecord> records,
      ProducerIdentity producer,
      Runnable admission);

  /**
   * As {@link #append(String, String, List, ProducerIdentity)} ({@code producer} null for a plain
   * append), with each partition's batch compressed with {@code compression} instead of the
   * stream's default codec ({@link StreamSpec#compression()}). Encoded on the calling thread; the
   * size limit applies to the compressed bytes.
   */
  CompletableFuture<AppendResult> append(
      String namespace,
      String stream,
      List<AppendRecord> records,
      ProducerIdentity producer,
      Compression compression);

  /**
   * Reads records of one partition from {@code offset}, at most about {@code maxBytes} of batches
   * (at least one batch if any is available). If {@code offset} equals the high watermark, waits up
   * to {@code maxWait} for records (long-poll, no parked thread) and then completes, possibly
   * empty. {@code offset} below the log start or above the high watermark fails with {@link
   * OffsetOutOfRangeException}.
   */
  CompletableFuture<FetchResult> fetch(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait);

  /**
   * As {@link #fetch(String, String, int, long, int, Duration)}, after this node has applied {@code
   * consistencyToken} (from an {@link AppendResult}), so a reader sees its own writes on any node.
   * The wait for the token lasts {@code maxWait} but at least 10 s (or the node's maxFetchWait if
   * shorter); a token still not applied then fails UNAVAILABLE naming it.
   */
  CompletableFuture<FetchResult> fetch(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      OptionalLong consistencyToken);

  // ---------------------------------------------------------------- batches (§7.2)

  /**
   * Appends one client-built Kafka RecordBatch v2 to a partition, storing its bytes verbatim
   * whatever their compression (what the Kafka gateway does with a producer's batch). The batch is
   * validated first: exactly one batch, magic 2, CRC-32C, lengths, a records section that decodes
   * to exactly its record count at offset deltas {@code 0..count-1}, and neither transactional nor
   * control; a failure is an {@link InvalidBatchException} naming the field, and nothing is stored.
   * The producer id, epoch and base sequence come from the batch header (producer id -1: not
   * idempotent); an idempotent batch goes through the sequencer's dedupe like {@link
   * #append(String, String, List, ProducerIdentity)}: a retry completes with the first append's
   * base offset and {@code duplicate} set, {@link OutOfOrderSequenceException} and {@link
   * ProducerFencedException} refuse the others. Completes once durable and committed, with the base
   * offset the sequencer assigned (the stored batch keeps the client's base offset field; readers
   * are given the assigned one).
   */
  CompletableFuture<BatchAppendResult> appendBatch(
      String namespace, String stream, int partition, ByteBuffer batch);

  /**
   * Reads stored batches of one partition from the batch holding {@code offset}: whole batches,
   * base offsets patched, at most about {@code maxBytes} (at least one batch if any is available,
   * even a larger one, as Kafka's fetch does). Long-polls up to {@code maxWait} at the high
   * watermark; {@link OffsetOutOfRangeException} outside {@code [logStartOffset, highWatermark]}.
   * Batches appended through {@link #append} are RecordBatch v2 too, so every record is served.
   */
  CompletableFuture<BatchFetchResult> fetchBatches(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait);

  /**
   * Reads an arrow stream's stored batches (docs/formats/arrow-batch-v1.md) of one partition from
   * the batch holding {@code offset}: whole arrow batch frames back to back, each with its
   * base_offset patched to its first record's offset, at most about {@code maxBytes} (at least one
   * frame if any is available). Otherwise as {@link #fetchBatches}; INVALID for a stream that is
   * not an arrow stream.
   */
  CompletableFuture<BatchFetchResult> fetchArrowBatches(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait);

  /**
   * The node that takes produce requests of one partition first: for a quorum stream, its journal's
   * leader as this node knows it (a replica of the journal), else a live replica of the journal
   * (one in this node's zone first), which forwards appends to the leader; empty for the leaderless
   * classes, where every node appends, or while the partition has no journal. Reads this node's
   * view only and sends nothing.
   *
   * @throws dev.loam.error.LoamException NOT_FOUND for an unknown stream
   */
  java.util.Optional<String> partitionLeader(String namespace, String stream, int partition);

  /**
   * Reads an arrow stream's records as {@link #fetch} does, each record's value the JSON object of
   * only {@code columns} (user columns of the newest schema version, in the order given; null for a
   * column a record's version lacks). From a segment only the byte ranges of the projected columns,
   * the system columns and each frame's prefix are read from the store, each checked against its
   * CRC (docs/reference/arrow.md "Projected reads"); a batch still in the WAL is read whole.
   * INVALID for a stream that is not an arrow stream, an unknown or repeated column, or no column.
   */
  CompletableFuture<FetchResult> fetchColumns(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      List<String> columns);

  /**
   * Reads an arrow stream's stored frames in part, for a projected Arrow consumer (Flight DoGet):
   * as {@link #fetchArrowBatches}, but each frame is its prefix (header with base_offset set,
   * column table, IPC metadata; its frame_length still the whole frame's) followed by only the
   * bytes of the columns a read of {@code columns} needs (the system columns and those of {@code
   * columns} the frame's schema version has), in column order (docs/reference/arrow.md "Projected
   * reads"). From a segment only those byte ranges are read from the store. CRCs are not checked
   * here: the reader checks the header CRC and each column's. INVALID as {@link #fetchColumns}.
   */
  CompletableFuture<BatchFetchResult> fetchArrowColumns(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      List<String> columns);

  /** Finds the earliest, latest, or first offset at or after a timestamp of one partition. */
  CompletableFuture<Long> listOffset(
      String namespace, String stream, int partition, OffsetSpec spec);

  // ---------------------------------------------------------------- producers (§7)

  /**
   * Allocates a fresh producer id, never handed out before in this cluster (the metastore's counter
   * only grows), and answers the identity of its first append: epoch 0, sequence 0. Not idempotent:
   * a retry allocates another id, which is harmless. UNAVAILABLE or OUTCOME_UNKNOWN when the
   * metastore cannot answer.
   */
  CompletableFuture<ProducerIdentity> allocateProducerId();

  // ---------------------------------------------------------------- fenced appends (§8.1)

  /**
   * Takes or renews the writer lease of {@code source} on one partition (docs/design/changelog.md):
   * with no lease, or an expired one, {@code holder} gets a new epoch (the previous + 1, starting
   * at 1); a live lease of the same holder is renewed at the same epoch (a heartbeat, and what
   * makes a retry safe); a live lease of another holder is CONFLICT naming it and its expiry.
   * Expiry is by the metastore clock. The answer's {@link WriterLease#sourceUpto()} says where the
   * writer resumes; it survives every change of holder.
   *
   * <p>INVALID: a source that is not 1..249 of {@code [A-Za-z0-9._-]}, an empty or over-long
   * holder, a lease outside 1 ms..1 h. NOT_FOUND: no such namespace, stream or partition.
   */
  CompletableFuture<WriterLease> acquireWriterLease(
      String namespace, String stream, int partition, String source, String holder, Duration lease);

  /**
   * The writer lease of {@code source} on one partition as this node's metastore replica knows it;
   * empty if the source never took one. NOT_FOUND for an unknown stream.
   */
  CompletableFuture<Optional<WriterLease>> writerLease(
      String namespace, String stream, int partition, String source);

  /**
   * Appends {@code groups} to one partition exactly once per source position
   * (docs/design/changelog.md "The append"). Each group is stored as one batch and checked on its
   * own, in order: a group whose range ends at or below the source's {@code sourceUpto} is already
   * there and is skipped ({@link FencedAppendResult.Status#ALREADY_APPENDED}); one starting at
   * {@code sourceUpto + 1} is appended; so a retry, whole or overlapping, appends only what lies
   * beyond what is there, and a retry after {@link CommitUnknownException} never doubles.
   *
   * <p>FENCED: {@code leaseEpoch} is not the current epoch of a live lease (a stale writer; nothing
   * is appended). CONFLICT: a group starts beyond {@code sourceUpto + 1} (a gap), or starts inside
   * what is there and ends beyond it (cut differently than the append that is there); the message
   * says how many groups before it were answered. INVALID: a bad source or epoch, no group or more
   * than 10 000, groups that are not contiguous and increasing, a group without records, a
   * partition out of range, too many bytes. A successful append renews the lease.
   */
  CompletableFuture<FencedAppendResult> appendFenced(
      String namespace,
      String stream,
      int partition,
      String source,
      long leaseEpoch,
      List<SourceGroup> groups);

  /**
   * Creates stream {@code name} as the changelog of the compacted stream {@code sourceStream} of
   * the same namespace (stream-engine.txt §8.1, docs/design/changelog.md): one change record per
   * row-level change of the source ({@code +I}/{@code -U}/{@code +U}/{@code -D} in full mode,
   * {@code +U}/{@code -D} in upsert mode, the kind in header {@code loam.row_kind}), partitioned
   * like it and in its commit order per key, written exactly once by a worker on the source's
   * owner. The changelog has the source's partition count and durability class and the delete
   * policy. Idempotent: calling it again completes or confirms the link.
   *
   * <p>INVALID: a source that is not compacted, no mode. NOT_FOUND: no such namespace or source.
   * CONFLICT: a stream of that name exists with another shape.
   */
  CompletableFuture<StreamDescription> createChangelog(
      String namespace, String name, String sourceStream, ChangelogMode mode);

  // ---------------------------------------------------------------- named consumers (§7)

  /**
   * Takes or renews the lease of the named consumer on one partition. With no lease, or an expired
   * one, {@code holder} gets a new generation (the previous + 1, starting at 1); a live lease of
   * the same holder is renewed with the same generation (a heartbeat; also what makes a retry
   * safe); a live lease of another holder is CONFLICT naming it and its expiry. Expiry is by the
   * metastore clock. The committed offset survives every change of holder.
   *
   * <p>INVALID: a bad consumer name (Kafka's topic-name rules), an empty or over-long holder, a
   * lease outside 1 ms..1 h. NOT_FOUND: no such namespace, stream or partition.
   */
  CompletableFuture<ConsumerState> acquireConsumerLease(
      String namespace,
      String consumer,
      String stream,
      int partition,
      String holder,
      Duration lease);

  /**
   * Commits the next offset the named consumer reads on one partition, and renews its lease. FENCED
   * unless {@code generation} is the current generation of a live lease; {@link
   * OffsetOutOfRangeException} (INVALID) unless {@code offset} is within {@code [logStartOffset,
   * highWatermark]}; NOT_FOUND for an unknown stream or partition. Idempotent: committing the same
   * offset again only renews the lease.
   */
  CompletableFuture<ConsumerState> commitConsumerOffset(
      String namespace,
      String consumer,
      String stream,
      int partition,
      long generation,
      long offset);

  /**
   * The named consumer's state on one partition as this node's metastore replica knows it; empty if
   * it never took a lease there. NOT_FOUND for an unknown stream or partition.
   */
  CompletableFuture<Optional<ConsumerState>> consumerState(
      String namespace, String consumer, String stream, int partition);

  /**
   * The named consumer's committed offset on one partition: where it resumes, also after a node
   * restart. Empty before its first commit.
   */
  default CompletableFuture<OptionalLong> committedOffset(
      String namespace, String consumer, String stream, int partition) {
    return consumerState(namespace, consumer, stream, partition)
        .thenApply(s -> s.map(ConsumerState::committedOffset).orElse(OptionalLong.empty()));
  }

  /** The named consumer's state on every partition of a stream it took a lease on. */
  CompletableFuture<List<ConsumerState>> consumerStates(
      String namespace, String consumer, String stream);

  // ---------------------------------------------------------------- consumer groups (§7.2)

  /**
   * Makes this node the coordinator of a Kafka consumer group, if it may be
   * (docs/design/consumer-groups.md): creates the group's coordinator stream when absent and
   * acquires it as ownership routing says (placing it, opening it, reviving it after its owner
   * died). Fails with {@link NotOwnerException} naming the coordinator when another node owns the
   * group. INVALID for an empty or over-long group id (at most 249 characters).
   */
  CompletableFuture<GroupCoordination> acquireGroupCoordinator(String namespace, String group);

  /**
   * Records that the group completed a rebalance at {@code generation}, which must be above the
   * stored one ({@link GroupFencedException} otherwise). {@link NotOwnerException} when this node
   * no longer holds the coordination at its epoch.
   */
  CompletableFuture<Void> advanceGroupGeneration(GroupCoordination coordination, int generation);

  /**
   * Commits the group's offsets in one metastore proposal, all or nothing. {@code generation} is
   * the committing member's ({@link GroupFencedException} unless it is the stored generation), or
   * -1 for a group without members. {@link NotOwnerException} when this node no longer holds the
   * coordination at its epoch; NOT_FOUND for an unknown stream or partition; INVALID for a negative
   * offset or metadata over 4096 characters. Completes once this node's replica applied it, so a
   * read here sees it.
   */
  CompletableFuture<Void> commitGroupOffsets(
      GroupCoordination coordination, int generation, List<CommittedOffset> offsets);

  /**
   * Removes the group's committed offsets of the listed partitions (only stream and partition of
   * each are used), or with {@code wholeGroup} the group's whole record. Removing what is not there
   * succeeds.
   */
  CompletableFuture<Void> deleteGroupOffsets(
      GroupCoordination coordination, boolean wholeGroup, List<CommittedOffset> partitions);

  /** The group's stored record as this node's replica knows it; empty when it has none. */
  CompletableFuture<Optional<GroupDescription>> describeGroup(String namespace, String group);

  /** The stored records of every group of a namespace, by group id. */
  CompletableFuture<List<GroupDescription>> listGroups(String namespace);

  // ---------------------------------------------------------------- cluster (§3)

  /**
   * The live nodes of the cluster, sorted by id; only those in {@code zone} when it is present. A
   * node is live from its registration until it leaves or stops renewing for the liveness timeout
   * ({@link OwnershipSettings}). Each carries the endpoints its current process advertised ({@link
   * #advertiseEndpoint}).
   */
  CompletableFuture<List<NodeDescription>> listNodes(Optional<String> zone);

  // ---- ownership (ownership-and-routing.txt)

  /** The stream's owner as this node sees it (its view may lag the log by a moment). */
  CompletableFuture<StreamOwner> streamOwner(String namespace, String stream);

  /**
   * Moves a stream this node owns to {@code targetNodeId}, a live node: the transfer is pending
   * (requests route to the target) until the target opens the stream. Owner-bound: fails with
   * {@link NotOwnerException} on another node. Completes with the ownership once pending.
   */
  CompletableFuture<StreamOwner> transferStream(
      String namespace, String stream, String targetNodeId);

  /**
   * Changes a node's slots (its placement weight) at runtime; only future placements move. 0 takes
   * it out of placement.
   */
  CompletableFuture<NodeDescription> setNodeSlots(String nodeId, int slots);

  /**
   * Begins moving partition {@code partition} of a quorum stream to the journal {@code toJournal}
   * (docs/design/quorum.md "Moving a partition between journals"), an operator's call (cluster
   * admin over HTTP). Completes once the metastore marked the move; the source journal's leader
   * then seals the partition's tail and the assignment flips to the target, which {@link
   * #describeStream} shows as the partition's {@link StreamDescription.PartitionBounds#journal()
   * journal}. Appends sent while the partition moves are refused (UNAVAILABLE or NOT_OWNER, not
   * appended) and may be sent again; nothing acknowledged is lost or duplicated. Any node may begin
   * a move.
   *
   * <p>Fails, as a failed future: NOT_FOUND for an unknown namespace or stream, or when no journal
   * {@code toJournal} is placed; INVALID when the stream is not a quorum stream, the partition is
   * out of range, or {@code toJournal} is the partition's journal already; CONFLICT while a move of
   * the partition is under way (to any journal); UNAVAILABLE when the partition has no journal yet
   * or the metastore cannot be reached; OUTCOME_UNKNOWN when it did not answer (a retry then either
   * begins the move or answers CONFLICT naming it).
   */
  CompletableFuture<JournalMove> moveJournalPartition(
      String namespace, String stream, int partition, String toJournal);

  /**
   * Publishes one endpoint of this node in the cluster's node registry: where a listener of this
   * node (a Kafka gateway, a gRPC or OTLP port) is reached, so that every node can tell its clients
   * ({@link #listNodes}). Sets or replaces the endpoint {@code name}; an empty {@code address}
   * removes it. Idempotent: the same value again changes nothing. Completes with this node's
   * registry record once the change is applied.
   *
   * <p>Endpoints belong to this process: a restart registers the node at a new epoch without
   * endpoints, and its listeners advertise again when they start. {@code name} is {@code
   * [a-z][a-z0-9_-]{0,31}}, {@code address} at most 255 characters, and a node has at most 16
   * endpoints; anything else (null included) fails {@code INVALID}. Fails {@code FENCED} when this
   * process was superseded by a newer registration of its node or declared dead, {@code
   * UNAVAILABLE} or {@code OUTCOME_UNKNOWN} when the metastore cannot be reached or did not answer
   * (a retry is safe: the call is idempotent); all as a failed future, never thrown.
   */
  CompletableFuture<NodeDescription> advertiseEndpoint(String name, String address);

  // ---------------------------------------------------------------- API keys (docs/security.md)

  /**
   * Creates an API key: generates its id and secret, and stores only the SCRAM values that verify
   * the secret (never the secret). Completes once the key is applied on this replica, with the
   * secret: the one time it is shown. INVALID for a scope that is not a valid namespace name;
   * UNAVAILABLE or OUTCOME_UNKNOWN when the metastore cannot be reached (a retry creates another
   * key); FENCED when this process was superseded.
   */
  CompletableFuture<CreatedApiKey> createApiKey(ApiKeySpec spec);

  /** Every API key, revoked ones included, sorted by id; no secrets. */
  CompletableFuture<List<ApiKey>> listApiKeys();

  /**
   * Revokes an API key: once the revocation is applied on a node's replica, that node refuses the
   * key. Completes with the key as revoked. NOT_FOUND for an unknown id; revoking a revoked key is
   * an idempotent success.
   */
  CompletableFuture<ApiKey> revokeApiKey(String id);

  /**
   * Verifies a presented key ({@code <id>} and {@code <secret>} of a bearer token, or a Kafka SASL
   * user name and password) against the local replica. Completes with who it is, or fails {@link
   * AuthenticationException} for an unknown, revoked or wrong key (the message names the id, never
   * the secret). A successful verification is cached briefly, so that a request does not pay the
   * key derivation each time; the cache drops a key's entries when its revocation is applied here.
   */
  CompletableFuture<Principal> authenticate(String keyId, String secret);

  /**
   * The SCRAM credential of an active key for {@code mechanism} ({@link
   * ScramCredential#SCRAM_SHA_256} or {@link ScramCredential#SCRAM_SHA_512}); empty for an unknown
   * or revoked key. A read of the local replica; never blocks. An unknown mechanism is refused
   * INVALID, thrown.
   */
  Optional<ScramCredential> scramCredential(String keyId, String mechanism);

  /**
   * Whether the cluster holds at least one key that is not revoked, as the local replica sees it:
   * what the launchers' default authentication mode switches on. Never blocks.
   */
  boolean hasActiveApiKeys();

  /**
   * Who an active key is, by id alone, as the local replica sees it; empty for an unknown or
   * revoked key. For an entry point that has verified a key by other means (a SASL/SCRAM exchange,
   * which proves the secret without revealing it) and for re-checking, on each request of a
   * long-lived connection, that its key was not revoked since. Never blocks.
   */
  Optional<Principal> activePrincipal(String keyId);

  // ---------------------------------------------------------------- host conveniences

  /**
   * Creates a namespace unless it exists: completes with true when this call created it, false when
   * it existed already (created by an earlier run, another node or a concurrent call). Safe to
   * repeat, and so the way to retry a {@link #createNamespace} whose outcome is unknown. Fails as
   * {@link #createNamespace} does otherwise (INVALID for a bad name).
   */
  default CompletableFuture<Boolean> createNamespaceIfAbsent(String namespace) {
    return createNamespace(namespace)
        .handle(
            (v, t) -> {
              if (t == null) {
                return true;
              }
              if (LogDefaults.isConflict(t)) {
                return false;
              }
              throw LogDefaults.rethrow(t);
            });
  }

  /**
   * Creates a stream unless one of that name exists: completes with the stream, as created or as it
   * exists, whatever spec the existing one was created with (compare {@link
   * StreamDescription#spec()} when that matters). Safe to repeat. NOT_FOUND for a missing
   * namespace, INVALID for a bad name or spec.
   */
  default CompletableFuture<StreamDescription> createStreamIfAbsent(
      String namespace, String stream, StreamSpec spec) {
    return createStream(namespace, stream, spec)
        .handle(
            (d, t) -> {
              if (t == null) {
                return CompletableFuture.completedFuture(d);
              }
              if (LogDefaults.isConflict(t)) {
                return describeStream(namespace, stream);
              }
              throw LogDefaults.rethrow(t);
            })
        .thenCompose(f -> f);
  }

  /**
   * A producer whose appends are idempotent without the caller numbering them: it allocates a
   * producer id on its first append and keeps each partition's sequence ({@link
   * IdempotentProducer}). One producer per writer; it holds no thread and needs no closing.
   */
  default IdempotentProducer idempotentProducer() {
    return new IdempotentProducer(this);
  }

  /**
   * Claims CloudEvents idempotency keys (32 bytes each, at most 10 000) of a stream for this node,
   * pending for {@code pending} (at most 24 h), in one metastore proposal. Each key answers
   * CLAIMED, DUPLICATE (with the first write's partition and offset) or IN_FLIGHT. NOT_FOUND for an
   * unknown stream, INVALID for a bad key, count or duration.
   */
  CompletableFuture<EventLedger.Claims> claimEvents(
      String namespace, String stream, List<byte[]> keys, java.time.Duration pending);

  /**
   * Marks the keys of claim {@code claimId} done with their offsets, kept for {@code window} (at
   * most 24 h), in one proposal. Keys no longer pending under the claim (it lapsed) are left alone.
   */
  CompletableFuture<Void> completeEvents(
      String namespace,
      String stream,
      long claimId,
      java.time.Duration window,
      List<EventLedger.Completed> events);

  /** Releases the keys of claim {@code claimId} after an append that committed nothing. */
  CompletableFuture<Void> releaseEvents(
      String namespace, String stream, long claimId, List<byte[]> keys);

  // ---------------------------------------------------------------- namespace encryption

  /**
   * Gives a namespace a new envelope-encryption key (docs/security.md, "Data at rest"): its first,
   * after which its appends are sealed per WAL chunk from the next flush on (what it wrote before
   * stays as written), or a rotation, after which the new key seals new data and older keys keep
   * opening what they sealed. The node must have a key-management service ({@code
   * LoamNode.Builder.keyManagement}). INVALID without one, NOT_FOUND for an unknown namespace,
   * CONFLICT once the namespace's keys were destroyed, UNAVAILABLE naming the namespace when the
   * KMS does not answer in time.
   */
  CompletableFuture<NamespaceKeyInfo> addNamespaceKey(String namespace);

  /** A namespace's encryption keys; empty for a namespace that never had one (written plain). */
  CompletableFuture<Optional<NamespaceKeyInfo>> describeNamespaceKeys(String namespace);

  /**
   * Shreds a namespace: records its keys destroyed, after which every node refuses its appends and
   * every read of it fails with {@link dev.loam.error.KeyDestroyedException} naming it, then
   * destroys its master key in the KMS. Other namespaces, also those sharing WAL objects with it,
   * read back completely. Irreversible and idempotent. INVALID without a KMS or for a namespace
   * without a key, NOT_FOUND for an unknown namespace, UNAVAILABLE when the KMS did not destroy the
   * master key (the namespace is already refused everywhere; call again).
   */
  CompletableFuture<NamespaceKeyInfo> destroyNamespaceKeys(String namespace);

  /**
   * Creates a namespace and gives it its first key, so none of its data is ever written plain. Two
   * steps: if the key step fails the namespace exists unencrypted and holds nothing yet; call
   * {@link #addNamespaceKey} to finish. Fails as {@link #createNamespace}, then as {@link
   * #addNamespaceKey}.
   */
  default CompletableFuture<NamespaceKeyInfo> createEncryptedNamespace(String namespace) {
    return createNamespace(namespace).thenCompose(v -> addNamespaceKey(namespace));
  }
}
