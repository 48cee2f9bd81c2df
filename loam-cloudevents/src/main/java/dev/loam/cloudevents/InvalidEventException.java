package dev.loam.cloudevents;

import dev.loam.error.LoamException;

/**
 * An event, or a request of events, that CloudEvents ingest refuses. The message names the event
 * (its index in a batch, as {@code events[i]}) and the attribute, for example {@code
 * events[2].time: "yesterday" is not an RFC 3339 date-time}.
 */
public final class InvalidEventException extends LoamException {
  private static final long serialVersionUID = 1L;

  private final String attribute;

  /** A refusal of {@code attribute} (may be null when no attribute is at fault). */
  public InvalidEventException(String attribute, String message) {
    super(Kind.INVALID, message);
    this.attribute = attribute;
  }

  /** The refused attribute or member (for example {@code time}, {@code data_base64}), or null. */
  public String attribute() {
    return attribute;
  }

  /** This refusal, with its message prefixed by {@code where} ({@code events[3]}). */
  public InvalidEventException at(String where) {
    return new InvalidEventException(attribute, where + "." + getMessage());
  }
}
