package dev.loam.core.node;

import dev.loam.api.FencedAppendResult;
import dev.loam.api.SourceGroup;
import dev.loam.api.WriterLease;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.core.Streams;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.write.FencedAppender;
import dev.loam.core.write.WalWriter;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.StreamInfo;
import dev.loam.wal.DurabilityClass;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link dev.loam.api.Log} calls of fenced appends (docs/design/changelog.md): writer leases
 * through the metastore, the append through {@link FencedAppender}. Any node serves them: the lease
 * epoch, checked by the sequencer, is what fences a writer, not the node it calls.
 */
final class FencedWriterService {
  private final NodeContext ctx;
  private final FencedAppender appender;

  FencedWriterService(
      NodeContext ctx,
      Map<DurabilityClass, WalWriter> writers,
      int maxAppendBytes,
      NamespaceEncryption encryption) {
    this.ctx = ctx;
    this.appender = new FencedAppender(ctx, writers, maxAppendBytes, encryption);
  }

  CompletableFuture<WriterLease> acquire(
      String namespace,
      String stream,
      int partition,
      String source,
      String holder,
      Duration lease) {
    StreamInfo s;
    String subject;
    try {
      s = Streams.resolve(ctx.meta(), namespace, stream);
      subject = text(s, partition, source);
      if (holder == null || lease == null || source == null) {
        throw new LoamException(Kind.INVALID, "source, holder and lease are required" + subject);
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
    return ctx.meta()
        .propose(
            new AcquireWriterLease(ctx.origin(), s.id(), partition, source, holder, leaseMillis))
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, subject);
              }
              return state(s, ((Outcome.WriterLeaseGranted) a.outcome()).lease());
            });
  }

  CompletableFuture<Optional<WriterLease>> lease(
      String namespace, String stream, int partition, String source) {
    try {
      StreamInfo s = Streams.resolve(ctx.meta(), namespace, stream);
      return CompletableFuture.completedFuture(
          ctx.meta().read(r -> r.writerLease(s.id(), partition, source)).map(l -> state(s, l)));
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  CompletableFuture<FencedAppendResult> append(
      String namespace,
      String stream,
      int partition,
      String source,
      long leaseEpoch,
      List<SourceGroup> groups) {
    return appender.append(namespace, stream, partition, source, leaseEpoch, groups);
  }

  private static String text(StreamInfo s, int partition, String source) {
    return " stream="
        + s.namespace()
        + "/"
        + s.name()
        + " partition="
        + partition
        + " source="
        + source;
  }

  private static WriterLease state(StreamInfo s, dev.loam.meta.command.WriterLease l) {
    return new WriterLease(
        s.namespace(),
        s.name(),
        l.partition(),
        l.source(),
        l.epoch(),
        l.holder(),
        l.expiresAtMillis(),
        l.sourceUpto() == dev.loam.meta.command.WriterLease.NOTHING
            ? OptionalLong.empty()
            : OptionalLong.of(l.sourceUpto()));
  }
}
