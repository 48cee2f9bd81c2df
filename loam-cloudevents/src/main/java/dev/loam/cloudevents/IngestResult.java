package dev.loam.cloudevents;

import java.util.List;

/**
 * The answer to one ingest request: one {@link EventAnswer} per event, in request order, the
 * consistency token of the events it appended (0 when it appended none), and when the earliest
 * claim an in-flight event waits on lapses (metastore clock, epoch ms; -1 when none is in flight).
 */
public record IngestResult(List<EventAnswer> answers, long consistencyToken, long retryAtMillis) {
  public IngestResult {
    answers = List.copyOf(answers);
  }

  /** What happened to one event. */
  public enum Status {
    /** This request appended the event. */
    APPENDED,
    /** An earlier write, or an earlier event of this request, holds the same source + id. */
    DUPLICATE,
    /** Another request's pending claim holds the same source + id; retry later. */
    IN_FLIGHT
  }

  /**
   * One event's answer: where it (or the first write of its source + id) landed; partition and
   * offset are -1 for {@link Status#IN_FLIGHT}.
   */
  public record EventAnswer(Status status, int partition, long offset) {}

  /** True when some event is {@link Status#IN_FLIGHT}. */
  public boolean anyInFlight() {
    for (EventAnswer a : answers) {
      if (a.status() == Status.IN_FLIGHT) {
        return true;
      }
    }
    return false;
  }
}
