package dev.loam.kafka.internal.group;

import dev.loam.api.CommitUnknownException;
import dev.loam.api.GroupFencedException;
import dev.loam.api.NotOwnerException;
import dev.loam.error.LoamException;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Loam failures of group requests as the Kafka codes group clients act on: a lost coordination is
 * NOT_COORDINATOR (the client asks FindCoordinator again), a stale generation ILLEGAL_GENERATION
 * (the member rejoins), a metastore that cannot answer COORDINATOR_NOT_AVAILABLE (retried), an
 * unknown outcome REQUEST_TIMED_OUT (an offset commit is retried; committing again is harmless).
 */
final class GroupErrors {
  private GroupErrors() {}

  static Errors of(Throwable failure) {
    Throwable t = ErrorMapping.unwrap(failure);
    if (t instanceof ApiException) {
      return Errors.forException(t);
    }
    if (t instanceof NotOwnerException) {
      return Errors.NOT_COORDINATOR;
    }
    if (t instanceof GroupFencedException) {
      return Errors.ILLEGAL_GENERATION;
    }
    if (t instanceof CommitUnknownException || t instanceof TimeoutException) {
      return Errors.REQUEST_TIMED_OUT;
    }
    if (!(t instanceof LoamException le)) {
      return Errors.UNKNOWN_SERVER_ERROR;
    }
    return switch (le.kind()) {
      case NOT_OWNER -> Errors.NOT_COORDINATOR;
      case UNAVAILABLE, FENCED -> Errors.COORDINATOR_NOT_AVAILABLE;
      case OUTCOME_UNKNOWN -> Errors.REQUEST_TIMED_OUT;
      case NOT_FOUND -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
      case INVALID -> Errors.INVALID_REQUEST;
      case CONFLICT, CORRUPTION, INTERNAL -> Errors.UNKNOWN_SERVER_ERROR;
    };
  }

  /** What waiting members hear when their group's coordination is lost or cannot be recorded. */
  static Errors coordinatorLost(Throwable failure) {
    return of(failure) == Errors.NOT_COORDINATOR
        ? Errors.NOT_COORDINATOR
        : Errors.COORDINATOR_NOT_AVAILABLE;
  }
}
