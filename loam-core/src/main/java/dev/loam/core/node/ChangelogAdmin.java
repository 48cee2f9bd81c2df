package dev.loam.core.node;

import dev.loam.api.ChangelogMode;
import dev.loam.api.Durability;
import dev.loam.api.Log;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.core.ChangelogLinks;
import dev.loam.core.NodeContext;
import dev.loam.core.Streams;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * {@link Log#createChangelog}: creates the changelog stream X and links it to its compacted source
 * S (docs/design/changelog.md "Changelog streams"). X gets S's partition count and durability class
 * and the delete policy; the link is one writer lease per partition of X, of source {@code
 * changelog.<mode>.<S's id>}, taken by a placeholder holder for 1 ms so that the worker on S's
 * owner takes the next term at once. Every step is idempotent, so a retry after a failure between
 * them completes the link.
 */
final class ChangelogAdmin {
  private static final String CREATOR = "changelog-create";

  private final NodeContext ctx;
  private final Log log;

  ChangelogAdmin(NodeContext ctx, Log log) {
    this.ctx = ctx;
    this.log = log;
  }

  CompletableFuture<StreamDescription> create(
      String namespace, String name, String sourceStream, ChangelogMode mode) {
    StreamInfo s;
    try {
      if (mode == null) {
        throw new LoamException(
            Kind.INVALID,
            "a changelog needs a mode (full or upsert) stream=" + namespace + "/" + name);
      }
      s = Streams.resolve(ctx.meta(), namespace, sourceStream);
      if (s.config().cleanupPolicy() != StreamConfig.CleanupPolicy.COMPACT) {
        throw new LoamException(
            Kind.INVALID,
            "a changelog's source must be a compacted stream stream="
                + namespace
                + "/"
                + sourceStream
                + " cleanupPolicy="
                + s.config().cleanupPolicy());
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    StreamSpec spec =
        new StreamSpec(
            s.config().partitions(),
            Durability.fromWireName(s.config().durabilityClass().wireName()),
            -1,
            -1,
            false);
    String source = ChangelogLinks.sourceName(mode, s.id());
    return log.createStreamIfAbsent(namespace, name, spec)
        .thenCompose(
            d -> {
              if (d.spec().partitions() != s.config().partitions() || d.spec().compacted()) {
                throw new LoamException(
                    Kind.CONFLICT,
                    "a stream of that name exists and is not shaped like the source stream="
                        + namespace
                        + "/"
                        + name
                        + " partitions="
                        + d.spec().partitions()
                        + " sourcePartitions="
                        + s.config().partitions());
              }
              CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
              for (int p = 0; p < d.spec().partitions(); p++) {
                int partition = p;
                chain = chain.thenCompose(v -> link(namespace, name, partition, source));
              }
              return chain.thenApply(v -> d);
            });
  }

  /**
   * Links one partition: a writer lease of {@code source} exists (any holder), or the placeholder
   * takes one. The local read may lag: when the placeholder is refused because another holder has
   * the lease — the source's worker took it once an earlier partition was linked —, the link is
   * there; the read is repeated once this replica has caught up, to tell that refusal apart.
   */
  private CompletableFuture<Void> link(
      String namespace, String name, int partition, String source) {
    return log.writerLease(namespace, name, partition, source)
        .thenCompose(
            l ->
                l.isPresent()
                    ? CompletableFuture.<Void>completedFuture(null)
                    : log.acquireWriterLease(
                            namespace, name, partition, source, CREATOR, Duration.ofMillis(1))
                        .<Void>thenApply(x -> null)
                        .exceptionallyCompose(
                            t -> {
                              Throwable cause =
                                  t instanceof java.util.concurrent.CompletionException
                                          && t.getCause() != null
                                      ? t.getCause()
                                      : t;
                              if (!(cause instanceof LoamException e)
                                  || e.kind() != Kind.CONFLICT) {
                                return CompletableFuture.failedFuture(cause);
                              }
                              return ctx.meta()
                                  .awaitLatest()
                                  .thenCompose(
                                      v -> log.writerLease(namespace, name, partition, source))
                                  .thenCompose(
                                      again ->
                                          again.isPresent()
                                              ? CompletableFuture.<Void>completedFuture(null)
                                              : CompletableFuture.<Void>failedFuture(cause));
                            }));
  }
}
