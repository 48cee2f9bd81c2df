package dev.loam.core;

import dev.loam.api.OutOfOrderSequenceException;
import dev.loam.api.ProducerFencedException;
import dev.loam.api.StaleCommitException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.Outcome;

/**
 * The one mapping from the metastore's refusals (result values of the state machine) to the typed
 * errors of the public API. Each switch is exhaustive, so a new reason or status does not compile
 * until it is given a kind here.
 *
 * <p>Messages are the metastore's own, followed by what the caller knows ({@code subject}: the
 * stream, partition, consumer or object as {@code key=value}). A key the metastore's message names
 * already is not repeated: the metastore names what it refused from the command itself, so its
 * value is the one that was checked.
 */
public final class Rejections {
  private Rejections() {}

  /** The error for an admin, ownership or consumer command the metastore refused. */
  public static LoamException of(Outcome.Rejected r, String subject) {
    Kind kind =
        switch (r.reason()) {
          case ALREADY_EXISTS, CONFLICT, STALE_COMMIT -> Kind.CONFLICT;
          case NOT_FOUND -> Kind.NOT_FOUND;
          case INVALID, OUT_OF_RANGE -> Kind.INVALID;
          case STALE_NODE_EPOCH, UNKNOWN_NODE, FENCED -> Kind.FENCED;
          case NOT_OWNER -> Kind.NOT_OWNER;
          case FUTURE_STAMP -> Kind.UNAVAILABLE;
        };
    return new LoamException(kind, withSubject(r.message(), subject));
  }

  /**
   * {@code message} followed by each {@code key=value} field of {@code subject} (space-separated)
   * whose key {@code message} does not name yet.
   */
  static String withSubject(String message, String subject) {
    StringBuilder out = new StringBuilder(message);
    for (String field : subject.split(" ")) {
      if (field.isEmpty()) {
        continue;
      }
      int eq = field.indexOf('=');
      if (eq > 0 && namesKey(message, field.substring(0, eq + 1))) {
        continue;
      }
      out.append(' ').append(field);
    }
    return out.toString();
  }

  private static boolean namesKey(String message, String keyEq) {
    return message.startsWith(keyEq) || message.contains(" " + keyEq);
  }

  /**
   * The error for a refused CommitWal of {@code objectKey}. A stale commit is its own type (nothing
   * was committed and the append may be retried); a fenced node cannot commit at all; a future
   * stamp is the proposer's clock running ahead, which passes. Any other reason means the writer
   * built a command the sequencer does not accept: INTERNAL.
   */
  public static LoamException ofWalCommit(Outcome.Rejected r, String objectKey) {
    String message = r.message() + " object=" + objectKey;
    return switch (r.reason()) {
      case STALE_COMMIT -> new StaleCommitException(message);
      case STALE_NODE_EPOCH, UNKNOWN_NODE -> new LoamException(Kind.FENCED, message);
      case FUTURE_STAMP -> new LoamException(Kind.UNAVAILABLE, message);
      case ALREADY_EXISTS, NOT_FOUND, CONFLICT, INVALID, FENCED, OUT_OF_RANGE, NOT_OWNER ->
          new LoamException(Kind.INTERNAL, message);
    };
  }

  /**
   * The error for one batch of a committed WAL object that the sequencer did not append, or null
   * when it was appended (now or before, as a duplicate). {@code subject} names the stream and
   * {@code producer} the producer (empty for a plain append).
   */
  public static LoamException ofBatch(
      Outcome.BatchStatus status, String subject, int partition, String producer) {
    return switch (status) {
      case APPENDED, DUPLICATE -> null;
      case OUT_OF_ORDER_SEQUENCE ->
          new OutOfOrderSequenceException(
              "out of order sequence " + subject + " partition=" + partition + producer);
      case PRODUCER_FENCED ->
          new ProducerFencedException(
              "producer epoch fenced " + subject + " partition=" + partition + producer);
      case UNKNOWN_PARTITION ->
          new LoamException(
              Kind.NOT_FOUND,
              "stream deleted before commit " + subject + " partition=" + partition);
      case ALREADY_APPENDED -> null;
      case WRITER_FENCED ->
          new LoamException(
              Kind.FENCED,
              "the writer lease epoch is not current or the lease expired "
                  + subject
                  + " partition="
                  + partition
                  + producer);
      case SOURCE_GAP ->
          new LoamException(
              Kind.CONFLICT,
              "the fenced append does not start at sourceUpto + 1 (a gap) "
                  + subject
                  + " partition="
                  + partition
                  + producer);
      case SOURCE_OVERLAP ->
          new LoamException(
              Kind.CONFLICT,
              "the fenced append starts inside what is already appended and ends beyond it "
                  + subject
                  + " partition="
                  + partition
                  + producer);
    };
  }
}
