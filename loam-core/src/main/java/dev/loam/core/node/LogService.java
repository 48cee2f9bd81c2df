package dev.loam.core.node;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.AppendResult.RecordPosition;
import dev.loam.api.ConsumerState;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.NodeDescription;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OffsetSpec;
import dev.loam.api.Partitioning;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamOwner;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.core.Rejections;
import dev.loam.core.ownership.OwnershipAgent;
import dev.loam.core.read.PartitionWatch;
import dev.loam.core.read.ReadPath;
import dev.loam.core.write.PendingBatch;
import dev.loam.core.write.WalWriter;
import dev.loam.core.write.WalWriter.BatchAck;
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
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * The {@link Log} implementation of one node: resolves names through the local metastore replica,
 * partitions and encodes appends for the class's {@link WalWriter}, and serves fetches through the
 * {@link ReadPath}, long-polling on the {@link PartitionWatch}.
 */
public final class LogService implements Log {
  private static final int MAX_ENTRIES_PER_FETCH = 256;

  /**
   * How long a fetch waits for this replica to apply its consistency token at least (capped by the
   * node's maxFetchWait), even with a shorter or zero maxWait: a replica one round trip behind must
   * not fail a read-your-writes fetch, while a token it never reaches (a bogus one) still ends.
   */
  static final long TOKEN_WAIT_FLOOR_MILLIS = 10_000;

  private final String nodeId;
  private final LongSupplier nodeEpoch;
  private final Metastore meta;
  private final InstantSource clock;
  private final ScheduledExecutorService scheduler;
  private final Map<DurabilityClass, WalWriter> writers;
  private final ReadPath readPath;
  private final PartitionWatch watch;
  private final int maxAppendBytes;
  private final Duration maxFetchWait;
  private final Map<Long, Sticky> sticky = new ConcurrentHashMap<>();
  private final OwnershipAgent ownership;

  private record Sticky(long generation, int partition) {}

  LogService(
      String nodeId,
      LongSupplier nodeEpoch,
      Metastore meta,
      InstantSource clock,
      ScheduledExecutorService scheduler,
      EnumMap<DurabilityClass, WalWriter> writers,
      ReadPath readPath,
      PartitionWatch watch,
      int maxAppendBytes,
      Duration maxFetchWait,
      OwnershipAgent ownership) {
    this.ownership = ownership;
    this.nodeId = nodeId;
    this.nodeEpoch = nodeEpoch;
    this.meta = meta;
    this.clock = clock;
    this.scheduler = scheduler;
    this.writers = writers;
    this.readPath = readPath;
    this.watch = watch;
    this.maxAppendBytes = maxAppendBytes;
    this.maxFetchWait = maxFetchWait;
  }

  private Origin origin() {
    return new Origin(nodeId, nodeEpoch.getAsLong(), clock.millis());
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
    if (spec.durabilityClass() == DurabilityClass.QUORUM) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "durability class quorum is not available yet stream=" + namespace + "/" + stream));
    }
    if (!writers.containsKey(spec.durabilityClass())) {
      return CompletableFuture.failedFuture(noWriter(spec.durabilityClass(), namespace, stream));
    }
    StreamConfig config =
        new StreamConfig(
            spec.partitions(),
            spec.durabilityClass(),
            spec.retentionMillis(),
            spec.retentionBytes(),
            spec.compacted()
                ? StreamConfig.CleanupPolicy.COMPACT
                : StreamConfig.CleanupPolicy.DELETE);
    return propose(
            new CreateStream(origin(), namespace, stream, config),
            "stream=" + namespace + "/" + stream)
        .thenApply(o -> describe(((Outcome.StreamCreated) o).stream()));
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

  private static NodeDescription describeNode(NodeInfo n) {
    return new NodeDescription(
        n.id(),
        n.epoch(),
        n.advertisedAddress() == null ? "" : n.advertisedAddress(),
        n.zone() == null ? "" : n.zone(),
        n.slots());
  }

  private StreamDescription describe(StreamInfo s) {
    StreamConfig c = s.config();
    List<StreamDescription.PartitionBounds> bounds =
        meta.read(
            r -> {
              List<StreamDescription.PartitionBounds> out = new ArrayList<>();
              for (int p = 0; p < c.partitions(); p++) {
                r.partition(s.id(), p)
                    .ifPresent(
                        pi ->
                            out.add(
                                new StreamDescription.PartitionBounds(
                                    pi.partition(), pi.logStartOffset(), pi.highWatermark())));
              }
              return out;
            });
    return new StreamDescription(
        s.id(),
        s.namespace(),
        s.name(),
        new StreamSpec(
            c.partitions(),
            c.durabilityClass(),
            c.retentionMillis(),
            c.retentionBytes(),
            c.cleanupPolicy() == StreamConfig.CleanupPolicy.COMPACT),
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
    return meta.read(r -> r.stream(namespace, stream))
        .orElseThrow(
            () ->
                new LoamException(
                    Kind.NOT_FOUND, "stream not found stream=" + namespace + "/" + stream));
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
    final List<PendingBatch> batches = new ArrayList<>();
    final int[] partitionOf;
    final int[] indexInPartition;
    final Map<Integer, Integer> batchOfPartition = new java.util.TreeMap<>();
    final DurabilityClass cls;
    try {
      if (records == null || records.isEmpty()) {
        throw new LoamException(
            Kind.INVALID, "append needs at least one record stream=" + namespace + "/" + stream);
      }
      StreamInfo s = resolve(namespace, stream);
      cls = s.config().durabilityClass();
      int partitions = s.config().partitions();
      partitionOf = new int[records.size()];
      indexInPartition = new int[records.size()];
      Map<Integer, List<RecordData>> byPartition = new java.util.TreeMap<>();
      long now = clock.millis();
      for (int i = 0; i < records.size(); i++) {
        AppendRecord r = records.get(i);
        int p = choosePartition(s, r, cls);
        if (p < 0 || p >= partitions) {
          throw new LoamException(
              Kind.INVALID,
              "partition out of range stream="
                  + namespace
                  + "/"
                  + stream
                  + " partition="
                  + p
                  + " partitions="
                  + partitions);
        }
        List<RecordData> list = byPartition.computeIfAbsent(p, k -> new ArrayList<>());
        partitionOf[i] = p;
        indexInPartition[i] = list.size();
        list.add(
            new RecordData(
                r.timestamp().orElse(now),
                r.key(),
                r.value(),
                r.headers().stream()
                    .map(h -> new dev.loam.wal.batch.Header(h.key(), h.value()))
                    .toList()));
      }
      if (producer != null && byPartition.size() != 1) {
        throw new LoamException(
            Kind.INVALID,
            "an idempotent append must target one partition stream="
                + namespace
                + "/"
                + stream
                + " partitions="
                + byPartition.keySet());
      }
      long total = 0;
      for (Map.Entry<Integer, List<RecordData>> e : byPartition.entrySet()) {
        List<RecordData> data = e.getValue();
        BatchSettings settings =
            producer == null
                ? BatchSettings.plain(Compression.NONE)
                : new BatchSettings(
                    0,
                    Compression.NONE,
                    TimestampType.CREATE_TIME,
                    producer.producerId(),
                    producer.producerEpoch(),
                    producer.baseSequence());
        byte[] bytes = RecordBatchEncoder.encode(settings, data);
        total += bytes.length;
        long maxTs = Long.MIN_VALUE;
        for (RecordData d : data) {
          maxTs = Math.max(maxTs, d.timestamp());
        }
        batchOfPartition.put(e.getKey(), batches.size());
        batches.add(
            new PendingBatch(
                s.id(),
                e.getKey(),
                bytes,
                data.size(),
                maxTs,
                settings.producerId(),
                settings.producerEpoch(),
                settings.baseSequence()));
      }
      if (total > maxAppendBytes) {
        throw new LoamException(
            Kind.INVALID,
            "append too large stream="
                + namespace
                + "/"
                + stream
                + " bytes="
                + total
                + " max="
                + maxAppendBytes);
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    String subject = "stream=" + namespace + "/" + stream;
    WalWriter writer = writers.get(cls);
    if (writer == null) {
      return CompletableFuture.failedFuture(noWriter(cls, namespace, stream));
    }
    return writer
        .submit(batches)
        .thenApply(
            acks -> {
              long token = 0;
              boolean allDuplicate = true;
              long[] base = new long[acks.size()];
              for (int b = 0; b < acks.size(); b++) {
                BatchAck a = acks.get(b);
                token = Math.max(token, a.appliedIndex());
                Outcome.BatchStatus st = a.result().status();
                int partition = batches.get(b).partition();
                LoamException refused =
                    Rejections.ofBatch(st, subject, partition, producerText(producer));
                if (refused != null) {
                  throw refused;
                }
                if (st == Outcome.BatchStatus.APPENDED) {
                  allDuplicate = false;
                }
                base[b] = a.result().baseOffset();
              }
              List<RecordPosition> positions = new ArrayList<>(partitionOf.length);
              for (int i = 0; i < partitionOf.length; i++) {
                int b = batchOfPartition.get(partitionOf[i]);
                positions.add(new RecordPosition(partitionOf[i], base[b] + indexInPartition[i]));
              }
              return new AppendResult(positions, token, allDuplicate);
            });
  }

  private static LoamException noWriter(DurabilityClass c, String namespace, String stream) {
    return new LoamException(
        Kind.INVALID,
        "this node has no "
            + c.wireName()
            + " store configured (LoamNode.Builder.expressStore) class="
            + c.wireName()
            + " stream="
            + namespace
            + "/"
            + stream);
  }

  private static String producerText(ProducerIdentity p) {
    return p == null
        ? ""
        : " producerId="
            + p.producerId()
            + " producerEpoch="
            + p.producerEpoch()
            + " baseSequence="
            + p.baseSequence();
  }

  private int choosePartition(StreamInfo s, AppendRecord r, DurabilityClass cls) {
    if (r.partition().isPresent()) {
      return r.partition().getAsInt();
    }
    int n = s.config().partitions();
    if (r.key() != null) {
      return Partitioning.partitionForKey(r.key(), n);
    }
    WalWriter w = writers.get(cls);
    long gen = w == null ? 0 : w.generation();
    Sticky st =
        sticky.compute(
            s.id(),
            (id, old) -> {
              if (old == null) {
                return new Sticky(gen, (int) (id % n));
              }
              return old.generation() == gen ? old : new Sticky(gen, (old.partition() + 1) % n);
            });
    return st.partition() % n;
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
    if (maxBytes <= 0 || maxWait == null || maxWait.isNegative()) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "fetch needs maxBytes > 0 and maxWait >= 0 maxBytes="
                  + maxBytes
                  + " maxWait="
                  + maxWait));
    }
    long wait = Math.min(maxWait.toMillis(), maxFetchWait.toMillis());
    long deadline = clock.millis() + wait;
    FetchRequest req = new FetchRequest(namespace, stream, partition, offset, maxBytes, deadline);
    if (consistencyToken.isPresent()) {
      long token = consistencyToken.getAsLong();
      CompletableFuture<Void> applied = meta.awaitApplied(token);
      if (!applied.isDone()) {
        // A token this replica never reaches (a bogus one, or a lagging replica) must not hold
        // the caller past its wait.
        CompletableFuture<Void> bounded = new CompletableFuture<>();
        applied.whenComplete(
            (v, e) -> {
              if (e == null) {
                bounded.complete(null);
              } else {
                bounded.completeExceptionally(e);
              }
            });
        var timer =
            scheduler.schedule(
                () ->
                    bounded.completeExceptionally(
                        new LoamException(
                            Kind.UNAVAILABLE,
                            "this node has not applied the consistency token within the wait"
                                + " token="
                                + token
                                + " appliedIndex="
                                + meta.appliedIndex())),
                Math.max(wait, Math.min(TOKEN_WAIT_FLOOR_MILLIS, maxFetchWait.toMillis())),
                java.util.concurrent.TimeUnit.MILLISECONDS);
        bounded.whenComplete((v, e) -> timer.cancel(false));
        applied = bounded;
      }
      return applied.thenComposeAsync(v -> fetchOnce(req), scheduler);
    }
    return fetchOnce(req);
  }

  private record FetchRequest(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      long deadline,
      boolean retried) {
    FetchRequest(
        String namespace, String stream, int partition, long offset, int maxBytes, long deadline) {
      this(namespace, stream, partition, offset, maxBytes, deadline, false);
    }

    FetchRequest retry() {
      return new FetchRequest(namespace, stream, partition, offset, maxBytes, deadline, true);
    }
  }

  private record View(StreamInfo stream, PartitionInfo bounds, List<IndexEntry> entries) {}

  private View view(FetchRequest q) {
    return meta.read(
        r -> {
          StreamInfo s =
              r.stream(q.namespace(), q.stream())
                  .orElseThrow(
                      () ->
                          new LoamException(
                              Kind.NOT_FOUND,
                              "stream not found stream=" + q.namespace() + "/" + q.stream()));
          if (q.partition() < 0 || q.partition() >= s.config().partitions()) {
            throw new LoamException(
                Kind.INVALID,
                "partition out of range stream="
                    + q.namespace()
                    + "/"
                    + q.stream()
                    + " partition="
                    + q.partition()
                    + " partitions="
                    + s.config().partitions());
          }
          PartitionInfo pi =
              r.partition(s.id(), q.partition())
                  .orElseThrow(
                      () ->
                          new LoamException(
                              Kind.NOT_FOUND,
                              "partition not found stream="
                                  + q.namespace()
                                  + "/"
                                  + q.stream()
                                  + " partition="
                                  + q.partition()));
          List<IndexEntry> entries =
              q.offset() < pi.highWatermark() && q.offset() >= pi.logStartOffset()
                  ? r.indexEntries(s.id(), q.partition(), q.offset(), MAX_ENTRIES_PER_FETCH)
                  : List.of();
          return new View(s, pi, entries);
        });
  }

  private CompletableFuture<FetchResult> fetchOnce(FetchRequest q) {
    View v;
    try {
      v = view(q);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    PartitionInfo b = v.bounds();
    if (q.offset() < b.logStartOffset() || q.offset() > b.highWatermark()) {
      return CompletableFuture.failedFuture(
          new OffsetOutOfRangeException(
              q.namespace(),
              q.stream(),
              q.partition(),
              q.offset(),
              b.logStartOffset(),
              b.highWatermark()));
    }
    if (q.offset() == b.highWatermark()) {
      long remaining = q.deadline() - clock.millis();
      if (remaining <= 0) {
        return CompletableFuture.completedFuture(
            new FetchResult(List.of(), q.offset(), b.highWatermark(), b.logStartOffset()));
      }
      CompletableFuture<Void> woken =
          watch.await(v.stream().id(), q.partition(), remaining * 1_000_000L);
      // A commit applied between the read above and the registration would not wake us.
      long hwNow =
          meta.read(r -> r.partition(v.stream().id(), q.partition()))
              .map(PartitionInfo::highWatermark)
              .orElse(b.highWatermark());
      if (hwNow > q.offset()) {
        watch.release(v.stream().id(), q.partition(), woken);
      }
      return woken.thenComposeAsync(x -> fetchOnce(q), scheduler);
    }
    List<FetchedRecord> out = new ArrayList<>();
    return loadEntries(v, q, 0, q.offset(), 0, out)
        .thenApply(next -> new FetchResult(out, next, b.highWatermark(), b.logStartOffset()))
        .exceptionallyCompose(
            t -> {
              // A fetch racing a segment swap or a retention trim, then GC: the entries it read
              // point at an object deleted meanwhile. Read once more from a fresh index view (the
              // grace period makes a second race practically impossible); if the same entry is
              // still there, the object is really lost and the error stands.
              if (!q.retried() && ReadPath.isObjectGone(t)) {
                return fetchOnce(q.retry());
              }
              return CompletableFuture.failedFuture(t);
            });
  }

  /**
   * Reads entries in order until {@code maxBytes} is reached (at least one entry, or one block of a
   * large segment entry); completes with the next offset to fetch.
   */
  private CompletableFuture<Long> loadEntries(
      View v, FetchRequest q, int i, long next, int bytesSoFar, List<FetchedRecord> out) {
    // Entries compaction emptied hold no record: keep reading until one is found.
    if (i >= v.entries().size() || (i > 0 && bytesSoFar >= q.maxBytes() && !out.isEmpty())) {
      return CompletableFuture.completedFuture(Math.max(next, q.offset()));
    }
    IndexEntry e = v.entries().get(i);
    return readPath
        .read(e, q.offset(), Math.max(1, q.maxBytes() - bytesSoFar))
        .thenCompose(
            s -> {
              int n = ReadPath.decode(s, q.partition(), q.offset(), out);
              if (s.endOffset() < e.endOffset()) {
                // maxBytes reached inside a large segment entry.
                return CompletableFuture.completedFuture(Math.max(s.endOffset(), q.offset()));
              }
              return loadEntries(v, q, i + 1, s.endOffset(), bytesSoFar + n, out);
            });
  }

  // ---------------------------------------------------------------- offsets

  @Override
  public CompletableFuture<Long> listOffset(
      String namespace, String stream, int partition, OffsetSpec spec) {
    View v;
    try {
      v = view(new FetchRequest(namespace, stream, partition, -1, 1, 0));
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    PartitionInfo b = v.bounds();
    if (spec instanceof OffsetSpec.Earliest) {
      return CompletableFuture.completedFuture(b.logStartOffset());
    }
    if (spec instanceof OffsetSpec.Latest) {
      return CompletableFuture.completedFuture(b.highWatermark());
    }
    long ts = ((OffsetSpec.ForTimestamp) spec).millis();
    Optional<IndexEntry> entry =
        meta.read(r -> r.entryForTimestamp(v.stream().id(), partition, ts));
    if (entry.isEmpty()) {
      return CompletableFuture.completedFuture(b.highWatermark());
    }
    IndexEntry e = entry.get();
    // A large segment entry: the segment's batch index names the first batch with a late enough
    // record, and only that batch's block is read; otherwise the entry is scanned.
    return readPath
        .seekTimestamp(e, ts)
        .thenCompose(
            from -> {
              if (from >= e.endOffset()) {
                return CompletableFuture.completedFuture(e.endOffset());
              }
              long start = Math.max(from, b.logStartOffset());
              return readPath
                  .read(e, start, 1)
                  .thenApply(
                      s -> {
                        List<FetchedRecord> recs = new ArrayList<>();
                        ReadPath.decode(s, partition, start, recs);
                        for (FetchedRecord r : recs) {
                          if (r.timestamp() >= ts) {
                            return r.offset();
                          }
                        }
                        return s.endOffset();
                      });
            });
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
}
