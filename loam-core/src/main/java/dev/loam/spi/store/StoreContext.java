package dev.loam.spi.store;

import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * What a node hands to an {@link ObjectStoreProvider}: its clock, an executor for blocking work,
 * and extra string properties (for example credentials given on the command line) that override URI
 * parameters.
 */
public record StoreContext(
    InstantSource clock, Executor ioExecutor, Map<String, String> properties) {
  public StoreContext {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ioExecutor, "ioExecutor");
    properties = Map.copyOf(properties);
  }
}
