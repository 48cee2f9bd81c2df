package dev.loam.meta.codec;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.GroupOffset;
import dev.loam.meta.command.GroupPartition;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.Compression;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes and decodes metastore {@link Command}s: the payload of every replicated-log entry
 * (docs/formats/metastore-commands.md). Version 1: one version byte, one tag byte per command type,
 * the origin, then the command's fields, big-endian. Stateless and thread-safe.
 */
public final class CommandCodec {
  /** The format version written by this code; decode accepts exactly this version. */
  public static final int VERSION = 1;

  static final int TAG_REGISTER_NODE = 1;
  static final int TAG_CREATE_NAMESPACE = 2;
  static final int TAG_DELETE_NAMESPACE = 3;
  static final int TAG_CREATE_STREAM = 4;
  static final int TAG_DELETE_STREAM = 5;
  static final int TAG_COMMIT_WAL = 6;
  static final int TAG_SWAP_SEGMENT = 7;
  static final int TAG_TRIM_PARTITION = 8;
  static final int TAG_DELETE_OBJECTS = 9;
  static final int TAG_ALLOCATE_PRODUCER_IDS = 10;
  static final int TAG_ACQUIRE_CONSUMER_LEASE = 11;
  static final int TAG_COMMIT_CONSUMER_OFFSET = 12;
  static final int TAG_UPDATE_STREAM_CONFIG = 13;
  static final int TAG_ADD_PARTITIONS = 14;
  static final int TAG_RENEW_NODE = 15;
  static final int TAG_EXPIRE_NODE = 16;
  static final int TAG_DEREGISTER_NODE = 17;
  static final int TAG_SET_NODE_SLOTS = 18;
  static final int TAG_PLACE_STREAM = 19;
  static final int TAG_OPEN_STREAM = 20;
  static final int TAG_CLOSE_STREAM = 21;
  static final int TAG_TRANSFER_STREAM = 22;
  static final int TAG_OWNER_FENCED = 23;
  static final int TAG_INIT_CLUSTER = 24;
  static final int TAG_SET_NODE_ENDPOINT = 25;
  static final int TAG_CREATE_API_KEY = 26;
  static final int TAG_REVOKE_API_KEY = 27;
  static final int TAG_ADVANCE_GROUP_GENERATION = 28;
  static final int TAG_COMMIT_GROUP_OFFSETS = 29;
  static final int TAG_DELETE_GROUP_OFFSETS = 30;
  static final int TAG_COMMIT_WAL_GROUP = 35;

  /** UpdateStreamConfig's field-presence bits; the other five bits are reserved, written 0. */
  static final int UPDATE_RETENTION_MILLIS = 1;

  static final int UPDATE_RETENTION_BYTES = 2;
  static final int UPDATE_CLEANUP_POLICY = 4;
  static final int UPDATE_KNOWN_BITS =
      UPDATE_RETENTION_MILLIS | UPDATE_RETENTION_BYTES | UPDATE_CLEANUP_POLICY;

  private static final String FORMAT = "metastore command v" + VERSION;

  /** Smallest encoded ChunkCommit: stream id, partition, batch count. */
  private static final int MIN_CHUNK_BYTES = 8 + 4 + 4;

  /** Smallest encoded CommitWal body: an empty key, time, size, chunk count. */
  private static final int MIN_COMMIT_WAL_BODY_BYTES = 4 + 8 + 8 + 4;

  /** Encoded BatchCommit size: fixed. */
  private static final int BATCH_BYTES = 8 + 4 + 4 + 8 + 8 + 2 + 4;

  /** Smallest encoded IndexEntry: an empty object key. */
  private static final int MIN_INDEX_ENTRY_BYTES = 8 + 4 + 4 + 8 + 4 + 8;

  /** Encoded SegmentEntry size: fixed. */
  private static final int SEGMENT_ENTRY_BYTES = 4 + 8 + 4 + 8;

  private CommandCodec() {}

  /**
   * Encodes a command. A command holding a null where a value is required is an {@code INVALID}
   * {@link LoamException}.
   */
  public static byte[] encode(Command command) {
    BinaryWriter w = new BinaryWriter();
    try {
      write(w, command);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "cannot encode command type=" + command.getClass().getSimpleName(),
          e);
    }
    return w.toByteArray();
  }

  private static void write(BinaryWriter w, Command command) {
    w.u8(VERSION);
    if (command instanceof RegisterNode c) {
      w.u8(TAG_REGISTER_NODE);
      writeOrigin(w, c.origin());
      w.nullableString(c.advertisedAddress()).i32(c.slots()).nullableString(c.zone());
    } else if (command instanceof CreateNamespace c) {
      w.u8(TAG_CREATE_NAMESPACE);
      writeOrigin(w, c.origin());
      w.string(c.name());
    } else if (command instanceof DeleteNamespace c) {
      w.u8(TAG_DELETE_NAMESPACE);
      writeOrigin(w, c.origin());
      w.string(c.name());
    } else if (command instanceof CreateStream c) {
      w.u8(TAG_CREATE_STREAM);
      writeOrigin(w, c.origin());
      w.string(c.namespace()).string(c.name());
      writeConfig(w, c.config());
    } else if (command instanceof DeleteStream c) {
      w.u8(TAG_DELETE_STREAM);
      writeOrigin(w, c.origin());
      w.string(c.namespace()).string(c.name());
    } else if (command instanceof CommitWal c) {
      // Without a fenced batch, tag 6 exactly as before fenced appends existed.
      boolean fenced = c.fenced();
      w.u8(fenced ? WriterLeaseCodec.TAG_COMMIT_WAL_FENCED : TAG_COMMIT_WAL);
      writeOrigin(w, c.origin());
      writeCommitWalBody(w, c, fenced);
    } else if (command instanceof CommitWalGroup c) {
      boolean fenced = c.members().stream().anyMatch(CommitWal::fenced);
      w.u8(fenced ? WriterLeaseCodec.TAG_COMMIT_WAL_GROUP_FENCED : TAG_COMMIT_WAL_GROUP);
      writeOrigin(w, c.origin());
      w.i32(c.members().size());
      for (CommitWal m : c.members()) {
        writeCommitWalBody(w, m, fenced);
      }
    } else if (command instanceof SwapSegment c) {
      w.u8(TAG_SWAP_SEGMENT);
      writeOrigin(w, c.origin());
      w.i64(c.streamId()).i32(c.partition()).i64(c.fromOffset()).i64(c.toOffset());
      w.i32(c.expected().size());
      for (IndexEntry e : c.expected()) {
        writeIndexEntry(w, e);
      }
      w.string(c.segmentKey()).i64(c.segmentTimeMillis()).i64(c.segmentSize());
      w.i32(c.entries().size());
      for (SwapSegment.SegmentEntry e : c.entries()) {
        w.i32(e.recordCount()).i64(e.byteOffset()).i32(e.byteLength()).i64(e.maxTimestamp());
      }
    } else if (command instanceof TrimPartition c) {
      w.u8(TAG_TRIM_PARTITION);
      writeOrigin(w, c.origin());
      w.i64(c.streamId()).i32(c.partition()).i64(c.newLogStartOffset()).u8(c.reason().code());
    } else if (command instanceof DeleteObjects c) {
      w.u8(TAG_DELETE_OBJECTS);
      writeOrigin(w, c.origin());
      w.i32(c.objectKeys().size());
      for (String k : c.objectKeys()) {
        w.string(k);
      }
    } else if (command instanceof AllocateProducerIds c) {
      w.u8(TAG_ALLOCATE_PRODUCER_IDS);
      writeOrigin(w, c.origin());
      w.i32(c.count());
    } else if (command instanceof AcquireConsumerLease c) {
      w.u8(TAG_ACQUIRE_CONSUMER_LEASE);
      writeOrigin(w, c.origin());
      w.i64(c.streamId()).i32(c.partition()).string(c.consumer()).string(c.holder());
      w.i64(c.leaseMillis());
    } else if (command instanceof CommitConsumerOffset c) {
      w.u8(TAG_COMMIT_CONSUMER_OFFSET);
      writeOrigin(w, c.origin());
      w.i64(c.streamId()).i32(c.partition()).string(c.consumer());
      w.i64(c.generation()).i64(c.offset());
    } else if (command instanceof UpdateStreamConfig c) {
      w.u8(TAG_UPDATE_STREAM_CONFIG);
      writeOrigin(w, c.origin());
      w.string(c.namespace()).string(c.name());
      // Only the fields present are written, after a presence byte: an absent field keeps the
      // stream's value, and no sentinel value is reserved (-1 already means unlimited).
      int present =
          (c.retentionMillis() != null ? UPDATE_RETENTION_MILLIS : 0)
              | (c.retentionBytes() != null ? UPDATE_RETENTION_BYTES : 0)
              | (c.cleanupPolicy() != null ? UPDATE_CLEANUP_POLICY : 0);
      w.u8(present);
      if (c.retentionMillis() != null) {
        w.i64(c.retentionMillis());
      }
      if (c.retentionBytes() != null) {
        w.i64(c.retentionBytes());
      }
      if (c.cleanupPolicy() != null) {
        w.u8(c.cleanupPolicy().code());
      }
    } else if (command instanceof AddPartitions c) {
      w.u8(TAG_ADD_PARTITIONS);
      writeOrigin(w, c.origin());
      w.string(c.namespace()).string(c.name()).i32(c.partitions());
    } else if (command instanceof RenewNode c) {
      w.u8(TAG_RENEW_NODE);
      writeOrigin(w, c.origin());
    } else if (command instanceof ExpireNode c) {
      w.u8(TAG_EXPIRE_NODE);
      writeOrigin(w, c.origin());
      w.string(c.nodeId()).i64(c.nodeEpoch()).i64(c.timeoutMillis());
    } else if (command instanceof DeregisterNode c) {
      w.u8(TAG_DEREGISTER_NODE);
      writeOrigin(w, c.origin());
    } else if (command instanceof SetNodeSlots c) {
      w.u8(TAG_SET_NODE_SLOTS);
      writeOrigin(w, c.origin());
      w.string(c.nodeId()).i32(c.slots());
    } else if (command instanceof PlaceStream c) {
      w.u8(TAG_PLACE_STREAM);
      writeOrigin(w, c.origin());
      w.i64(c.streamId());
    } else if (command instanceof OpenStream c) {
      w.u8(TAG_OPEN_STREAM);
      writeOrigin(w, c.origin());
      w.i64(c.streamId());
    } else if (command instanceof CloseStream c) {
      w.u8(TAG_CLOSE_STREAM);
      writeOrigin(w, c.origin());
      w.i64(c.streamId()).i64(c.streamEpoch());
    } else if (command instanceof TransferStream c) {
      w.u8(TAG_TRANSFER_STREAM);
      writeOrigin(w, c.origin());
      w.i64(c.streamId()).i64(c.streamEpoch()).string(c.targetNodeId());
    } else if (command instanceof OwnerFenced c) {
      // The wrapped command as a whole encoded command (its own version byte and origin), so the
      // wrapper never duplicates a command's layout.
      w.u8(TAG_OWNER_FENCED);
      w.i64(c.streamId()).i64(c.streamEpoch());
      BinaryWriter inner = new BinaryWriter();
      write(inner, c.inner());
      w.bytes(inner.toByteArray());
    } else if (command instanceof InitCluster c) {
      w.u8(TAG_INIT_CLUSTER);
      writeOrigin(w, c.origin());
      w.string(c.clusterId());
    } else if (command instanceof SetNodeEndpoint c) {
      w.u8(TAG_SET_NODE_ENDPOINT);
      writeOrigin(w, c.origin());
      w.string(c.name()).string(c.address());
    } else if (command instanceof CreateApiKey c) {
      w.u8(TAG_CREATE_API_KEY);
      writeOrigin(w, c.origin());
      w.string(c.id()).nullableString(c.scope());
      ApiKeyCodec.writeRoles(w, c.roles());
      ApiKeyCodec.writeSecrets(w, c.secrets());
    } else if (command instanceof RevokeApiKey c) {
      w.u8(TAG_REVOKE_API_KEY);
      writeOrigin(w, c.origin());
      w.string(c.id());
    } else if (command instanceof AdvanceGroupGeneration c) {
      w.u8(TAG_ADVANCE_GROUP_GENERATION);
      writeOrigin(w, c.origin());
      w.i64(c.coordinatorStreamId()).string(c.namespace()).string(c.group()).i32(c.generation());
    } else if (command instanceof CommitGroupOffsets c) {
      w.u8(TAG_COMMIT_GROUP_OFFSETS);
      writeOrigin(w, c.origin());
      w.i64(c.coordinatorStreamId()).string(c.namespace()).string(c.group()).i32(c.generation());
      w.i32(c.offsets().size());
      for (GroupOffset o : c.offsets()) {
        writeGroupOffset(w, o);
      }
    } else if (command instanceof DeleteGroupOffsets c) {
      w.u8(TAG_DELETE_GROUP_OFFSETS);
      writeOrigin(w, c.origin());
      w.i64(c.coordinatorStreamId()).string(c.namespace()).string(c.group());
      w.bool(c.wholeGroup()).i32(c.partitions().size());
      for (GroupPartition gp : c.partitions()) {
        w.i64(gp.streamId()).i32(gp.partition());
      }
    } else if (command instanceof AcquireWriterLease c) {
      w.u8(WriterLeaseCodec.TAG_ACQUIRE_WRITER_LEASE);
      writeOrigin(w, c.origin());
      WriterLeaseCodec.writeAcquire(w, c);
    } else if (JournalPlacementCodec.isPlacement(command)) {
      w.u8(JournalPlacementCodec.tag(command));
      writeOrigin(w, command.origin());
      JournalPlacementCodec.writeBody(w, command);
    } else if (EventLedgerCodec.isLedger(command)) {
      w.u8(EventLedgerCodec.tag(command));
      writeOrigin(w, command.origin());
      EventLedgerCodec.writeBody(w, command);
    } else if (NamespaceKeyCodec.isKeyCommand(command)) {
      w.u8(NamespaceKeyCodec.tag(command));
      writeOrigin(w, command.origin());
      NamespaceKeyCodec.writeBody(w, command);
    } else if (StreamSchemaCodec.isSchema(command)) {
      w.u8(StreamSchemaCodec.tag(command));
      writeOrigin(w, command.origin());
      StreamSchemaCodec.writeBody(w, command);
    } else {
      throw new IllegalArgumentException("unknown command type " + command.getClass());
    }
  }

  /** The smallest encoded GroupOffset: its fixed fields and an empty metadata string. */
  public static final int MIN_GROUP_OFFSET_BYTES = 8 + 4 + 8 + 4 + 4;

  /** Writes a group's committed offset (shared with snapshots' layout). */
  public static void writeGroupOffset(BinaryWriter w, GroupOffset o) {
    w.i64(o.streamId()).i32(o.partition()).i64(o.offset()).i32(o.leaderEpoch());
    w.string(o.metadata());
  }

  /** Reads an offset written by {@link #writeGroupOffset}; {@code field} prefixes field names. */
  public static GroupOffset readGroupOffset(BinaryReader r, String field) {
    return new GroupOffset(
        r.i64(field + ".streamId"),
        r.i32(field + ".partition"),
        r.i64(field + ".offset"),
        r.i32(field + ".leaderEpoch"),
        r.string(field + ".metadata"));
  }

  /** Writes an offset-index entry (shared with snapshots' layout). */
  public static void writeIndexEntry(BinaryWriter w, IndexEntry e) {
    w.i64(e.baseOffset())
        .i32(e.recordCount())
        .string(e.objectKey())
        .i64(e.byteOffset())
        .i32(e.byteLength())
        .i64(e.maxTimestamp());
  }

  /**
   * Reads an entry written by {@link #writeIndexEntry}; {@code field} prefixes the field names that
   * a corruption message names.
   */
  public static IndexEntry readIndexEntry(BinaryReader r, String field) {
    return new IndexEntry(
        r.i64(field + ".baseOffset"),
        r.i32(field + ".recordCount"),
        r.string(field + ".objectKey"),
        r.i64(field + ".byteOffset"),
        r.i32(field + ".byteLength"),
        r.i64(field + ".maxTimestamp"));
  }

  private static SwapSegment readSwapSegment(BinaryReader r) {
    Origin o = readOrigin(r);
    long streamId = r.i64("swapSegment.streamId");
    int partition = r.i32("swapSegment.partition");
    long from = r.i64("swapSegment.fromOffset");
    long to = r.i64("swapSegment.toOffset");
    int nExpected = r.count("swapSegment.expected.count", MIN_INDEX_ENTRY_BYTES);
    List<IndexEntry> expected = new ArrayList<>(nExpected);
    for (int i = 0; i < nExpected; i++) {
      expected.add(readIndexEntry(r, "swapSegment.expected"));
    }
    String key = r.string("swapSegment.segmentKey");
    long time = r.i64("swapSegment.segmentTimeMillis");
    long size = r.i64("swapSegment.segmentSize");
    int n = r.count("swapSegment.entries.count", SEGMENT_ENTRY_BYTES);
    List<SwapSegment.SegmentEntry> entries = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      entries.add(
          new SwapSegment.SegmentEntry(
              r.i32("swapSegment.entry.recordCount"),
              r.i64("swapSegment.entry.byteOffset"),
              r.i32("swapSegment.entry.byteLength"),
              r.i64("swapSegment.entry.maxTimestamp")));
    }
    return new SwapSegment(o, streamId, partition, from, to, expected, key, time, size, entries);
  }

  private static TrimPartition readTrimPartition(BinaryReader r) {
    Origin o = readOrigin(r);
    long streamId = r.i64("trimPartition.streamId");
    int partition = r.i32("trimPartition.partition");
    long start = r.i64("trimPartition.newLogStartOffset");
    int code = r.u8("trimPartition.reason");
    for (TrimPartition.Reason reason : TrimPartition.Reason.values()) {
      if (reason.code() == code) {
        return new TrimPartition(o, streamId, partition, start, reason);
      }
    }
    throw r.corrupt("trimPartition.reason", "unknown code=" + code);
  }

  private static DeleteObjects readDeleteObjects(BinaryReader r) {
    Origin o = readOrigin(r);
    int n = r.count("deleteObjects.count", 4);
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(r.string("deleteObjects.objectKey"));
    }
    return new DeleteObjects(o, keys);
  }

  /**
   * The origin of an encoded command, read from its header alone (version, tag, origin: the same
   * for every tag), so a metastore leader can judge a proposal's stamp without decoding its body.
   * Malformed input is a {@link CorruptionException} naming the field.
   */
  public static Origin decodeOrigin(byte[] bytes) {
    BinaryReader r = new BinaryReader(FORMAT, bytes);
    int version = r.u8("version");
    if (version != VERSION) {
      throw r.corrupt("version", "unsupported version=" + version);
    }
    r.u8("tag");
    return readOrigin(r);
  }

  /**
   * Decodes a command; any malformed, truncated or over-long input is a {@link CorruptionException}
   * naming the field.
   */
  public static Command decode(byte[] bytes) {
    BinaryReader r = new BinaryReader(FORMAT, bytes);
    int version = r.u8("version");
    if (version != VERSION) {
      throw r.corrupt("version", "unsupported version=" + version);
    }
    int tag = r.u8("tag");
    Command c =
        switch (tag) {
          case TAG_REGISTER_NODE -> {
            Origin o = readOrigin(r);
            yield new RegisterNode(
                o,
                r.nullableString("registerNode.advertisedAddress"),
                r.i32("registerNode.slots"),
                r.nullableString("registerNode.zone"));
          }
          case TAG_CREATE_NAMESPACE ->
              new CreateNamespace(readOrigin(r), r.string("createNamespace.name"));
          case TAG_DELETE_NAMESPACE ->
              new DeleteNamespace(readOrigin(r), r.string("deleteNamespace.name"));
          case TAG_CREATE_STREAM -> {
            Origin o = readOrigin(r);
            String ns = r.string("createStream.namespace");
            String name = r.string("createStream.name");
            yield new CreateStream(o, ns, name, readConfig(r, "createStream.config"));
          }
          case TAG_DELETE_STREAM -> {
            Origin o = readOrigin(r);
            String ns = r.string("deleteStream.namespace");
            yield new DeleteStream(o, ns, r.string("deleteStream.name"));
          }
          case TAG_COMMIT_WAL -> readCommitWal(r, false);
          case TAG_COMMIT_WAL_GROUP -> readCommitWalGroup(r, false);
          case WriterLeaseCodec.TAG_COMMIT_WAL_FENCED -> readCommitWal(r, true);
          case WriterLeaseCodec.TAG_COMMIT_WAL_GROUP_FENCED -> readCommitWalGroup(r, true);
          case WriterLeaseCodec.TAG_ACQUIRE_WRITER_LEASE ->
              WriterLeaseCodec.readAcquire(r, readOrigin(r));
          case TAG_SWAP_SEGMENT -> readSwapSegment(r);
          case TAG_TRIM_PARTITION -> readTrimPartition(r);
          case TAG_DELETE_OBJECTS -> readDeleteObjects(r);
          case TAG_ALLOCATE_PRODUCER_IDS ->
              new AllocateProducerIds(readOrigin(r), r.i32("allocateProducerIds.count"));
          case TAG_ACQUIRE_CONSUMER_LEASE -> {
            Origin o = readOrigin(r);
            long streamId = r.i64("acquireConsumerLease.streamId");
            int partition = r.i32("acquireConsumerLease.partition");
            String consumer = r.string("acquireConsumerLease.consumer");
            String holder = r.string("acquireConsumerLease.holder");
            yield new AcquireConsumerLease(
                o,
                streamId,
                partition,
                consumer,
                holder,
                r.i64("acquireConsumerLease.leaseMillis"));
          }
          case TAG_COMMIT_CONSUMER_OFFSET -> {
            Origin o = readOrigin(r);
            long streamId = r.i64("commitConsumerOffset.streamId");
            int partition = r.i32("commitConsumerOffset.partition");
            String consumer = r.string("commitConsumerOffset.consumer");
            long generation = r.i64("commitConsumerOffset.generation");
            yield new CommitConsumerOffset(
                o, streamId, partition, consumer, generation, r.i64("commitConsumerOffset.offset"));
          }
          case TAG_UPDATE_STREAM_CONFIG -> readUpdateStreamConfig(r);
          case TAG_ADD_PARTITIONS -> {
            Origin o = readOrigin(r);
            String ns = r.string("addPartitions.namespace");
            String name = r.string("addPartitions.name");
            yield new AddPartitions(o, ns, name, r.i32("addPartitions.partitions"));
          }
          case TAG_RENEW_NODE -> new RenewNode(readOrigin(r));
          case TAG_EXPIRE_NODE -> {
            Origin o = readOrigin(r);
            String node = r.string("expireNode.nodeId");
            long epoch = r.i64("expireNode.nodeEpoch");
            yield new ExpireNode(o, node, epoch, r.i64("expireNode.timeoutMillis"));
          }
          case TAG_DEREGISTER_NODE -> new DeregisterNode(readOrigin(r));
          case TAG_SET_NODE_SLOTS -> {
            Origin o = readOrigin(r);
            String node = r.string("setNodeSlots.nodeId");
            yield new SetNodeSlots(o, node, r.i32("setNodeSlots.slots"));
          }
          case TAG_PLACE_STREAM -> new PlaceStream(readOrigin(r), r.i64("placeStream.streamId"));
          case TAG_OPEN_STREAM -> new OpenStream(readOrigin(r), r.i64("openStream.streamId"));
          case TAG_CLOSE_STREAM -> {
            Origin o = readOrigin(r);
            long streamId = r.i64("closeStream.streamId");
            yield new CloseStream(o, streamId, r.i64("closeStream.streamEpoch"));
          }
          case TAG_TRANSFER_STREAM -> {
            Origin o = readOrigin(r);
            long streamId = r.i64("transferStream.streamId");
            long epoch = r.i64("transferStream.streamEpoch");
            yield new TransferStream(o, streamId, epoch, r.string("transferStream.targetNodeId"));
          }
          case TAG_OWNER_FENCED -> readOwnerFenced(r);
          case TAG_INIT_CLUSTER ->
              new InitCluster(readOrigin(r), r.string("initCluster.clusterId"));
          case TAG_SET_NODE_ENDPOINT -> {
            Origin o = readOrigin(r);
            String name = r.string("setNodeEndpoint.name");
            yield new SetNodeEndpoint(o, name, r.string("setNodeEndpoint.address"));
          }
          case TAG_CREATE_API_KEY -> {
            Origin o = readOrigin(r);
            String id = r.string("createApiKey.id");
            String scope = r.nullableString("createApiKey.scope");
            var roles = ApiKeyCodec.readRoles(r, "createApiKey.roles");
            yield new CreateApiKey(
                o, id, scope, roles, ApiKeyCodec.readSecrets(r, "createApiKey.secrets"));
          }
          case TAG_REVOKE_API_KEY -> new RevokeApiKey(readOrigin(r), r.string("revokeApiKey.id"));
          case TAG_ADVANCE_GROUP_GENERATION -> {
            Origin o = readOrigin(r);
            long coordinator = r.i64("advanceGroupGeneration.coordinatorStreamId");
            String ns = r.string("advanceGroupGeneration.namespace");
            String group = r.string("advanceGroupGeneration.group");
            yield new AdvanceGroupGeneration(
                o, coordinator, ns, group, r.i32("advanceGroupGeneration.generation"));
          }
          case TAG_COMMIT_GROUP_OFFSETS -> {
            Origin o = readOrigin(r);
            long coordinator = r.i64("commitGroupOffsets.coordinatorStreamId");
            String ns = r.string("commitGroupOffsets.namespace");
            String group = r.string("commitGroupOffsets.group");
            int generation = r.i32("commitGroupOffsets.generation");
            int n = r.count("commitGroupOffsets.offsets.count", MIN_GROUP_OFFSET_BYTES);
            List<GroupOffset> offsets = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              offsets.add(readGroupOffset(r, "commitGroupOffsets.offset"));
            }
            yield new CommitGroupOffsets(o, coordinator, ns, group, generation, offsets);
          }
          case TAG_DELETE_GROUP_OFFSETS -> {
            Origin o = readOrigin(r);
            long coordinator = r.i64("deleteGroupOffsets.coordinatorStreamId");
            String ns = r.string("deleteGroupOffsets.namespace");
            String group = r.string("deleteGroupOffsets.group");
            boolean whole = r.bool("deleteGroupOffsets.wholeGroup");
            int n = r.count("deleteGroupOffsets.partitions.count", 8 + 4);
            List<GroupPartition> parts = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              parts.add(
                  new GroupPartition(
                      r.i64("deleteGroupOffsets.streamId"), r.i32("deleteGroupOffsets.partition")));
            }
            yield new DeleteGroupOffsets(o, coordinator, ns, group, whole, parts);
          }
          case EventLedgerCodec.TAG_CLAIM_EVENTS,
              EventLedgerCodec.TAG_COMPLETE_EVENTS,
              EventLedgerCodec.TAG_RELEASE_EVENTS,
              EventLedgerCodec.TAG_PRUNE_EVENTS ->
              EventLedgerCodec.readBody(r, tag, readOrigin(r));
          case NamespaceKeyCodec.TAG_ADD_NAMESPACE_KEY,
              NamespaceKeyCodec.TAG_DESTROY_NAMESPACE_KEYS ->
              NamespaceKeyCodec.readBody(r, tag, readOrigin(r));
          case StreamSchemaCodec.TAG_CREATE_ARROW_STREAM, StreamSchemaCodec.TAG_ADD_STREAM_SCHEMA ->
              StreamSchemaCodec.readBody(r, tag, readOrigin(r));
          case JournalPlacementCodec.TAG_PLACE_JOURNAL,
              JournalPlacementCodec.TAG_ASSIGN_JOURNAL_PARTITION,
              JournalPlacementCodec.TAG_COMMIT_JOURNAL_SEGMENT,
              JournalPlacementCodec.TAG_PLACE_JOURNAL_WITH_ENDPOINT,
              JournalPlacementCodec.TAG_ASSIGN_JOURNAL_PARTITION_SPREAD,
              JournalPlacementCodec.TAG_MOVE_JOURNAL_PARTITION ->
              JournalPlacementCodec.readBody(r, tag, readOrigin(r));
          default -> throw r.corrupt("tag", "unknown command tag=" + tag);
        };
    r.expectEnd();
    return c;
  }

  private static OwnerFenced readOwnerFenced(BinaryReader r) {
    long streamId = r.i64("ownerFenced.streamId");
    long epoch = r.i64("ownerFenced.streamEpoch");
    byte[] innerBytes = r.bytes("ownerFenced.inner");
    Command inner = decode(innerBytes);
    if (!OwnerFenced.ownerBound(inner)) {
      throw r.corrupt(
          "ownerFenced.inner",
          "not an owner-bound command type=" + inner.getClass().getSimpleName());
    }
    return new OwnerFenced(streamId, epoch, inner);
  }

  private static UpdateStreamConfig readUpdateStreamConfig(BinaryReader r) {
    Origin o = readOrigin(r);
    String ns = r.string("updateStreamConfig.namespace");
    String name = r.string("updateStreamConfig.name");
    int present = r.u8("updateStreamConfig.fields");
    if ((present & ~UPDATE_KNOWN_BITS) != 0) {
      throw r.corrupt("updateStreamConfig.fields", "reserved bits set fields=" + present);
    }
    Long retentionMillis =
        (present & UPDATE_RETENTION_MILLIS) != 0
            ? r.i64("updateStreamConfig.retentionMillis")
            : null;
    Long retentionBytes =
        (present & UPDATE_RETENTION_BYTES) != 0 ? r.i64("updateStreamConfig.retentionBytes") : null;
    StreamConfig.CleanupPolicy policy = null;
    if ((present & UPDATE_CLEANUP_POLICY) != 0) {
      policy = readPolicy(r, "updateStreamConfig.cleanupPolicy");
    }
    return new UpdateStreamConfig(o, ns, name, retentionMillis, retentionBytes, policy);
  }

  private static StreamConfig.CleanupPolicy readPolicy(BinaryReader r, String field) {
    int code = r.u8(field);
    for (StreamConfig.CleanupPolicy p : StreamConfig.CleanupPolicy.values()) {
      if (p.code() == code) {
        return p;
      }
    }
    throw r.corrupt(field, "unknown code=" + code);
  }

  /**
   * A CommitWal's fields after its origin (tag 6's body; also each member of tag 35); {@code
   * fenced}: each batch followed by its fence flag and fence (tags 42 and 43).
   */
  private static void writeCommitWalBody(BinaryWriter w, CommitWal c, boolean fenced) {
    w.string(c.objectKey()).i64(c.objectTimeMillis()).i64(c.objectSize());
    w.i32(c.chunks().size());
    for (ChunkCommit chunk : c.chunks()) {
      w.i64(chunk.streamId()).i32(chunk.partition()).i32(chunk.batches().size());
      for (BatchCommit b : chunk.batches()) {
        w.i64(b.byteOffset())
            .i32(b.byteLength())
            .i32(b.recordCount())
            .i64(b.maxTimestamp())
            .i64(b.producerId())
            .i16(b.producerEpoch())
            .i32(b.baseSequence());
        if (fenced) {
          WriterLeaseCodec.writeFence(w, b.fence());
        }
      }
    }
  }

  private static CommitWalGroup readCommitWalGroup(BinaryReader r, boolean fenced) {
    Origin o = readOrigin(r);
    int n = r.count("commitWalGroup.members.count", MIN_COMMIT_WAL_BODY_BYTES);
    List<CommitWal> members = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      members.add(readCommitWalBody(r, o, fenced));
    }
    CommitWalGroup g = new CommitWalGroup(o, members);
    if (fenced && members.stream().noneMatch(CommitWal::fenced)) {
      // One encoding per command: a group without a fence is tag 35.
      throw r.corrupt("commitWalGroup", "tag 43 without a fenced batch");
    }
    return g;
  }

  private static CommitWal readCommitWal(BinaryReader r, boolean fenced) {
    CommitWal c = readCommitWalBody(r, readOrigin(r), fenced);
    if (fenced && !c.fenced()) {
      throw r.corrupt("commitWal", "tag 42 without a fenced batch");
    }
    return c;
  }

  private static CommitWal readCommitWalBody(BinaryReader r, Origin o, boolean fenced) {
    String key = r.string("commitWal.objectKey");
    long time = r.i64("commitWal.objectTimeMillis");
    long size = r.i64("commitWal.objectSize");
    int nChunks = r.count("commitWal.chunks.count", MIN_CHUNK_BYTES);
    List<ChunkCommit> chunks = new ArrayList<>(nChunks);
    for (int i = 0; i < nChunks; i++) {
      long streamId = r.i64("commitWal.chunk.streamId");
      int partition = r.i32("commitWal.chunk.partition");
      int nBatches = r.count("commitWal.chunk.batches.count", BATCH_BYTES);
      List<BatchCommit> batches = new ArrayList<>(nBatches);
      for (int j = 0; j < nBatches; j++) {
        batches.add(
            new BatchCommit(
                r.i64("commitWal.batch.byteOffset"),
                r.i32("commitWal.batch.byteLength"),
                r.i32("commitWal.batch.recordCount"),
                r.i64("commitWal.batch.maxTimestamp"),
                r.i64("commitWal.batch.producerId"),
                r.i16("commitWal.batch.producerEpoch"),
                r.i32("commitWal.batch.baseSequence"),
                fenced ? WriterLeaseCodec.readFence(r) : null));
      }
      chunks.add(new ChunkCommit(streamId, partition, batches));
    }
    return new CommitWal(o, key, time, size, chunks);
  }

  static void writeOrigin(BinaryWriter w, Origin o) {
    w.string(o.nodeId()).i64(o.nodeEpoch()).i64(o.stampMillis());
  }

  static Origin readOrigin(BinaryReader r) {
    return new Origin(
        r.string("origin.nodeId"), r.i64("origin.nodeEpoch"), r.i64("origin.stampMillis"));
  }

  /** Writes a stream configuration (shared with outcomes and snapshots). */
  public static void writeConfig(BinaryWriter w, StreamConfig c) {
    w.i32(c.partitions())
        .u8(c.durabilityClass().code())
        .i64(c.retentionMillis())
        .i64(c.retentionBytes())
        .u8(c.cleanupPolicy().code() | (c.compression().code() << 4));
  }

  /** Reads a stream configuration written by {@link #writeConfig}. */
  public static StreamConfig readConfig(BinaryReader r, String field) {
    int partitions = r.i32(field + ".partitions");
    int classCode = r.u8(field + ".durabilityClass");
    DurabilityClass dc;
    try {
      dc = DurabilityClass.fromCode(classCode);
    } catch (LoamException e) {
      throw r.corrupt(field + ".durabilityClass", "unknown code=" + classCode);
    }
    long retentionMillis = r.i64(field + ".retentionMillis");
    long retentionBytes = r.i64(field + ".retentionBytes");
    int policyByte = r.u8(field + ".cleanupPolicy");
    // Bits 0-3 the policy, bits 4-6 the default codec (Kafka's id), bit 7 reserved.
    if ((policyByte & 0x80) != 0) {
      throw r.corrupt(field + ".cleanupPolicy", "reserved bit 7 set byte=" + policyByte);
    }
    int codecCode = policyByte >>> 4;
    if (codecCode > Compression.ZSTD.code()) {
      throw r.corrupt(field + ".compression", "unknown codec id=" + codecCode);
    }
    int policyCode = policyByte & 0x0F;
    StreamConfig.CleanupPolicy policy = null;
    for (StreamConfig.CleanupPolicy p : StreamConfig.CleanupPolicy.values()) {
      if (p.code() == policyCode) {
        policy = p;
      }
    }
    if (policy == null) {
      throw r.corrupt(field + ".cleanupPolicy", "unknown code=" + policyCode);
    }
    return new StreamConfig(
        partitions, dc, retentionMillis, retentionBytes, policy, Compression.fromCode(codecCode));
  }

  /** Writes a consumer lease (shared with outcomes and snapshots). */
  public static void writeLease(BinaryWriter w, ConsumerLease l) {
    w.i64(l.streamId())
        .i32(l.partition())
        .string(l.consumer())
        .i64(l.generation())
        .string(l.holder())
        .i64(l.leaseMillis())
        .i64(l.expiresAtMillis())
        .i64(l.committedOffset());
  }

  /** Reads a consumer lease written by {@link #writeLease}. */
  public static ConsumerLease readLease(BinaryReader r, String field) {
    return new ConsumerLease(
        r.i64(field + ".streamId"),
        r.i32(field + ".partition"),
        r.string(field + ".consumer"),
        r.i64(field + ".generation"),
        r.string(field + ".holder"),
        r.i64(field + ".leaseMillis"),
        r.i64(field + ".expiresAtMillis"),
        r.i64(field + ".committedOffset"));
  }
}
