package dev.loam.core.read;

import dev.loam.api.BatchFetchResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OffsetSpec;
import dev.loam.core.NodeContext;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * The read side of the {@link dev.loam.api.Log} (stream-engine.txt §6): fetches from one index view
 * of the local replica through the {@link ReadPath}, long-polls on the {@link PartitionWatch} at
 * the high watermark, waits (bounded) for a consistency token to be applied first, retries once
 * from a fresh view when a segment swap or trim raced the read, and answers offset lookups
 * (earliest, latest, by timestamp).
 */
public final class Fetcher {
  private static final int MAX_ENTRIES_PER_FETCH = 256;

  /**
   * How long a fetch waits for this replica to apply its consistency token at least (capped by the
   * node's maxFetchWait), even with a shorter or zero maxWait: a replica one round trip behind must
   * not fail a read-your-writes fetch, while a token it never reaches (a bogus one) still ends.
   */
  static final long TOKEN_WAIT_FLOOR_MILLIS = 10_000;

  private final Metastore meta;
  private final InstantSource clock;
  private final ScheduledExecutorService scheduler;
  private final ReadPath readPath;
  private final ColumnReader columnReader;
  private final PartitionWatch watch;
  private final Duration maxFetchWait;

  public Fetcher(NodeContext ctx, ReadPath readPath, PartitionWatch watch, Duration maxFetchWait) {
    this.meta = ctx.meta();
    this.clock = ctx.clock();
    this.scheduler = ctx.scheduler();
    this.readPath = readPath;
    this.columnReader = new ColumnReader(readPath);
    this.watch = watch;
    this.maxFetchWait = maxFetchWait;
  }

  /** Fetches records (see {@link dev.loam.api.Log#fetch}). */
  public CompletableFuture<FetchResult> fetch(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      OptionalLong consistencyToken) {
    return fetch(
        namespace, stream, partition, offset, maxBytes, maxWait, consistencyToken, Records::new);
  }

  /** Fetches stored batches (see {@link dev.loam.api.Log#fetchBatches}). */
  public CompletableFuture<BatchFetchResult> fetchBatches(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
    return fetch(
        namespace,
        stream,
        partition,
        offset,
        maxBytes,
        maxWait,
        OptionalLong.empty(),
        Batches::new);
  }

  /** Fetches an arrow stream's stored frames (see {@link dev.loam.api.Log#fetchArrowBatches}). */
  public CompletableFuture<BatchFetchResult> fetchArrowBatches(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
    return fetch(
        namespace, stream, partition, offset, maxBytes, maxWait, OptionalLong.empty(), Frames::new);
  }

  /**
   * Fetches an arrow stream's records with values holding only {@code columns} (see {@link
   * dev.loam.api.Log#fetchColumns}): from a segment, only the projected columns' byte ranges.
   */
  public CompletableFuture<FetchResult> fetchColumns(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      List<String> columns) {
    List<String> cols = List.copyOf(columns);
    try {
      List<String> schemas =
          meta.read(
              r ->
                  r.stream(namespace, stream)
                      .map(si -> r.streamSchemas(si.id()))
                      .orElseThrow(
                          () ->
                              new LoamException(
                                  Kind.NOT_FOUND,
                                  "stream not found stream=" + namespace + "/" + stream)));
      if (schemas.isEmpty()) {
        throw new LoamException(
            Kind.INVALID,
            "not an arrow stream: a column-projected read needs an arrow stream stream="
                + namespace
                + "/"
                + stream);
      }
      for (String c : cols) {
        if (c.equals("_key") || c.equals("_timestamp")) {
          throw new LoamException(
              Kind.INVALID,
              "column "
                  + c
                  + " is a system column: every record carries its key and timestamp; name user"
                  + " columns");
        }
      }
      // Refuses unknown, repeated or no columns before anything is read.
      dev.loam.core.arrow.ArrowCodec.get().projectedColumns(schemas, schemas.size(), cols);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return fetch(
        namespace,
        stream,
        partition,
        offset,
        maxBytes,
        maxWait,
        OptionalLong.empty(),
        () -> new ArrowCollectors.Columns(columnReader, cols));
  }

  /**
   * Fetches an arrow stream's frames in part (see {@link dev.loam.api.Log#fetchArrowColumns}): each
   * frame's prefix followed by the bytes of the columns {@code columns} needs, in column order.
   */
  public CompletableFuture<BatchFetchResult> fetchArrowColumns(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      List<String> columns) {
    List<String> cols = List.copyOf(columns);
    try {
      List<String> schemas =
          meta.read(
              r ->
                  r.stream(namespace, stream)
                      .map(si -> r.streamSchemas(si.id()))
                      .orElseThrow(
                          () ->
                              new LoamException(
                                  Kind.NOT_FOUND,
                                  "stream not found stream=" + namespace + "/" + stream)));
      if (schemas.isEmpty()) {
        throw new LoamException(
            Kind.INVALID,
            "not an arrow stream: it has no arrow batches stream=" + namespace + "/" + stream);
      }
      dev.loam.core.arrow.ArrowCodec.get().projectedColumns(schemas, schemas.size(), cols);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return fetch(
        namespace,
        stream,
        partition,
        offset,
        maxBytes,
        maxWait,
        OptionalLong.empty(),
        () -> new ArrowCollectors.PartFrames(columnReader, cols));
  }

  /** What one read of an index entry gave: where it ended and the bytes it held. */
  record EntryRead(long endOffset, int bytes) {}

  /**
   * What one fetch pass collects from the slices it reads, and the answer it builds: decoded
   * records for the record API, stored batch bytes for the batch API. A fresh one per pass, so a
   * retried pass starts empty.
   */
  interface Collector<R> {
    /**
     * Reads entry {@code e} from {@code from} (about {@code maxBytes}) and adds its content from
     * {@code fromOffset}: by default a slice of whole batches through {@link #add}.
     */
    default CompletableFuture<EntryRead> read(
        ReadPath readPath,
        IndexEntry e,
        long from,
        int maxBytes,
        int partition,
        long fromOffset,
        List<String> schemas) {
      return readPath
          .read(e, from, maxBytes)
          .thenApply(s -> new EntryRead(s.endOffset(), add(s, partition, fromOffset, schemas)));
    }

    /**
     * Adds the slice's content from {@code fromOffset}; returns the bytes it held. {@code schemas}
     * are the stream's arrow schema versions (empty: kafka-encoded).
     */
    int add(ReadPath.Slice s, int partition, long fromOffset, List<String> schemas);

    boolean isEmpty();

    R result(long nextOffset, PartitionInfo bounds);
  }

  private static final class Records implements Collector<FetchResult> {
    private final List<FetchedRecord> out = new ArrayList<>();

    @Override
    public int add(ReadPath.Slice s, int partition, long fromOffset, List<String> schemas) {
      return schemas.isEmpty()
          ? ReadPath.decode(s, partition, fromOffset, out)
          : ReadPath.decodeArrow(s, partition, fromOffset, schemas, out);
    }

    @Override
    public boolean isEmpty() {
      return out.isEmpty();
    }

    @Override
    public FetchResult result(long nextOffset, PartitionInfo b) {
      return new FetchResult(out, nextOffset, b.highWatermark(), b.logStartOffset());
    }
  }

  private static final class Batches implements Collector<BatchFetchResult> {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @Override
    public int add(ReadPath.Slice s, int partition, long fromOffset, List<String> schemas) {
      if (!schemas.isEmpty()) {
        throw new LoamException(
            Kind.INVALID,
            "an arrow stream has no Kafka batches to serve: read it as records or through Arrow"
                + " Flight (docs/reference/arrow.md) object="
                + s.entry().objectKey());
      }
      return ReadPath.copyBatches(s, fromOffset, out);
    }

    @Override
    public boolean isEmpty() {
      return out.size() == 0;
    }

    @Override
    public BatchFetchResult result(long nextOffset, PartitionInfo b) {
      return new BatchFetchResult(
          ByteBuffer.wrap(out.toByteArray()), nextOffset, b.highWatermark(), b.logStartOffset());
    }
  }

  private static final class Frames implements Collector<BatchFetchResult> {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @Override
    public int add(ReadPath.Slice s, int partition, long fromOffset, List<String> schemas) {
      if (schemas.isEmpty()) {
        throw new LoamException(
            Kind.INVALID,
            "not an arrow stream: it has no arrow batches (read it with fetch or fetchBatches)"
                + " object="
                + s.entry().objectKey());
      }
      return ReadPath.copyArrowFrames(s, fromOffset, out);
    }

    @Override
    public boolean isEmpty() {
      return out.size() == 0;
    }

    @Override
    public BatchFetchResult result(long nextOffset, PartitionInfo b) {
      return new BatchFetchResult(
          ByteBuffer.wrap(out.toByteArray()), nextOffset, b.highWatermark(), b.logStartOffset());
    }
  }

  private <R> CompletableFuture<R> fetch(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      OptionalLong consistencyToken,
      Supplier<Collector<R>> collector) {
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
      return applied.thenComposeAsync(v -> fetchOnce(req, collector, false), scheduler);
    }
    return fetchOnce(req, collector, false);
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

  /** {@code schemas}: the stream's arrow schema versions, empty for a kafka-encoded stream. */
  private record View(
      StreamInfo stream, PartitionInfo bounds, List<IndexEntry> entries, List<String> schemas) {}

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
          return new View(s, pi, entries, r.streamSchemas(s.id()));
        });
  }

  /**
   * @param caughtUp whether this replica has already caught up with the metastore's latest commit
   *     for this request ({@link dev.loam.meta.Metastore#awaitLatest})
   */
  private <R> CompletableFuture<R> fetchOnce(
      FetchRequest q, Supplier<Collector<R>> collector, boolean caughtUp) {
    View v;
    try {
      v = view(q);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    PartitionInfo b = v.bounds();
    if (q.offset() > b.highWatermark() && !caughtUp) {
      // This node's metastore replica may be behind the one that acknowledged or served the
      // offset (a Ratis follower applies late). "Out of range" makes a consumer reset its
      // position, so it is only ever said from a state that has caught up with every commit made
      // before the request; until then the offset may well exist.
      return meta.awaitLatest().thenComposeAsync(x -> fetchOnce(q, collector, true), scheduler);
    }
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
        return CompletableFuture.completedFuture(collector.get().result(q.offset(), b));
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
      return woken.thenComposeAsync(x -> fetchOnce(q, collector, caughtUp), scheduler);
    }
    Collector<R> out = collector.get();
    return loadEntries(v, q, 0, q.offset(), 0, out)
        .thenApply(next -> out.result(next, b))
        .exceptionallyCompose(
            t -> {
              // A fetch racing a segment swap or a retention trim, then GC: the entries it read
              // point at an object deleted meanwhile. Read once more from a fresh index view (the
              // grace period makes a second race practically impossible); if the same entry is
              // still there, the object is really lost and the error stands.
              if (!q.retried() && ReadPath.isObjectGone(t)) {
                return fetchOnce(q.retry(), collector, caughtUp);
              }
              return CompletableFuture.failedFuture(t);
            });
  }

  /**
   * Reads entries in order until {@code maxBytes} is reached (at least one entry, or one block of a
   * large segment entry); completes with the next offset to fetch.
   */
  private CompletableFuture<Long> loadEntries(
      View v, FetchRequest q, int i, long next, int bytesSoFar, Collector<?> out) {
    // Entries compaction emptied hold no record: keep reading until one is found.
    if (i >= v.entries().size() || (i > 0 && bytesSoFar >= q.maxBytes() && !out.isEmpty())) {
      return CompletableFuture.completedFuture(Math.max(next, q.offset()));
    }
    return loadEntry(v, q, i, q.offset(), bytesSoFar, out);
  }

  /** Reads entry {@code i} from {@code from} on, then the entries after it (see loadEntries). */
  private CompletableFuture<Long> loadEntry(
      View v, FetchRequest q, int i, long from, int bytesSoFar, Collector<?> out) {
    IndexEntry e = v.entries().get(i);
    return out.read(
            readPath,
            e,
            from,
            Math.max(1, q.maxBytes() - bytesSoFar),
            q.partition(),
            q.offset(),
            v.schemas())
        .thenCompose(
            s -> {
              int n = s.bytes();
              if (s.endOffset() < e.endOffset()) {
                if (out.isEmpty() && s.endOffset() > from) {
                  // The blocks read hold no record at or after the offset (compaction removed
                  // them, leaving a batch's older records): read on in this entry, as past an
                  // entry compaction emptied, so a fetch starts at the next surviving record.
                  return loadEntry(v, q, i, s.endOffset(), bytesSoFar + n, out);
                }
                // maxBytes reached inside a large segment entry.
                return CompletableFuture.completedFuture(Math.max(s.endOffset(), q.offset()));
              }
              return loadEntries(v, q, i + 1, s.endOffset(), bytesSoFar + n, out);
            });
  }

  /** Looks an offset up (see {@link dev.loam.api.Log#listOffset}). */
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
                        if (v.schemas().isEmpty()) {
                          ReadPath.decode(s, partition, start, recs);
                        } else {
                          ReadPath.decodeArrow(s, partition, start, v.schemas(), recs);
                        }
                        for (FetchedRecord r : recs) {
                          if (r.timestamp() >= ts) {
                            return r.offset();
                          }
                        }
                        return s.endOffset();
                      });
            });
  }
}
