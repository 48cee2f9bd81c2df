package dev.loam.kafka.internal.errors;

import dev.loam.api.CommitUnknownException;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.StaleCommitException;
import dev.loam.error.LoamException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The one place where a Loam failure becomes the Kafka error code a client acts on
 * (docs/reference/kafka.md "Errors"). Retriable Kafka codes are used only where retrying is right:
 * nothing was changed (UNAVAILABLE) or the outcome is unknown and an idempotent retry is deduped
 * (OUTCOME_UNKNOWN → REQUEST_TIMED_OUT); what a retry cannot fix gets a non-retriable code.
 *
 * <p>Two contexts differ: the data path (Produce, Fetch, ListOffsets) sends a client back to
 * Metadata with NOT_LEADER_OR_FOLLOWER, the admin path (topic and config changes) with
 * NOT_CONTROLLER.
 */
public final class ErrorMapping {
  private ErrorMapping() {}

  /** Which family of requests failed. */
  public enum Context {
    DATA,
    ADMIN
  }

  /** The Kafka error for {@code failure} in {@code context}. */
  public static Errors of(Throwable failure, Context context) {
    Throwable t = unwrap(failure);
    if (t instanceof ApiException) {
      return Errors.forException(t);
    }
    if (t instanceof TimeoutException) {
      return Errors.REQUEST_TIMED_OUT;
    }
    if (t instanceof OffsetOutOfRangeException) {
      return Errors.OFFSET_OUT_OF_RANGE;
    }
    if (t instanceof CommitUnknownException) {
      return Errors.REQUEST_TIMED_OUT;
    }
    if (t instanceof StaleCommitException) {
      // Nothing was committed and the append may be retried.
      return Errors.NOT_LEADER_OR_FOLLOWER;
    }
    if (t instanceof NotOwnerException) {
      return context == Context.ADMIN ? Errors.NOT_CONTROLLER : Errors.NOT_LEADER_OR_FOLLOWER;
    }
    Errors typed = BatchErrors.of(t);
    if (typed != null) {
      return typed;
    }
    if (!(t instanceof LoamException le)) {
      return Errors.UNKNOWN_SERVER_ERROR;
    }
    return switch (le.kind()) {
      case INVALID -> Errors.INVALID_REQUEST;
      case NOT_FOUND -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
      case UNAVAILABLE, NOT_OWNER ->
          context == Context.ADMIN ? Errors.NOT_CONTROLLER : Errors.NOT_LEADER_OR_FOLLOWER;
      case FENCED ->
          // This node's registration was replaced (a zombie process): the client must go to
          // another node, which Metadata names once the registry drops this one.
          context == Context.ADMIN ? Errors.NOT_CONTROLLER : Errors.NOT_LEADER_OR_FOLLOWER;
      case CONFLICT ->
          context == Context.ADMIN ? Errors.TOPIC_ALREADY_EXISTS : Errors.INVALID_REQUEST;
      case CORRUPTION -> Errors.KAFKA_STORAGE_ERROR;
      case OUTCOME_UNKNOWN -> Errors.REQUEST_TIMED_OUT;
      case INTERNAL -> Errors.UNKNOWN_SERVER_ERROR;
    };
  }

  /** The message to send with the code: the Loam message, which names what was wrong. */
  public static String message(Throwable failure) {
    Throwable t = unwrap(failure);
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  /** The cause behind the wrappers futures add. */
  public static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
