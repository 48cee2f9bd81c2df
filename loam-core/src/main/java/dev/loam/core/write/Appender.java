package dev.loam.core.write;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.AppendResult.RecordPosition;
import dev.loam.api.BatchAppendResult;
import dev.loam.api.Partitioning;
import dev.loam.api.ProducerIdentity;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.core.Streams;
import dev.loam.core.arrow.ArrowCodec;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.write.WalWriter.BatchAck;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.StreamInfo;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import dev.loam.wal.object.ChunkEncoding;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The write side of the {@link dev.loam.api.Log} (stream-engine.txt §3): resolves the stream on the
 * local replica, chooses each record's partition (explicit; else Kafka's murmur2 of the key, so
 * Kafka clients agree; else a sticky partition per stream that moves on with the writer's flush
 * generation, so unkeyed records of one flush share a batch), encodes one RecordBatch v2 per
 * partition on the caller's thread (compressed with the append's codec, else the stream's), submits
 * them to the class's {@link WalWriter}, and maps each batch's verdict to the caller's result or
 * typed error. A client-built batch (the Kafka gateway's produce) skips the encoding: it is
 * validated ({@link ClientBatch}) and submitted verbatim.
 */
public final class Appender {
  private final NodeContext ctx;
  private final Map<DurabilityClass, WalWriter> writers;
  private final int maxAppendBytes;
  private final Map<Long, Sticky> sticky = new ConcurrentHashMap<>();
  private final NamespaceEncryption encryption;

  private record Sticky(long generation, int partition) {}

  public Appender(NodeContext ctx, Map<DurabilityClass, WalWriter> writers, int maxAppendBytes) {
    this(
        ctx,
        writers,
        maxAppendBytes,
        new NamespaceEncryption(ctx.meta(), ctx.nodeId(), ctx::origin, Rejections::of, null, null));
  }

  /**
   * As {@link #Appender(NodeContext, Map, int)}, sealing the batches of encrypted namespaces with
   * the key {@code encryption} names.
   */
  public Appender(
      NodeContext ctx,
      Map<DurabilityClass, WalWriter> writers,
      int maxAppendBytes,
      NamespaceEncryption encryption) {
    this.ctx = ctx;
    this.writers = writers;
    this.maxAppendBytes = maxAppendBytes;
    this.encryption = encryption;
  }

  private CompletableFuture<List<BatchAck>> submitSealed(
      WalWriter writer, String namespace, List<PendingBatch> batches, Runnable admission) {
    return SealedSubmit.submit(writer, encryption, namespace, batches, admission);
  }

  /**
   * Where quorum batches go instead of a WAL writer (docs/design/quorum.md "Quorum streams"), or
   * null when the node serves no quorum streams.
   */
  private volatile QuorumSink quorum;

  /** Sends the batches of quorum streams to {@code q}. */
  public void quorum(QuorumSink q) {
    this.quorum = q;
  }

  /**
   * The batches of one append to their class's path: a quorum stream's to its journal (after the
   * admission check), the leaderless classes' to their WAL writer.
   */
  private CompletableFuture<List<BatchAck>> submit(
      DurabilityClass cls,
      String namespace,
      String stream,
      List<PendingBatch> batches,
      Runnable admission) {
    if (cls == DurabilityClass.QUORUM) {
      QuorumSink q = quorum;
      try {
        if (q == null) {
          throw new LoamException(
              Kind.INVALID,
              "this node serves no quorum streams stream=" + namespace + "/" + stream);
        }
        if (encryption != null && encryption.keys(namespace).isPresent()) {
          throw new LoamException(
              Kind.INVALID,
              "quorum streams of an encrypted namespace are not supported stream="
                  + namespace
                  + "/"
                  + stream);
        }
        if (admission != null) {
          admission.run();
        }
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      return q.submit(namespace, stream, batches);
    }
    WalWriter writer = writers.get(cls);
    if (writer == null) {
      return CompletableFuture.failedFuture(noWriter(cls, namespace, stream));
    }
    return submitSealed(writer, namespace, batches, admission);
  }

  /**
   * Appends {@code records} (see {@link dev.loam.api.Log#append}); {@code producer} may be null,
   * and so may {@code admission} (run after the checks, before buffering; what it throws fails the
   * append).
   */
  public CompletableFuture<AppendResult> append(
      String namespace,
      String stream,
      List<AppendRecord> records,
      ProducerIdentity producer,
      Runnable admission) {
    return append(namespace, stream, records, producer, admission, null);
  }

  /**
   * As {@link #append(String, String, List, ProducerIdentity, Runnable)}, each batch compressed
   * with {@code compression}, or with the stream's default codec when it is null.
   */
  public CompletableFuture<AppendResult> append(
      String namespace,
      String stream,
      List<AppendRecord> records,
      ProducerIdentity producer,
      Runnable admission,
      Compression compression) {
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
      StreamInfo s = Streams.resolve(ctx.meta(), namespace, stream);
      cls = s.config().durabilityClass();
      int partitions = s.config().partitions();
      // An arrow stream's appends become one arrow batch frame per partition (arrow.md).
      List<String> schemas = ctx.meta().read(r -> r.streamSchemas(s.id()));
      ArrowCodec arrow = schemas.isEmpty() ? null : ArrowCodec.get();
      if (arrow != null && compression != null && compression != Compression.NONE) {
        throw new LoamException(
            Kind.INVALID,
            "an arrow stream stores uncompressed Arrow IPC batches; compression="
                + compression
                + " does not apply stream="
                + namespace
                + "/"
                + stream);
      }
      partitionOf = new int[records.size()];
      indexInPartition = new int[records.size()];
      Map<Integer, List<RecordData>> byPartition = new java.util.TreeMap<>();
      long now = ctx.clock().millis();
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
      Compression codec = compression != null ? compression : s.config().compression();
      for (Map.Entry<Integer, List<RecordData>> e : byPartition.entrySet()) {
        List<RecordData> data = e.getValue();
        BatchSettings settings =
            producer == null
                ? BatchSettings.plain(codec)
                : new BatchSettings(
                    0,
                    codec,
                    TimestampType.CREATE_TIME,
                    producer.producerId(),
                    producer.producerEpoch(),
                    producer.baseSequence());
        byte[] bytes =
            arrow == null
                ? RecordBatchEncoder.encode(settings, data)
                : encodeArrow(arrow, schemas, data, namespace, stream);
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
                settings.baseSequence(),
                arrow == null ? ChunkEncoding.KAFKA : ChunkEncoding.ARROW));
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
    return submit(cls, namespace, stream, batches, admission)
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

  /** Appends one client-built batch verbatim (see {@link dev.loam.api.Log#appendBatch}). */
  public CompletableFuture<BatchAppendResult> appendBatch(
      String namespace, String stream, int partition, ByteBuffer batch) {
    String subject = "stream=" + namespace + "/" + stream;
    PendingBatch pending;
    DurabilityClass cls;
    try {
      StreamInfo s = Streams.resolve(ctx.meta(), namespace, stream);
      cls = s.config().durabilityClass();
      if (partition < 0 || partition >= s.config().partitions()) {
        throw new LoamException(
            Kind.INVALID,
            "partition out of range "
                + subject
                + " partition="
                + partition
                + " partitions="
                + s.config().partitions());
      }
      if (!ctx.meta().read(r -> r.streamSchemas(s.id())).isEmpty()) {
        throw new LoamException(
            Kind.INVALID,
            "an arrow stream takes JSON records through the record API, not client-built Kafka"
                + " batches (docs/reference/arrow.md) "
                + subject);
      }
      pending = ClientBatch.validate(s.id(), partition, batch, subject + " partition=" + partition);
      if (pending.bytes().length > maxAppendBytes) {
        throw new LoamException(
            Kind.INVALID,
            "append too large "
                + subject
                + " bytes="
                + pending.bytes().length
                + " max="
                + maxAppendBytes);
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    String producer =
        pending.producerId() < 0
            ? ""
            : producerText(
                new ProducerIdentity(
                    pending.producerId(), pending.producerEpoch(), pending.baseSequence()));
    return submit(cls, namespace, stream, List.of(pending), null)
        .thenApply(
            acks -> {
              BatchAck a = acks.get(0);
              Outcome.BatchStatus st = a.result().status();
              LoamException refused = Rejections.ofBatch(st, subject, partition, producer);
              if (refused != null) {
                throw refused;
              }
              return new BatchAppendResult(
                  a.result().baseOffset(), a.appliedIndex(), st == Outcome.BatchStatus.DUPLICATE);
            });
  }

  private static byte[] encodeArrow(
      ArrowCodec arrow,
      List<String> schemas,
      List<RecordData> data,
      String namespace,
      String stream) {
    try {
      return arrow.encode(schemas, data);
    } catch (LoamException e) {
      throw new LoamException(e.kind(), e.getMessage() + " stream=" + namespace + "/" + stream, e);
    }
  }

  /** The error for a stream of a class this node has no store for. */
  public static LoamException noWriter(DurabilityClass c, String namespace, String stream) {
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
}
