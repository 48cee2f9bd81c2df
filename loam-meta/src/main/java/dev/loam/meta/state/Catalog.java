package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.state.PartitionState.ProducerState;
import dev.loam.meta.state.PartitionState.SeqEntry;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The namespaces and streams of the metastore state, each stream with its partitions, and the rules
 * of the commands that change only them (create and delete a namespace, create a stream, update its
 * configuration, add partitions). Keeps the two indexes (by name, by id) consistent and writes and
 * reads its snapshot section. Deleting a stream reaches other tables, so {@link MetaStateMachine}
 * applies that rule with {@link #removeStream}.
 */
final class Catalog {
  /** Max name length, Kafka's topic name limit. */
  static final int MAX_NAME_LENGTH = 249;

  /** Namespace -> (stream name -> stream); sorted so reads and snapshots are ordered. */
  private final TreeMap<String, TreeMap<String, StreamState>> namespaces = new TreeMap<>();

  private final TreeMap<Long, StreamState> streamsById = new TreeMap<>();

  private long nextStreamId = 1;

  /** An empty catalog holding only the default namespace. */
  Catalog() {
    namespaces.put(MetaStateMachine.DEFAULT_NAMESPACE, new TreeMap<>());
  }

  /** A stream and its partitions. */
  static final class StreamState {
    /**
     * Replaced by UpdateStreamConfig and AddPartitions; the id, namespace and name never change.
     */
    StreamInfo info;

    /** One per configured partition; AddPartitions appends empty ones, nothing removes any. */
    PartitionState[] partitions;

    StreamState(StreamInfo info) {
      this.info = info;
      this.partitions = new PartitionState[info.config().partitions()];
      for (int i = 0; i < partitions.length; i++) {
        partitions[i] = new PartitionState();
      }
    }
  }

  // ---- lookups

  TreeMap<String, TreeMap<String, StreamState>> namespaces() {
    return namespaces;
  }

  /** Streams by id (a live view; callers only read it). */
  Map<Long, StreamState> streamsById() {
    return streamsById;
  }

  long nextStreamId() {
    return nextStreamId;
  }

  StreamState stream(long streamId) {
    return streamsById.get(streamId);
  }

  boolean exists(long streamId) {
    return streamsById.containsKey(streamId);
  }

  StreamState streamNamed(String namespace, String name) {
    TreeMap<String, StreamState> streams = namespace == null ? null : namespaces.get(namespace);
    return streams == null || name == null ? null : streams.get(name);
  }

  PartitionState partitionState(long streamId, int partition) {
    StreamState s = streamsById.get(streamId);
    if (s == null || partition < 0 || partition >= s.partitions.length) {
      return null;
    }
    return s.partitions[partition];
  }

  // ---- names

  /** Kafka's topic name rules: 1..249 chars of [A-Za-z0-9._-], not "." or "..". */
  static boolean validName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      return false;
    }
    if (name.equals(".") || name.equals("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char ch = name.charAt(i);
      boolean ok =
          (ch >= 'a' && ch <= 'z')
              || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9')
              || ch == '.'
              || ch == '_'
              || ch == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  static Outcome.Rejected invalidName(String what, String name) {
    return rejected(
        RejectReason.INVALID,
        "invalid "
            + what
            + " name: 1.."
            + MAX_NAME_LENGTH
            + " of [A-Za-z0-9._-], not . or .. "
            + what
            + "="
            + name);
  }

  // ---- the rules

  Outcome createNamespace(CreateNamespace c) {
    if (!validName(c.name())) {
      return invalidName("namespace", c.name());
    }
    if (namespaces.containsKey(c.name())) {
      return rejected(RejectReason.ALREADY_EXISTS, "namespace exists namespace=" + c.name());
    }
    namespaces.put(c.name(), new TreeMap<>());
    return new Outcome.NamespaceCreated(c.name());
  }

  Outcome deleteNamespace(DeleteNamespace c) {
    TreeMap<String, StreamState> streams = namespaces.get(c.name());
    if (streams == null) {
      return rejected(RejectReason.NOT_FOUND, "no such namespace namespace=" + c.name());
    }
    if (MetaStateMachine.DEFAULT_NAMESPACE.equals(c.name())) {
      return rejected(
          RejectReason.INVALID, "the default namespace cannot be deleted namespace=" + c.name());
    }
    if (!streams.isEmpty()) {
      return rejected(
          RejectReason.CONFLICT,
          "namespace still holds streams namespace=" + c.name() + " streams=" + streams.size());
    }
    namespaces.remove(c.name());
    return new Outcome.Deleted(c.name());
  }

  Outcome createStream(CreateStream c) {
    if (!validName(c.namespace())) {
      return invalidName("namespace", c.namespace());
    }
    if (!validName(c.name())) {
      return invalidName("stream", c.name());
    }
    StreamConfig cfg = c.config();
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    if (cfg == null) {
      return rejected(RejectReason.INVALID, "stream config is required" + where);
    }
    if (cfg.partitions() < 1 || cfg.partitions() > StreamConfig.MAX_PARTITIONS) {
      return rejected(
          RejectReason.INVALID,
          "partitions must be 1.."
              + StreamConfig.MAX_PARTITIONS
              + where
              + " partitions="
              + cfg.partitions());
    }
    if (cfg.retentionMillis() != -1 && cfg.retentionMillis() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionMillis must be -1 or > 0"
              + where
              + " retentionMillis="
              + cfg.retentionMillis());
    }
    if (cfg.retentionBytes() != -1 && cfg.retentionBytes() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionBytes must be -1 or > 0" + where + " retentionBytes=" + cfg.retentionBytes());
    }
    TreeMap<String, StreamState> streams = namespaces.get(c.namespace());
    if (streams == null) {
      return rejected(RejectReason.NOT_FOUND, "no such namespace namespace=" + c.namespace());
    }
    if (streams.containsKey(c.name())) {
      return rejected(RejectReason.ALREADY_EXISTS, "stream exists" + where);
    }
    StreamState s = new StreamState(new StreamInfo(nextStreamId++, c.namespace(), c.name(), cfg));
    streams.put(c.name(), s);
    streamsById.put(s.info.id(), s);
    return new Outcome.StreamCreated(s.info);
  }

  /** Removes a stream from both indexes; null if there is no such stream. */
  StreamState removeStream(String namespace, String name) {
    TreeMap<String, StreamState> streams = namespaces.get(namespace);
    StreamState s = streams == null ? null : streams.get(name);
    if (s == null) {
      return null;
    }
    streams.remove(name);
    // The partition state goes with it: later commits naming this id get UNKNOWN_PARTITION, and
    // the id is never handed out again (nextStreamId only grows).
    streamsById.remove(s.info.id());
    return s;
  }

  Outcome updateStreamConfig(UpdateStreamConfig c) {
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    StreamState s = streamNamed(c.namespace(), c.name());
    if (s == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream" + where);
    }
    if (c.isEmpty()) {
      return rejected(
          RejectReason.INVALID,
          "an update names at least one of retentionMillis, retentionBytes, cleanupPolicy" + where);
    }
    if (c.retentionMillis() != null && c.retentionMillis() != -1 && c.retentionMillis() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionMillis must be -1 or > 0" + where + " retentionMillis=" + c.retentionMillis());
    }
    if (c.retentionBytes() != null && c.retentionBytes() != -1 && c.retentionBytes() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionBytes must be -1 or > 0" + where + " retentionBytes=" + c.retentionBytes());
    }
    StreamConfig old = s.info.config();
    StreamConfig cfg =
        new StreamConfig(
            old.partitions(),
            old.durabilityClass(),
            c.retentionMillis() != null ? c.retentionMillis() : old.retentionMillis(),
            c.retentionBytes() != null ? c.retentionBytes() : old.retentionBytes(),
            c.cleanupPolicy() != null ? c.cleanupPolicy() : old.cleanupPolicy(),
            old.compression());
    // Retention applies from the next TrimPartition on: the state machine checks every trim
    // against the configuration current at its apply, so a longer retention is never undercut.
    s.info = new StreamInfo(s.info.id(), s.info.namespace(), s.info.name(), cfg);
    return new Outcome.StreamConfigUpdated(s.info);
  }

  Outcome addPartitions(AddPartitions c) {
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    StreamState s = streamNamed(c.namespace(), c.name());
    if (s == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream" + where);
    }
    int current = s.partitions.length;
    if (c.partitions() <= current || c.partitions() > StreamConfig.MAX_PARTITIONS) {
      return rejected(
          RejectReason.INVALID,
          "partitions must be greater than the current count and at most "
              + StreamConfig.MAX_PARTITIONS
              + where
              + " partitions="
              + c.partitions()
              + " currentPartitions="
              + current);
    }
    // Existing partitions keep their state objects (offsets, entries, producers, consumers); the
    // new ones start empty at offset 0. Snapshots write partitions by the configured count, so the
    // layout needs no new version (metastore-snapshot.md).
    PartitionState[] grown = Arrays.copyOf(s.partitions, c.partitions());
    for (int i = current; i < grown.length; i++) {
      grown[i] = new PartitionState();
    }
    StreamConfig old = s.info.config();
    s.partitions = grown;
    s.info =
        new StreamInfo(
            s.info.id(),
            s.info.namespace(),
            s.info.name(),
            new StreamConfig(
                c.partitions(),
                old.durabilityClass(),
                old.retentionMillis(),
                old.retentionBytes(),
                old.cleanupPolicy(),
                old.compression()));
    return new Outcome.PartitionsAdded(s.info, current);
  }

  // ---- snapshot sections (docs/formats/metastore-snapshot.md)

  /** The namespaces section, then the streams section with every partition's sequencer state. */
  void write(BinaryWriter w) {
    w.i32(namespaces.size());
    for (String ns : namespaces.keySet()) {
      w.string(ns);
    }
    w.i32(streamsById.size());
    for (StreamState s : streamsById.values()) {
      w.i64(s.info.id()).string(s.info.namespace()).string(s.info.name());
      CommandCodec.writeConfig(w, s.info.config());
      for (PartitionState p : s.partitions) {
        w.i64(p.logStartOffset).i64(p.highWatermark).i32(p.entries.size());
        for (IndexEntry e : p.entries) {
          CommandCodec.writeIndexEntry(w, e);
        }
        w.i32(p.producers.size());
        for (Map.Entry<Long, ProducerState> pe : p.producers.entrySet()) {
          ProducerState ps = pe.getValue();
          w.i64(pe.getKey()).i16(ps.epoch).i32(ps.batches.size());
          for (SeqEntry se : ps.batches) {
            w.i32(se.baseSequence()).i32(se.lastSequence()).i64(se.baseOffset());
          }
        }
      }
    }
  }

  /**
   * Reads what {@link #write} wrote into this (empty) catalog; {@code nextStreamId} comes from the
   * snapshot's header and bounds the stream ids.
   */
  void read(BinaryReader r, long nextStreamId) {
    namespaces.clear();
    this.nextStreamId = nextStreamId;
    int nNamespaces = r.count("namespaces.count", 4);
    for (int i = 0; i < nNamespaces; i++) {
      String ns = r.string("namespace");
      if (namespaces.put(ns, new TreeMap<>()) != null) {
        throw r.corrupt("namespace", "duplicate namespace=" + ns);
      }
    }
    if (!namespaces.containsKey(MetaStateMachine.DEFAULT_NAMESPACE)) {
      throw r.corrupt("namespaces", "default namespace missing");
    }
    int nStreams = r.count("streams.count", 8 + 4 + 4 + 22);
    for (int i = 0; i < nStreams; i++) {
      long id = r.i64("stream.id");
      String ns = r.string("stream.namespace");
      String name = r.string("stream.name");
      StreamConfig cfg = CommandCodec.readConfig(r, "stream.config");
      if (cfg.partitions() < 1 || cfg.partitions() > StreamConfig.MAX_PARTITIONS) {
        throw r.corrupt("stream.config.partitions", "out of range partitions=" + cfg.partitions());
      }
      if (id < 1 || id >= nextStreamId || streamsById.containsKey(id)) {
        throw r.corrupt("stream.id", "bad or duplicate stream id=" + id);
      }
      TreeMap<String, StreamState> streams = namespaces.get(ns);
      if (streams == null || streams.containsKey(name)) {
        throw r.corrupt("stream.namespace", "unknown namespace or duplicate name stream=" + name);
      }
      StreamState s = new StreamState(new StreamInfo(id, ns, name, cfg));
      for (PartitionState p : s.partitions) {
        readPartition(r, p);
      }
      streams.put(name, s);
      streamsById.put(id, s);
    }
  }

  private static void readPartition(BinaryReader r, PartitionState p) {
    p.logStartOffset = r.i64("partition.logStartOffset");
    p.highWatermark = r.i64("partition.highWatermark");
    int nEntries = r.count("partition.entries.count", 8 + 4 + 4 + 8 + 4 + 8);
    long expectedBase = -1;
    for (int j = 0; j < nEntries; j++) {
      IndexEntry e = CommandCodec.readIndexEntry(r, "entry");
      // Entries are dense and in offset order; binary search depends on it.
      if (e.recordCount() < 1 || (expectedBase >= 0 && e.baseOffset() != expectedBase)) {
        throw r.corrupt("entry.baseOffset", "index entries not dense baseOffset=" + e.baseOffset());
      }
      expectedBase = e.endOffset();
      p.addEntry(e);
    }
    if (expectedBase >= 0 && expectedBase != p.highWatermark) {
      throw r.corrupt(
          "partition.highWatermark",
          "index ends at " + expectedBase + " but highWatermark=" + p.highWatermark);
    }
    int nProducers = r.count("partition.producers.count", 8 + 2 + 4);
    long prevId = Long.MIN_VALUE;
    for (int j = 0; j < nProducers; j++) {
      long pid = r.i64("producer.id");
      if (j > 0 && pid <= prevId) {
        throw r.corrupt("producer.id", "producers not sorted producerId=" + pid);
      }
      prevId = pid;
      ProducerState ps = new ProducerState(r.i16("producer.epoch"));
      int nBatches = r.count("producer.batches.count", 16);
      if (nBatches < 1) {
        throw r.corrupt("producer.batches.count", "a producer has at least one batch");
      }
      for (int k = 0; k < nBatches; k++) {
        ps.batches.addLast(
            new SeqEntry(
                r.i32("producer.baseSequence"),
                r.i32("producer.lastSequence"),
                r.i64("producer.baseOffset")));
      }
      p.producers.put(pid, ps);
    }
  }
}
