package dev.loam.core.write;

import dev.loam.api.AppendRecord;
import dev.loam.api.FencedAppendResult;
import dev.loam.api.SourceGroup;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.core.Streams;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.write.WalWriter.BatchAck;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.StreamInfo;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The write side of a fenced append (docs/design/changelog.md "The append"): checks the groups on
 * the caller's thread (a bad fence would make the sequencer refuse the whole WAL object, other
 * writers' batches included, so nothing questionable is ever submitted), encodes one RecordBatch v2
 * per source group with its fence, submits them together to the class's {@link WalWriter} (one
 * object, one chunk, in order), and maps the sequencer's verdict per group to the caller's result
 * or typed error.
 */
public final class FencedAppender {
  /** Source groups per fenced append at most (STYLE.md §9). */
  public static final int MAX_GROUPS = 10_000;

  private final NodeContext ctx;
  private final Map<DurabilityClass, WalWriter> writers;
  private final int maxAppendBytes;
  private final NamespaceEncryption encryption;

  /** Fenced appends sealed, for encrypted namespaces, with the keys {@code encryption} names. */
  public FencedAppender(
      NodeContext ctx,
      Map<DurabilityClass, WalWriter> writers,
      int maxAppendBytes,
      NamespaceEncryption encryption) {
    this.ctx = ctx;
    this.writers = writers;
    this.maxAppendBytes = maxAppendBytes;
    this.encryption = encryption;
  }

  /** See {@link dev.loam.api.Log#appendFenced}. */
  public CompletableFuture<FencedAppendResult> append(
      String namespace,
      String stream,
      int partition,
      String source,
      long leaseEpoch,
      List<SourceGroup> groups) {
    String subject = "stream=" + namespace + "/" + stream;
    String fenceText = " source=" + source + " leaseEpoch=" + leaseEpoch;
    List<PendingBatch> batches = new ArrayList<>();
    DurabilityClass cls;
    try {
      StreamInfo s = Streams.resolve(ctx.meta(), namespace, stream);
      cls = s.config().durabilityClass();
      check(s, partition, source, leaseEpoch, groups, subject);
      long now = ctx.clock().millis();
      long total = 0;
      for (SourceGroup g : groups) {
        List<RecordData> data = new ArrayList<>(g.records().size());
        long maxTs = Long.MIN_VALUE;
        for (AppendRecord r : g.records()) {
          RecordData d =
              new RecordData(
                  r.timestamp().orElse(now),
                  r.key(),
                  r.value(),
                  r.headers().stream()
                      .map(h -> new dev.loam.wal.batch.Header(h.key(), h.value()))
                      .toList());
          maxTs = Math.max(maxTs, d.timestamp());
          data.add(d);
        }
        byte[] bytes =
            RecordBatchEncoder.encode(BatchSettings.plain(s.config().compression()), data);
        total += bytes.length;
        batches.add(
            new PendingBatch(
                s.id(),
                partition,
                bytes,
                data.size(),
                maxTs,
                -1,
                (short) -1,
                -1,
                new Fence(source, leaseEpoch, g.sourceFrom(), g.sourceTo())));
      }
      if (total > maxAppendBytes) {
        throw new LoamException(
            Kind.INVALID,
            "append too large " + subject + " bytes=" + total + " max=" + maxAppendBytes);
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    WalWriter writer = writers.get(cls);
    if (writer == null) {
      return CompletableFuture.failedFuture(Appender.noWriter(cls, namespace, stream));
    }
    return SealedSubmit.submit(writer, encryption, namespace, batches, null)
        .thenApply(acks -> answer(acks, groups, subject, partition, fenceText));
  }

  private static FencedAppendResult answer(
      List<BatchAck> acks,
      List<SourceGroup> groups,
      String subject,
      int partition,
      String fenceText) {
    List<FencedAppendResult.Group> out = new ArrayList<>(groups.size());
    long token = 0;
    long upto = -1;
    for (int i = 0; i < acks.size(); i++) {
      BatchAck a = acks.get(i);
      SourceGroup g = groups.get(i);
      token = Math.max(token, a.appliedIndex());
      BatchStatus st = a.result().status();
      String range = fenceText + " sourceFrom=" + g.sourceFrom() + " sourceTo=" + g.sourceTo();
      LoamException refused = Rejections.ofBatch(st, subject, partition, range);
      if (refused != null) {
        // Groups before it may have been appended (or been there): the error says which.
        throw new LoamException(
            refused.kind(),
            refused.getMessage() + " groupsBefore=" + i + " sourceUptoAtLeast=" + upto);
      }
      if (st == BatchStatus.APPENDED) {
        out.add(
            new FencedAppendResult.Group(
                g.sourceFrom(),
                g.sourceTo(),
                FencedAppendResult.Status.APPENDED,
                a.result().baseOffset()));
      } else if (st == BatchStatus.ALREADY_APPENDED) {
        out.add(
            new FencedAppendResult.Group(
                g.sourceFrom(), g.sourceTo(), FencedAppendResult.Status.ALREADY_APPENDED, -1));
      } else {
        // A fenced batch is never idempotent, so DUPLICATE cannot be its verdict.
        throw new LoamException(
            Kind.INTERNAL, "unexpected verdict of a fenced batch status=" + st + " " + subject);
      }
      upto = Math.max(upto, g.sourceTo());
    }
    return new FencedAppendResult(out, upto, token);
  }

  /** The checks the sequencer would refuse the whole object for, and the API's own. */
  private static void check(
      StreamInfo s,
      int partition,
      String source,
      long leaseEpoch,
      List<SourceGroup> groups,
      String subject) {
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
    if (!Streams.validSourceName(source)) {
      throw new LoamException(
          Kind.INVALID,
          "invalid source name: 1..249 of [A-Za-z0-9._-], not . or .. "
              + subject
              + " source="
              + source);
    }
    if (leaseEpoch < 1) {
      throw new LoamException(
          Kind.INVALID, "leaseEpoch must be >= 1 " + subject + " leaseEpoch=" + leaseEpoch);
    }
    if (groups == null || groups.isEmpty() || groups.size() > MAX_GROUPS) {
      throw new LoamException(
          Kind.INVALID,
          "a fenced append needs 1.."
              + MAX_GROUPS
              + " source groups "
              + subject
              + " groups="
              + (groups == null ? 0 : groups.size()));
    }
    long prevTo = -1;
    for (int i = 0; i < groups.size(); i++) {
      SourceGroup g = groups.get(i);
      String at =
          " "
              + subject
              + " group="
              + i
              + " sourceFrom="
              + g.sourceFrom()
              + " sourceTo="
              + g.sourceTo();
      if (g.sourceFrom() < 0 || g.sourceTo() < g.sourceFrom()) {
        throw new LoamException(
            Kind.INVALID, "a source group needs 0 <= sourceFrom <= sourceTo" + at);
      }
      if (i > 0 && g.sourceFrom() != prevTo + 1) {
        throw new LoamException(
            Kind.INVALID,
            "source groups must be contiguous: each starts after the previous one's end" + at);
      }
      if (g.records().isEmpty()) {
        throw new LoamException(Kind.INVALID, "a source group needs at least one record" + at);
      }
      prevTo = g.sourceTo();
    }
  }
}
