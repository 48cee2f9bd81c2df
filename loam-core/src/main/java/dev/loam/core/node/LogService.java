package dev.loam.core.node;

import dev.loam.api.ApiKey;
import dev.loam.api.ApiKeySpec;
import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.BatchAppendResult;
import dev.loam.api.BatchFetchResult;
import dev.loam.api.CommittedOffset;
import dev.loam.api.ConsumerState;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.GroupCoordination;
import dev.loam.api.GroupDescription;
import dev.loam.api.Log;
import dev.loam.api.NodeDescription;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OffsetSpec;
import dev.loam.api.Principal;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.ScramCredential;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamOwner;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.core.Streams;
import dev.loam.core.auth.ApiKeys;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.ownership.OwnershipAgent;
import dev.loam.core.quorum.QuorumStreams;
import dev.loam.core.read.Fetcher;
import dev.loam.core.read.PartitionWatch;
import dev.loam.core.read.ReadPath;
import dev.loam.core.write.Appender;
import dev.loam.core.write.WalWriter;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.wal.DurabilityClass;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The {@link Log} implementation of one node: a facade that keeps admin, ownership, producer-id,
 * named-consumer, consumer-group ({@link GroupService}) and cluster requests (each resolved through
 * the local metastore replica and proposed, owner-bound where the spec says so) and hands appends
 * to the write side ({@link Appender}) and fetches and offset lookups to the read side ({@link
 * Fetcher}).
 */
public final class LogService implements Log {
  private final String nodeId;
  private final NodeContext ctx;
  private final Metastore meta;
  private final InstantSource clock;
  private final ScheduledExecutorService scheduler;
  private final Map<DurabilityClass, WalWriter> writers;
  private final ReadPath readPath;
  private final PartitionWatch watch;
  private final Appender appender;
  private final QuorumStreams quorum;
  private final dev.loam.core.quorum.QuorumMoves quorumMoves;
  private final Duration maxFetchWait;
  private final FencedWriterService fencedWriters;
  private final ChangelogAdmin changelogs;
  private final Fetcher fetcher;
  private final OwnershipAgent ownership;
  private final ApiKeys apiKeys;
  private final GroupService groups;
  private final EventLedgerService events;
  private final NamespaceEncryption encryption;

  LogService(
      NodeContext ctx,
      EnumMap<DurabilityClass, WalWriter> writers,
      ReadPath readPath,
      PartitionWatch watch,
      int maxAppendBytes,
      Duration maxFetchWait,
      OwnershipAgent ownership,
      ApiKeys apiKeys,
      NamespaceEncryption encryption,
      dev.loam.spi.quorum.QuorumHost quorumHost) {
    this.encryption = encryption;
    this.ownership = ownership;
    this.apiKeys = apiKeys;
    this.ctx = ctx;
    this.nodeId = ctx.nodeId();
    this.meta = ctx.meta();
    this.clock = ctx.clock();
    this.scheduler = ctx.scheduler();
    this.writers = writers;
    this.readPath = readPath;
    this.watch = watch;
    this.appender = new Appender(ctx, writers, maxAppendBytes, encryption);
    this.fetcher = new Fetcher(ctx, readPath, watch, maxFetchWait);
    this.quorum = new QuorumStreams(ctx, quorumHost, fetcher);
    appender.quorum(quorum);
    this.quorumMoves = new dev.loam.core.quorum.QuorumMoves(ctx);
    this.fencedWriters = new FencedWriterService(ctx, writers, maxAppendBytes, encryption);
    this.changelogs = new ChangelogAdmin(ctx, this);
    this.maxFetchWait = maxFetchWait;
    this.groups = new GroupService(ctx, ownership);
    this.events = new EventLedgerService(ctx);
  }

  private Origin origin() {
    return ctx.origin();
  }

  // ---------------------------------------------------------------- admin

  @Override
  public CompletableFuture<Void> createNamespace(String namespace) {
    return propose(new CreateNamespace(origin(), namespace), "namespace=" + namespace)
        .thenApply(o -> null);
  }

  @Override
  public CompletableFuture<List<String>> listNamespaces() {
    return CompletableFuture.completedFuture(meta.read(MetaReader::namespaces));
  }

  @Override
  public CompletableFuture<Void> deleteNamespace(String namespace) {
    return propose(new DeleteNamespace(origin(), namespace), "namespace=" + namespace)
        .thenApply(o -> null);
  }

  @Override
  public CompletableFuture<StreamDescription> createStream(
      String namespace, String stream, StreamSpec spec) {
    DurabilityClass durability = DurabilityClass.fromWireName(spec.durabilityClass().wireName());
    if (durability == DurabilityClass.QUORUM) {
      return createQuorumStream(namespace, stream, spec);
    }
    if (spec.placementHint() != null) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "a placement hint applies to quorum streams only (any node accepts the appends of "
                  + spec.durabilityClass().wireName()
                  + " streams) stream="
                  + namespace
                  + "/"
                  + stream
                  + " hint="
                  + spec.placementHint()));
    }
    if (!writers.containsKey(durability)) {
      return CompletableFuture.failedFuture(Appender.noWriter(durability, namespace, stream));
    }
    StreamConfig config = config(spec, durability);
    return propose(
            new CreateStream(origin(), namespace, stream, config),
            "stream=" + namespace + "/" + stream)
        .thenApply(o -> describe(((Outcome.StreamCreated) o).stream()));
  }

  /**
   * A quorum stream: refused before anything is written when fewer than three live nodes have a
   * journal port; then created, and its partitions assigned to the journal (placed first if none
   * is). A failure between the create and the last assignment leaves the stream with partitions
   * that answer UNAVAILABLE (docs/design/quorum.md "Quorum streams").
   */
  private CompletableFuture<StreamDescription> createQuorumStream(
      String namespace, String stream, StreamSpec spec) {
    String subject = "stream=" + namespace + "/" + stream;
    try {
      if (spec.compacted()) {
        throw new LoamException(
            Kind.INVALID,
            "a quorum stream cannot be compacted yet (no segments of its own) " + subject);
      }
      if (encryption.keys(namespace).isPresent()) {
        throw new LoamException(
            Kind.INVALID, "quorum streams of an encrypted namespace are not supported " + subject);
      }
      if (spec.placementHint() != null
          && (spec.placementHint().isBlank() || spec.placementHint().length() > 128)) {
        throw new LoamException(
            Kind.INVALID,
            "a placement hint names a zone or a node in 1..128 characters "
                + subject
                + " hint="
                + spec.placementHint());
      }
      quorum.checkPlaceable(subject);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    StreamConfig config = config(spec, DurabilityClass.QUORUM);
    return propose(new CreateStream(origin(), namespace, stream, config), subject)
        .thenCompose(
            o -> {
              StreamInfo s = ((Outcome.StreamCreated) o).stream();
              return quorum
                  .place(s.id(), s.config().partitions(), spec.placementHint(), subject)
                  .thenApply(v -> describe(s));
            });
  }

  private static StreamConfig config(StreamSpec spec, DurabilityClass durability) {
    return new StreamConfig(
        spec.partitions(),
        durability,
        spec.retentionMillis(),
        spec.retentionBytes(),
        spec.compacted() ? StreamConfig.CleanupPolicy.COMPACT : StreamConfig.CleanupPolicy.DELETE,
        dev.loam.wal.batch.Compression.valueOf(spec.compression().name()));
  }

  @Override
  public CompletableFuture<StreamDescription> createArrowStream(
      String namespace, String stream, StreamSpec spec, String schemaJson) {
    String subject = "stream=" + namespace + "/" + stream;
    DurabilityClass durability = DurabilityClass.fromWireName(spec.durabilityClass().wireName());
    String canonical;
    try {
      if (durability == DurabilityClass.QUORUM) {
        throw new LoamException(
            Kind.INVALID, "an arrow stream cannot have durability class quorum " + subject);
      }
      if (!writers.containsKey(durability)) {
        throw Appender.noWriter(durability, namespace, stream);
      }
      if (spec.compacted()) {
        throw new LoamException(
            Kind.INVALID,
            "an arrow stream cannot be compacted (it keeps no record keys' history) " + subject);
      }
      if (spec.compression() != dev.loam.api.Compression.NONE) {
        throw new LoamException(
            Kind.INVALID,
            "an arrow stream stores uncompressed Arrow IPC batches; compression="
                + spec.compression().name().toLowerCase(java.util.Locale.ROOT)
                + " does not apply "
                + subject);
      }
      if (schemaJson == null) {
        throw new LoamException(Kind.INVALID, "an arrow stream needs a schema " + subject);
      }
      canonical = dev.loam.core.arrow.ArrowCodec.get().checkSchema(schemaJson);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return propose(
            new dev.loam.meta.command.CreateArrowStream(
                origin(), namespace, stream, config(spec, durability), canonical),
            subject)
        .thenApply(o -> describe(((Outcome.StreamCreated) o).stream()));
  }

  @Override
  public CompletableFuture<Integer> addStreamSchema(
      String namespace, String stream, String schemaJson) {
    String subject = "stream=" + namespace + "/" + stream;
    List<String> versions;
    String canonical;
    try {
      StreamInfo s = resolve(namespace, stream);
      versions = meta.read(r -> r.streamSchemas(s.id()));
      if (versions.isEmpty()) {
        throw new LoamException(
            Kind.INVALID, "stream has no arrow schema (it is not an arrow stream) " + subject);
      }
      if (schemaJson == null) {
        throw new LoamException(Kind.INVALID, "a schema is required " + subject);
      }
      canonical = dev.loam.core.arrow.ArrowCodec.get().checkEvolution(versions, schemaJson);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return propose(
            new dev.loam.meta.command.AddStreamSchema(
                origin(), namespace, stream, versions.size(), canonical),
            subject)
        .thenApply(o -> ((Outcome.SchemaAdded) o).version());
  }

  @Override
  public CompletableFuture<List<String>> streamSchemas(String namespace, String stream) {
    return async(
        () -> {
          StreamInfo s = resolve(namespace, stream);
          return meta.read(r -> r.streamSchemas(s.id()));
        });
  }

  @Override
  public CompletableFuture<StreamDescription> describeStream(String namespace, String stream) {
    return async(() -> describe(resolve(namespace, stream)));
  }

  @Override
  public CompletableFuture<List<StreamDescription>> listStreams(String namespace) {
    return async(
        () -> {
          List<StreamInfo> infos =
              meta.read(
                  r -> {
                    if (!r.namespaceExists(namespace)) {
                      throw new LoamException(
                          Kind.NOT_FOUND, "namespace not found namespace=" + namespace);
                    }
                    return r.streams(namespace);
                  });
          return infos.stream().map(this::describe).toList();
        });
  }

  @Override
  public CompletableFuture<StreamDescription> updateStream(
      String namespace, String stream, StreamUpdate update) {
    if (update == null || update.isEmpty()) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "an update sets at least one of retentionMillis, retentionBytes, compacted stream="
                  + namespace
                  + "/"
                  + stream));
    }
    StreamConfig.CleanupPolicy policy =
        update.compacted() == null
            ? null
            : update.compacted()
                ? StreamConfig.CleanupPolicy.COMPACT
                : StreamConfig.CleanupPolicy.DELETE;
    if (policy == StreamConfig.CleanupPolicy.COMPACT) {
      try {
        StreamInfo s = resolve(namespace, stream);
        if (!meta.read(r -> r.streamSchemas(s.id())).isEmpty()) {
          throw new LoamException(
              Kind.INVALID,
              "an arrow stream cannot be compacted (docs/reference/arrow.md) stream="
                  + namespace
                  + "/"
                  + stream);
        }
      } catch (LoamException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return proposeOwnerBound(
            namespace,
            stream,
            new UpdateStreamConfig(
                origin(),
                namespace,
                stream,
                update.retentionMillis(),
                update.retentionBytes(),
                policy))
        .thenApply(o -> describe(((Outcome.StreamConfigUpdated) o).stream()));
  }

  @Override
  public CompletableFuture<StreamDescription> addPartitions(
      String namespace, String stream, int partitions) {
    return proposeOwnerBound(
            namespace, stream, new AddPartitions(origin(), namespace, stream, partitions))
        .thenApply(o -> describe(((Outcome.PartitionsAdded) o).stream()));
  }

  @Override
  public CompletableFuture<Void> deleteStream(String namespace, String stream) {
    return proposeOwnerBound(namespace, stream, new DeleteStream(origin(), namespace, stream))
        .thenApply(o -> null);
  }

  /**
   * Proposes an owner-bound command about a stream from this node as its owner (placing or opening
   * it first as routing says); fails with {@link dev.loam.api.NotOwnerException} when another node
   * owns it, and with the command's own typed error when it is refused.
   */
  private CompletableFuture<Outcome> proposeOwnerBound(String namespace, String stream, Command c) {
    StreamInfo s;
    try {
      s = resolve(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return proposeOwnerBound(s, c, "stream=" + namespace + "/" + stream);
  }

  private CompletableFuture<Outcome> proposeOwnerBound(StreamInfo s, Command c, String subject) {
    return ownership
        .proposeOwnerBound(s, c)
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, subject);
              }
              return a.outcome();
            });
  }

  // ---------------------------------------------------------------- CloudEvents ledger

  @Override
  public CompletableFuture<dev.loam.api.EventLedger.Claims> claimEvents(
      String namespace, String stream, List<byte[]> keys, java.time.Duration pending) {
    StreamInfo s;
    try {
      s = resolve(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return events.claim(s.id(), "stream=" + namespace + "/" + stream, keys, pending);
  }

  @Override
  public CompletableFuture<Void> completeEvents(
      String namespace,
      String stream,
      long claimId,
      java.time.Duration window,
      List<dev.loam.api.EventLedger.Completed> completed) {
    StreamInfo s;
    try {
      s = resolve(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return events.complete(
        s.id(), "stream=" + namespace + "/" + stream, claimId, window, completed);
  }

  @Override
  public CompletableFuture<Void> releaseEvents(
      String namespace, String stream, long claimId, List<byte[]> keys) {
    StreamInfo s;
    try {
      s = resolve(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return events.release(s.id(), "stream=" + namespace + "/" + stream, claimId, keys);
  }

  // ---------------------------------------------------------------- ownership

  @Override
  public CompletableFuture<StreamOwner> streamOwner(String namespace, String stream) {
    return async(
        () -> {
          StreamInfo s = resolve(namespace, stream);
          return meta.read(
              r -> {
                StreamOwnership o = ownership.ownership(r, s.id());
                return new StreamOwner(
                    o.state().name().toLowerCase(java.util.Locale.ROOT),
                    o.owner() == null ? "" : o.owner(),
                    o.owner() == null ? "" : address(r, o.owner()),
                    o.streamEpoch(),
                    o.transferTarget() == null ? "" : o.transferTarget());
              });
        });
  }

  private static String address(MetaReader r, String node) {
    return r.node(node).map(NodeInfo::advertisedAddress).map(a -> a == null ? "" : a).orElse("");
  }

  @Override
  public CompletableFuture<StreamOwner> transferStream(
      String namespace, String stream, String targetNodeId) {
    StreamInfo s;
    try {
      s = resolve(namespace, stream);
      if (targetNodeId == null || targetNodeId.isEmpty()) {
        throw new LoamException(
            Kind.INVALID, "a transfer names its target node stream=" + namespace + "/" + stream);
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return ownership.transfer(s, targetNodeId).thenCompose(o -> streamOwner(namespace, stream));
  }

  @Override
  public CompletableFuture<NodeDescription> setNodeSlots(String node, int slots) {
    return ownership.setSlots(node, slots).thenApply(LogService::describeNode);
  }

  @Override
  public CompletableFuture<dev.loam.api.JournalMove> moveJournalPartition(
      String namespace, String stream, int partition, String toJournal) {
    StreamInfo s;
    try {
      s = resolve(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return quorumMoves.begin(s, namespace, stream, partition, toJournal);
  }

  @Override
  public CompletableFuture<NodeDescription> advertiseEndpoint(String name, String address) {
    if (name == null || address == null) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "an endpoint has a name and an address (empty removes it) node="
                  + nodeId
                  + " endpoint="
                  + name));
    }
    // The metastore's refusals name the node and the (shortened) endpoint; a fenced one names
    // only the node, so the endpoint is added, cut like the metastore cuts it.
    int max = SetNodeEndpoint.MAX_NAME_LENGTH + 16;
    String subject = "endpoint=" + (name.length() <= max ? name : name.substring(0, max) + "...");
    return propose(new SetNodeEndpoint(origin(), name, address), subject)
        .thenApply(o -> describeNode(((Outcome.NodeRegistered) o).node()));
  }

  // ---------------------------------------------------------------- API keys

  @Override
  public CompletableFuture<CreatedApiKey> createApiKey(ApiKeySpec spec) {
    return apiKeys.create(spec);
  }

  @Override
  public CompletableFuture<List<ApiKey>> listApiKeys() {
    return async(apiKeys::list);
  }

  @Override
  public CompletableFuture<ApiKey> revokeApiKey(String id) {
    return apiKeys.revoke(id);
  }

  @Override
  public CompletableFuture<Principal> authenticate(String keyId, String secret) {
    return apiKeys.authenticate(keyId, secret);
  }

  @Override
  public Optional<ScramCredential> scramCredential(String keyId, String mechanism) {
    return apiKeys.scramCredential(keyId, mechanism);
  }

  @Override
  public boolean hasActiveApiKeys() {
    return apiKeys.hasActiveKeys();
  }

  @Override
  public Optional<Principal> activePrincipal(String keyId) {
    return apiKeys.activePrincipal(keyId);
  }

  private static NodeDescription describeNode(NodeInfo n) {
    return new NodeDescription(
        n.id(),
        n.epoch(),
        n.advertisedAddress() == null ? "" : n.advertisedAddress(),
        n.zone() == null ? "" : n.zone(),
        n.slots(),
        n.endpoints());
  }

  private StreamDescription describe(StreamInfo s) {
    StreamConfig c = s.config();
    List<StreamDescription.PartitionBounds> bounds =
        meta.read(
            r -> {
              List<StreamDescription.PartitionBounds> out = new ArrayList<>();
              for (int p = 0; p < c.partitions(); p++) {
                int partition = p;
                r.partition(s.id(), p)
                    .ifPresent(
                        pi ->
                            out.add(
                                new StreamDescription.PartitionBounds(
                                    pi.partition(),
                                    pi.logStartOffset(),
                                    pi.highWatermark(),
                                    r.journalOf(s.id(), partition).orElse(""),
                                    r.journalMoveTarget(s.id(), partition).orElse(""))));
              }
              return out;
            });
    return new StreamDescription(
        s.id(),
        s.namespace(),
        s.name(),
        new StreamSpec(
            c.partitions(),
            Durability.fromWireName(c.durabilityClass().wireName()),
            c.retentionMillis(),
            c.retentionBytes(),
            c.cleanupPolicy() == StreamConfig.CleanupPolicy.COMPACT,
            dev.loam.api.Compression.valueOf(c.compression().name())),
        bounds);
  }

  private CompletableFuture<Outcome> propose(Command cmd, String subject) {
    return meta.propose(cmd)
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, subject);
              }
              return a.outcome();
            });
  }

  private StreamInfo resolve(String namespace, String stream) {
    return Streams.resolve(meta, namespace, stream);
  }

  // ---------------------------------------------------------------- append

  @Override
  public CompletableFuture<AppendResult> append(
      String namespace, String stream, List<AppendRecord> records) {
    return append(namespace, stream, records, null);
  }

  @Override
  public CompletableFuture<AppendResult> append(
      String namespace, String stream, List<AppendRecord> records, ProducerIdentity producer) {
    return appender.append(namespace, stream, records, producer, null);
  }

  @Override
  public CompletableFuture<AppendResult> append(
      String namespace,
      String stream,
      List<AppendRecord> records,
      ProducerIdentity producer,
      Runnable admission) {
    java.util.Objects.requireNonNull(admission, "admission");
    return appender.append(namespace, stream, records, producer, admission);
  }

  @Override
  public CompletableFuture<AppendResult> append(
      String namespace,
      String stream,
      List<AppendRecord> records,
      ProducerIdentity producer,
      dev.loam.api.Compression compression) {
    java.util.Objects.requireNonNull(compression, "compression");
    return appender.append(
        namespace,
        stream,
        records,
        producer,
        null,
        dev.loam.wal.batch.Compression.valueOf(compression.name()));
  }

  // ---------------------------------------------------------------- batches

  @Override
  public CompletableFuture<BatchAppendResult> appendBatch(
      String namespace, String stream, int partition, ByteBuffer batch) {
    return appender.appendBatch(namespace, stream, partition, batch);
  }

  @Override
  public CompletableFuture<BatchFetchResult> fetchBatches(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
    StreamInfo quorumStream;
    try {
      encryption.checkReadable(namespace);
      quorumStream = quorumStream(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (quorumStream != null) {
      return quorum.fetchBatches(
          namespace, stream, quorumStream, partition, offset, maxBytes, fetchWait(maxWait));
    }
    return fetcher.fetchBatches(namespace, stream, partition, offset, maxBytes, maxWait);
  }

  @Override
  public CompletableFuture<BatchFetchResult> fetchArrowBatches(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
    return fetcher.fetchArrowBatches(namespace, stream, partition, offset, maxBytes, maxWait);
  }

  @Override
  public CompletableFuture<FetchResult> fetchColumns(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      List<String> columns) {
    return fetcher.fetchColumns(namespace, stream, partition, offset, maxBytes, maxWait, columns);
  }

  @Override
  public CompletableFuture<BatchFetchResult> fetchArrowColumns(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      List<String> columns) {
    return fetcher.fetchArrowColumns(
        namespace, stream, partition, offset, maxBytes, maxWait, columns);
  }

  // ---------------------------------------------------------------- fetch

  @Override
  public CompletableFuture<FetchResult> fetch(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
    return fetch(namespace, stream, partition, offset, maxBytes, maxWait, OptionalLong.empty());
  }

  @Override
  public CompletableFuture<FetchResult> fetch(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      OptionalLong consistencyToken) {
    StreamInfo quorumStream;
    try {
      encryption.checkReadable(namespace);
      quorumStream = quorumStream(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (quorumStream != null) {
      // A quorum fetch reads the replica's applied state: the consistency token, a metastore
      // index, has nothing to wait for there.
      return quorum.fetch(
          namespace, stream, quorumStream, partition, offset, maxBytes, fetchWait(maxWait));
    }
    return fetcher.fetch(namespace, stream, partition, offset, maxBytes, maxWait, consistencyToken);
  }

  /** The stream if it is a quorum stream, else null; NOT_FOUND for an unknown stream. */
  private StreamInfo quorumStream(String namespace, String stream) {
    StreamInfo s = resolve(namespace, stream);
    return s.config().durabilityClass() == DurabilityClass.QUORUM ? s : null;
  }

  /** A long poll's wait, bounded by the node's maximum like the leaderless fetches'. */
  private Duration fetchWait(Duration maxWait) {
    if (maxWait == null || maxWait.isNegative()) {
      return Duration.ZERO;
    }
    return maxWait.compareTo(maxFetchWait) > 0 ? maxFetchWait : maxWait;
  }

  @Override
  public CompletableFuture<Long> listOffset(
      String namespace, String stream, int partition, OffsetSpec spec) {
    StreamInfo quorumStream;
    try {
      quorumStream = quorumStream(namespace, stream);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (quorumStream != null) {
      return quorum.listOffset(namespace, stream, quorumStream, partition, spec);
    }
    return fetcher.listOffset(namespace, stream, partition, spec);
  }

  @Override
  public Optional<String> partitionLeader(String namespace, String stream, int partition) {
    StreamInfo s = quorumStream(namespace, stream);
    return s == null ? Optional.empty() : quorum.leader(s.id(), partition);
  }

  // ---------------------------------------------------------------- producers (§7)

  @Override
  public CompletableFuture<ProducerIdentity> allocateProducerId() {
    return propose(new AllocateProducerIds(origin(), 1), "producerIds=1")
        .thenApply(
            o ->
                new ProducerIdentity(
                    ((Outcome.ProducerIdsAllocated) o).firstProducerId(), (short) 0, 0));
  }

  // ---------------------------------------------------------------- fenced appends (§8.1)

  @Override
  public CompletableFuture<dev.loam.api.WriterLease> acquireWriterLease(
      String namespace,
      String stream,
      int partition,
      String source,
      String holder,
      Duration lease) {
    return fencedWriters.acquire(namespace, stream, partition, source, holder, lease);
  }

  @Override
  public CompletableFuture<Optional<dev.loam.api.WriterLease>> writerLease(
      String namespace, String stream, int partition, String source) {
    return fencedWriters.lease(namespace, stream, partition, source);
  }

  @Override
  public CompletableFuture<dev.loam.api.FencedAppendResult> appendFenced(
      String namespace,
      String stream,
      int partition,
      String source,
      long leaseEpoch,
      List<dev.loam.api.SourceGroup> groups) {
    return fencedWriters.append(namespace, stream, partition, source, leaseEpoch, groups);
  }

  @Override
  public CompletableFuture<StreamDescription> createChangelog(
      String namespace, String name, String sourceStream, dev.loam.api.ChangelogMode mode) {
    return changelogs.create(namespace, name, sourceStream, mode);
  }

  // ---------------------------------------------------------------- named consumers (§7)

  @Override
  public CompletableFuture<ConsumerState> acquireConsumerLease(
      String namespace,
      String consumer,
      String stream,
      int partition,
      String holder,
      Duration lease) {
    StreamInfo s;
    try {
      s = resolvePartition(namespace, stream, partition);
      if (holder == null || lease == null) {
        throw new LoamException(
            Kind.INVALID, "holder and lease are required" + consumerText(s, partition, consumer));
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    long leaseMillis;
    try {
      leaseMillis = lease.toMillis();
    } catch (ArithmeticException e) {
      leaseMillis = Long.MAX_VALUE; // refused by the state machine as too long
    }
    return proposeOwnerBound(
            s,
            new AcquireConsumerLease(origin(), s.id(), partition, consumer, holder, leaseMillis),
            consumerText(s, partition, consumer))
        .thenApply(o -> consumerState(s, ((Outcome.ConsumerLeaseGranted) o).lease()));
  }

  @Override
  public CompletableFuture<ConsumerState> commitConsumerOffset(
      String namespace,
      String consumer,
      String stream,
      int partition,
      long generation,
      long offset) {
    StreamInfo s;
    try {
      s = resolvePartition(namespace, stream, partition);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    Command cmd =
        new CommitConsumerOffset(origin(), s.id(), partition, consumer, generation, offset);
    return ownership
        .proposeOwnerBound(s, cmd)
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                if (r.reason() == Outcome.RejectReason.OUT_OF_RANGE) {
                  // The same typed error as a fetch outside the range, with the bounds at this
                  // apply (the rejected command changed nothing, so they are current).
                  PartitionInfo b =
                      meta.read(x -> x.partition(s.id(), partition))
                          .orElse(new PartitionInfo(s.id(), partition, 0, 0));
                  throw new OffsetOutOfRangeException(
                      namespace, stream, partition, offset, b.logStartOffset(), b.highWatermark());
                }
                throw Rejections.of(r, consumerText(s, partition, consumer));
              }
              return consumerState(s, ((Outcome.ConsumerOffsetCommitted) a.outcome()).lease());
            });
  }

  @Override
  public CompletableFuture<Optional<ConsumerState>> consumerState(
      String namespace, String consumer, String stream, int partition) {
    return async(
        () -> {
          StreamInfo s = resolvePartition(namespace, stream, partition);
          return meta.read(r -> r.consumerLease(s.id(), partition, consumer))
              .map(l -> consumerState(s, l));
        });
  }

  @Override
  public CompletableFuture<List<ConsumerState>> consumerStates(
      String namespace, String consumer, String stream) {
    return async(
        () -> {
          StreamInfo s = resolve(namespace, stream);
          return meta.read(r -> r.consumerLeases(s.id(), consumer)).stream()
              .map(l -> consumerState(s, l))
              .toList();
        });
  }

  private StreamInfo resolvePartition(String namespace, String stream, int partition) {
    StreamInfo s = resolve(namespace, stream);
    if (partition < 0 || partition >= s.config().partitions()) {
      throw new LoamException(
          Kind.NOT_FOUND,
          "partition not found stream="
              + namespace
              + "/"
              + stream
              + " partition="
              + partition
              + " partitions="
              + s.config().partitions());
    }
    return s;
  }

  private static String consumerText(StreamInfo s, int partition, String consumer) {
    return " stream="
        + s.namespace()
        + "/"
        + s.name()
        + " partition="
        + partition
        + " consumer="
        + consumer;
  }

  private static ConsumerState consumerState(StreamInfo s, ConsumerLease l) {
    return new ConsumerState(
        s.namespace(),
        s.name(),
        l.partition(),
        l.consumer(),
        l.generation(),
        l.holder(),
        l.expiresAtMillis(),
        l.committedOffset() == ConsumerLease.NO_OFFSET
            ? OptionalLong.empty()
            : OptionalLong.of(l.committedOffset()));
  }

  // ---------------------------------------------------------------- consumer groups (§7.2)

  @Override
  public CompletableFuture<GroupCoordination> acquireGroupCoordinator(
      String namespace, String group) {
    return groups.acquire(namespace, group);
  }

  @Override
  public CompletableFuture<Void> advanceGroupGeneration(
      GroupCoordination coordination, int generation) {
    return groups.advanceGeneration(coordination, generation);
  }

  @Override
  public CompletableFuture<Void> commitGroupOffsets(
      GroupCoordination coordination, int generation, List<CommittedOffset> offsets) {
    return groups.commit(coordination, generation, offsets);
  }

  @Override
  public CompletableFuture<Void> deleteGroupOffsets(
      GroupCoordination coordination, boolean wholeGroup, List<CommittedOffset> partitions) {
    return groups.delete(coordination, wholeGroup, partitions);
  }

  @Override
  public CompletableFuture<Optional<GroupDescription>> describeGroup(
      String namespace, String group) {
    return async(() -> groups.describe(namespace, group));
  }

  @Override
  public CompletableFuture<List<GroupDescription>> listGroups(String namespace) {
    return async(() -> groups.list(namespace));
  }

  // ---------------------------------------------------------------- cluster (§3)

  @Override
  public CompletableFuture<List<NodeDescription>> listNodes(Optional<String> zone) {
    return async(
        () ->
            meta.read(
                r ->
                    r.nodes().stream()
                        .filter(n -> r.nodeStatus(n.id()).map(NodeStatus::live).orElse(false))
                        .filter(n -> zone.isEmpty() || zone.get().equals(n.zone()))
                        .map(LogService::describeNode)
                        .toList()));
  }

  private <T> CompletableFuture<T> async(java.util.function.Supplier<T> s) {
    try {
      return CompletableFuture.completedFuture(s.get());
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  // ---------------------------------------------------------------- namespace encryption

  @Override
  public CompletableFuture<dev.loam.api.NamespaceKeyInfo> addNamespaceKey(String namespace) {
    return encryption.addKey(namespace);
  }

  @Override
  public CompletableFuture<Optional<dev.loam.api.NamespaceKeyInfo>> describeNamespaceKeys(
      String namespace) {
    return async(
        () -> {
          if (!meta.read(r -> r.namespaceExists(namespace))) {
            throw new LoamException(Kind.NOT_FOUND, "namespace not found namespace=" + namespace);
          }
          return encryption.describe(namespace);
        });
  }

  @Override
  public CompletableFuture<dev.loam.api.NamespaceKeyInfo> destroyNamespaceKeys(String namespace) {
    return encryption.destroy(namespace);
  }
}
