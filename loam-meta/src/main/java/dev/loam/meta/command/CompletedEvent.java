package dev.loam.meta.command;

import java.util.Objects;

/** One claimed key of {@link CompleteEvents} and where its event was appended. */
public record CompletedEvent(EventKey key, int partition, long offset) {
  public CompletedEvent {
    Objects.requireNonNull(key, "key");
  }
}
