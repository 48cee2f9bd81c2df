package dev.loam.api;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The public log API of a {@link LoamNode}: stream admin, append, fetch and offsets. Every method
 * is asynchronous and thread-safe; failures arrive only through the future as a {@link
 * dev.loam.error.LoamException} whose kind says what to do:
 *
 * <ul>
 *   <li>INVALID: bad arguments (names, partition out of range, offsets out of range: {@link
 *       OffsetOutOfRangeException});
 *   <li>NOT_FOUND: the namespace or stream does not exist;
 *   <li>CONFLICT: already exists, out-of-order producer sequence, {@link StaleCommitException};
 *   <li>FENCED: this node or the producer epoch was replaced;
 *   <li>UNAVAILABLE: a transient failure, nothing was appended;
 *   <li>OUTCOME_UNKNOWN: {@link CommitUnknownException};
 *   <li>CORRUPTION: stored bytes failed their checksum (the message names the object).
 * </ul>
 *
 * <p>Futures complete on the node's own threads: do not block inside callbacks.
 */
public interface Log {
  /** Creates a namespace. CONFLICT if it exists. */
  CompletableFuture<Void> createNamespace(String namespace);

  /** Namespace names, sorted. */
  CompletableFuture<List<String>> listNamespaces();

  /** Deletes an empty namespace. NOT_FOUND, or CONFLICT while it holds streams. */
  CompletableFuture<Void> deleteNamespace(String namespace);

  /** Creates a stream. NOT_FOUND for a missing namespace, CONFLICT if it exists. */
  CompletableFuture<StreamDescription> createStream(
      String namespace, String stream, StreamSpec spec);

  /** Describes a stream with its partitions' bounds. NOT_FOUND if missing. */
  CompletableFuture<StreamDescription> describeStream(String namespace, String stream);

  /** The streams of a namespace, sorted by name. */
  CompletableFuture<List<StreamDescription>> listStreams(String namespace);

  /** Deletes a stream. NOT_FOUND if missing. */
  CompletableFuture<Void> deleteStream(String namespace, String stream);

  /**
   * Appends records (buffered with every other append of this node until the next flush) and
   * completes once they are durable and committed, with each record's partition and offset. Records
   * to one partition keep their order. Atomic per partition, not across partitions.
   */
  CompletableFuture<AppendResult> append(
      String namespace, String stream, List<AppendRecord> records);

  /**
   * An idempotent append: all records must go to one partition; a retry with the same producer
   * identity returns the first append's offsets.
   */
  CompletableFuture<AppendResult> append(
      String namespace, String stream, List<AppendRecord> records, ProducerIdentity producer);

  /**
   * Reads records of one partition from {@code offset}, at most about {@code maxBytes} of batches
   * (at least one batch if any is available). If {@code offset} equals the high watermark, waits up
   * to {@code maxWait} for records (long-poll, no parked thread) and then completes, possibly
   * empty. {@code offset} below the log start or above the high watermark fails with {@link
   * OffsetOutOfRangeException}.
   */
  CompletableFuture<FetchResult> fetch(
      String namespace, String stream, int partition, long offset, int maxBytes, Duration maxWait);

  /**
   * As {@link #fetch(String, String, int, long, int, Duration)}, after this node has applied {@code
   * consistencyToken} (from an {@link AppendResult}), so a reader sees its own writes on any node.
   */
  CompletableFuture<FetchResult> fetch(
      String namespace,
      String stream,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      OptionalLong consistencyToken);

  /** Finds the earliest, latest, or first offset at or after a timestamp of one partition. */
  CompletableFuture<Long> listOffset(
      String namespace, String stream, int partition, OffsetSpec spec);
}
