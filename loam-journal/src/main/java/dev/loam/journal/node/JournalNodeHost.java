package dev.loam.journal.node;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.place.JournalPlacementDriver;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.journal.ratis.JournalSettings;
import dev.loam.journal.ratis.Journals;
import dev.loam.journal.state.JournalRead;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.spi.quorum.QuorumHost;
import dev.loam.spi.quorum.QuorumHostContext;
import dev.loam.spi.quorum.QuorumRead;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's {@link QuorumHost}: its {@link JournalServer} (or, in the deterministic simulation,
 * another {@link Journals}) and a {@link JournalPlacementDriver} run every {@link
 * #PLACEMENT_INTERVAL_MILLIS} ms. The first passes also advertise the server's address as the
 * node's {@value JournalPlacementDriver#ENDPOINT} endpoint, until the metastore accepted it. A
 * pass's blocking steps (adding a journal group is a Ratis round trip) run on the context's
 * executor; the scheduler only triggers passes, and a pass never overlaps the previous one.
 */
public final class JournalNodeHost implements QuorumHost {
  private static final Logger LOG = LoggerFactory.getLogger(JournalNodeHost.class);

  /** How often the node follows the journal placement. */
  public static final long PLACEMENT_INTERVAL_MILLIS = 100;

  private final QuorumHostContext ctx;
  private final Journals server;
  private final JournalPlacementDriver driver;
  private final ScheduledFuture<?> task;
  private final JournalSealAgent sealing;
  private final Object lock = new Object();
  private CompletableFuture<Void> inProgress;
  private volatile boolean advertised;
  private volatile boolean closed;

  private JournalNodeHost(QuorumHostContext ctx, Journals server, long maxUnsealedBytes) {
    this.ctx = ctx;
    this.server = server;
    this.driver =
        new JournalPlacementDriver(
            ctx.metastore(), server, ctx.origin(), j -> sealer(j).orElse(null));
    this.sealing = new JournalSealAgent(ctx, server, this::hostedJournals, maxUnsealedBytes);
    this.task =
        ctx.scheduler()
            .scheduleWithFixedDelay(
                () -> {
                  if (!closed) {
                    placeNow();
                  }
                },
                0,
                PLACEMENT_INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
    sealing.start();
  }

  /**
   * Starts the journal server of {@code ctx} with the default journal settings, but for the bound
   * on unsealed bytes and the snapshot threshold when the context gives them, Raft log segments of
   * at most an eighth of that bound, and mutual TLS on the port when the context gives peer TLS.
   */
  static JournalNodeHost start(QuorumHostContext ctx) {
    JournalSettings settings =
        JournalSettings.defaults(ctx.nodeId(), ctx.address(), ctx.storageDir());
    if (ctx.maxUnsealedBytes() > 0) {
      settings = settings.withMaxUnsealedBytes(ctx.maxUnsealedBytes());
    }
    if (ctx.snapshotThresholdEntries() > 0) {
      settings = settings.withSnapshotThresholdEntries(ctx.snapshotThresholdEntries());
    }
    if (ctx.peerTls().isPresent()) {
      settings = settings.withPeerTls(ctx.peerTls().get());
    }
    // Raft log segments of about an eighth of the unsealed bound: a purge behind a snapshot frees
    // whole segments only, so this keeps the log near the size of what is still unsealed.
    settings =
        settings.withLogSegmentSizeBytes(
            Math.max(
                64 << 10,
                Math.min(settings.logSegmentSizeBytes(), settings.maxUnsealedBytes() / 8)));
    JournalServer server = JournalServer.start(settings, ctx.executor());
    return new JournalNodeHost(ctx, server, settings.maxUnsealedBytes());
  }

  /**
   * A node host over journals that are not this module's Ratis server (the deterministic
   * simulation's replicas): the same placement agent, seal agent and data path, with seal bounds
   * derived from {@code maxUnsealedBytes} as {@link #start(QuorumHostContext)} derives them. The
   * host owns {@code journals} and closes them with itself.
   */
  public static JournalNodeHost over(
      QuorumHostContext ctx, Journals journals, long maxUnsealedBytes) {
    return new JournalNodeHost(ctx, journals, maxUnsealedBytes);
  }

  /** This node's sealer of {@code journal}, once its seal agent made one; for tests. */
  public java.util.Optional<dev.loam.journal.seal.JournalSealer> sealer(String journal) {
    return java.util.Optional.ofNullable(sealing.sealer(journal));
  }

  @Override
  public String address() {
    return ctx.address();
  }

  @Override
  public List<String> hostedJournals() {
    // The server knows its groups by their ids; the placement names them.
    return ctx.metastore()
        .read(
            r ->
                r.journals().entrySet().stream()
                    .filter(e -> e.getValue().contains(ctx.nodeId()))
                    .map(java.util.Map.Entry::getKey)
                    .filter(server::hosts)
                    .sorted()
                    .toList());
  }

  /**
   * The Ratis journal server, for tests.
   *
   * @throws IllegalStateException on a host built {@link #over} other journals
   */
  public JournalServer server() {
    if (server instanceof JournalServer s) {
      return s;
    }
    throw new IllegalStateException("this journal host does not run on a Ratis journal server");
  }

  @Override
  public CompletableFuture<Void> placeNow() {
    synchronized (lock) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new LoamException(Kind.UNAVAILABLE, "journal host closed node=" + ctx.nodeId()));
      }
      if (inProgress != null && !inProgress.isDone()) {
        return inProgress;
      }
      CompletableFuture<Void> pass =
          CompletableFuture.supplyAsync(() -> null, ctx.executor())
              .thenCompose(v -> advertise())
              .thenCompose(v -> driver.poll())
              .handle(
                  (p, t) -> {
                    if (t != null && !closed) {
                      LOG.debug("journal placement pass failed node={}", ctx.nodeId(), t);
                      throw t instanceof java.util.concurrent.CompletionException ce
                          ? ce
                          : new java.util.concurrent.CompletionException(t);
                    }
                    return null;
                  });
      inProgress = pass;
      return pass;
    }
  }

  /** Advertises the journal endpoint until the metastore accepted it once for this process. */
  private CompletableFuture<Void> advertise() {
    if (advertised) {
      return CompletableFuture.completedFuture(null);
    }
    return ctx.metastore()
        .propose(
            new SetNodeEndpoint(ctx.origin().get(), JournalPlacementDriver.ENDPOINT, ctx.address()))
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                // Typed like every refusal: a node declared dead is FENCED, a clock ahead of the
                // metastore's UNAVAILABLE. An append that hosts its journal first (QuorumStreams)
                // answers this kind, so it must not claim the caller's request was malformed.
                Kind kind =
                    switch (r.reason()) {
                      case STALE_NODE_EPOCH, UNKNOWN_NODE, FENCED -> Kind.FENCED;
                      case FUTURE_STAMP -> Kind.UNAVAILABLE;
                      default -> Kind.INVALID;
                    };
                throw new LoamException(
                    kind,
                    "journal endpoint refused node="
                        + ctx.nodeId()
                        + " address="
                        + ctx.address()
                        + ": "
                        + r.message());
              }
              advertised = true;
              return null;
            });
  }

  @Override
  public boolean replicates(String journal) {
    return !closed && server.hosts(journal);
  }

  @Override
  public Optional<String> leader(String journal) {
    return server.leader(journal);
  }

  @Override
  public CompletableFuture<Outcome.BatchResult> append(
      String journal, long streamId, int partition, byte[] batch) {
    String ids = " journal=" + journal + " stream=" + streamId + " partition=" + partition;
    java.util.Optional<String> moving =
        ctx.metastore().read(r -> r.journalMoveTarget(streamId, partition));
    if (moving.isPresent()) {
      // Held back while the partition moves, so that its tail drains and the source can release
      // it; correctness does not rest on this (a node whose view lags may still append, and the
      // release then waits for that append's seal).
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.UNAVAILABLE,
              "the partition is moving to another journal, retry shortly"
                  + ids
                  + " to="
                  + moving.get()));
    }
    return server
        .propose(journal, new JournalEntry.Append(streamId, partition, batch))
        .thenCompose(
            r -> {
              java.util.OptionalLong start =
                  r instanceof JournalResult.Rejected rej
                          && rej.reason() == JournalResult.Reason.UNKNOWN_PARTITION
                      ? hostOffset(journal, streamId, partition)
                      : java.util.OptionalLong.empty();
              if (start.isPresent()) {
                // Assigned in the metastore but not hosted yet: the leader's placement pass has
                // not reached it. HOST is idempotent (a second one is refused ALREADY_HOSTED and
                // changes nothing), so host it now, at the end of its offset index as that pass
                // would, and append once more.
                return server
                    .propose(journal, new JournalEntry.Host(streamId, partition, start.getAsLong()))
                    .thenCompose(
                        h ->
                            server.propose(
                                journal, new JournalEntry.Append(streamId, partition, batch)));
              }
              return CompletableFuture.completedFuture(r);
            })
        .thenApply(r -> verdict(r, ids));
  }

  /**
   * Where the journal would host the partition (the end of its offset index), when it is assigned
   * to the journal and not moving away (a partition the journal released while moving it must not
   * be hosted again there); empty otherwise.
   */
  private java.util.OptionalLong hostOffset(String journal, long streamId, int partition) {
    return ctx.metastore()
        .read(
            r -> {
              if (!r.journalOf(streamId, partition).map(journal::equals).orElse(false)
                  || r.journalMoveTarget(streamId, partition).isPresent()) {
                return java.util.OptionalLong.empty();
              }
              return java.util.OptionalLong.of(
                  r.partition(streamId, partition)
                      .map(dev.loam.meta.command.PartitionInfo::highWatermark)
                      .orElse(0L));
            });
  }

  private static Outcome.BatchResult verdict(JournalResult r, String ids) {
    if (r instanceof JournalResult.Appended a) {
      return new Outcome.BatchResult(Outcome.BatchStatus.APPENDED, a.baseOffset());
    }
    if (r instanceof JournalResult.Duplicate d) {
      return new Outcome.BatchResult(Outcome.BatchStatus.DUPLICATE, d.baseOffset());
    }
    if (r instanceof JournalResult.Rejected rej) {
      switch (rej.reason()) {
        case UNKNOWN_PARTITION:
          return new Outcome.BatchResult(Outcome.BatchStatus.UNKNOWN_PARTITION, -1);
        case OUT_OF_ORDER_SEQUENCE:
          return new Outcome.BatchResult(Outcome.BatchStatus.OUT_OF_ORDER_SEQUENCE, -1);
        case PRODUCER_FENCED:
          return new Outcome.BatchResult(Outcome.BatchStatus.PRODUCER_FENCED, -1);
        case TAIL_FULL:
          throw new LoamException(
              Kind.UNAVAILABLE,
              "the journal's unsealed tail is full, retry later" + ids + ": " + rej.message());
        default:
          throw new LoamException(Kind.INVALID, rej.message() + ids);
      }
    }
    throw new LoamException(Kind.INVALID, "unexpected journal answer " + r + ids);
  }

  @Override
  public CompletableFuture<QuorumRead> read(
      String journal,
      long streamId,
      int partition,
      long fromOffset,
      int maxBytes,
      Duration maxWait) {
    try {
      QuorumRead now = readNow(journal, streamId, partition, fromOffset, maxBytes);
      if (!now.batches().isEmpty()
          || fromOffset < now.startOffset()
          || maxWait.isZero()
          || maxWait.isNegative()) {
        return CompletableFuture.completedFuture(now);
      }
      // Long poll: wake on this replica's next apply of an append to the partition (or a
      // snapshot reload), else answer empty after maxWait.
      CompletableFuture<QuorumRead> f = new CompletableFuture<>();
      Runnable recheck =
          () -> {
            if (f.isDone()) {
              return;
            }
            try {
              QuorumRead r = readNow(journal, streamId, partition, fromOffset, maxBytes);
              if (!r.batches().isEmpty() || fromOffset < r.startOffset()) {
                f.complete(r);
              }
            } catch (RuntimeException e) {
              f.completeExceptionally(e);
            }
          };
      AutoCloseable listener =
          server.onApplied(
              journal,
              new dev.loam.journal.ratis.JournalListener() {
                @Override
                public void applied(JournalEntry entry, JournalResult result) {
                  if (entry instanceof JournalEntry.Append a
                      && a.streamId() == streamId
                      && a.partition() == partition
                      && result instanceof JournalResult.Appended) {
                    // Off the apply thread: the read takes the state's read lock.
                    ctx.executor().execute(recheck);
                  }
                }

                @Override
                public void reloaded() {
                  ctx.executor().execute(recheck);
                }
              });
      // An append applied between the first read and the listener's registration.
      recheck.run();
      ScheduledFuture<?> timer =
          ctx.scheduler()
              .schedule(
                  () -> f.complete(now),
                  maxWait.toNanos(),
                  java.util.concurrent.TimeUnit.NANOSECONDS);
      f.whenComplete(
          (r, t) -> {
            timer.cancel(false);
            try {
              listener.close();
            } catch (Exception ignored) {
              // Removing from a list does not fail.
            }
          });
      return f;
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private QuorumRead readNow(
      String journal, long streamId, int partition, long fromOffset, int maxBytes) {
    if (!server.hosts(journal)) {
      throw new LoamException(
          Kind.UNAVAILABLE,
          "journal not on this node journal=" + journal + " node=" + ctx.nodeId());
    }
    java.util.OptionalLong sealed =
        server.query(
            journal,
            st ->
                st.sealPoints().stream()
                    .filter(x -> x.streamId() == streamId && x.partition() == partition)
                    .mapToLong(dev.loam.journal.state.SealPoint::sealedOffset)
                    .findFirst());
    if (sealed.isPresent() && fromOffset < sealed.getAsLong()) {
      // Sealed, possibly below where this journal started (a partition moved in): the caller reads
      // it from the segments through the offset index.
      return new QuorumRead(
          java.util.List.of(),
          sealed.getAsLong(),
          server.highWatermark(journal, streamId, partition).orElse(sealed.getAsLong()));
    }
    JournalRead r;
    try {
      r = server.read(journal, streamId, partition, fromOffset, maxBytes);
    } catch (LoamException e) {
      long end =
          ctx.metastore()
              .read(
                  m ->
                      m.partition(streamId, partition)
                          .map(dev.loam.meta.command.PartitionInfo::highWatermark)
                          .orElse(0L));
      if (e.kind() == Kind.NOT_FOUND && fromOffset <= end) {
        // Not hosted here: assigned and not hosted yet (an empty partition, or one moved in and
        // not hosted at its sealed end yet), or released by a move in progress. Everything below
        // the offset index's end is in its segments.
        return new QuorumRead(java.util.List.of(), end, end);
      }
      throw e;
    }
    // A sealed offset answers no batches and the sealed offset: the caller reads it from the
    // segments through the offset index.
    return new QuorumRead(r.batches(), r.sealedOffset(), r.highWatermark());
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      task.cancel(false);
      sealing.close();
    }
    server.close();
  }
}
