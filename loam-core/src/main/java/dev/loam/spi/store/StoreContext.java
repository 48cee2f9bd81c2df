package dev.loam.spi.store;

import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;

/**
 * What a node hands to an {@link ObjectStoreProvider}: its clock, an executor for blocking work,
 * and extra string properties (for example credentials a host passes with {@code
 * LoamNode.Builder.storeProperties}) that override URI parameters. {@link #toString()} shows the
 * property names only, never their values, since they are often secrets.
 */
public record StoreContext(
    InstantSource clock, Executor ioExecutor, Map<String, String> properties) {
  public StoreContext {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ioExecutor, "ioExecutor");
    properties = Map.copyOf(properties);
  }

  /** The clock, the executor and the property names; every property value is masked. */
  @Override
  public String toString() {
    return "StoreContext[clock="
        + clock
        + ", ioExecutor="
        + ioExecutor
        + ", properties="
        + new TreeSet<>(properties.keySet())
            .stream().map(k -> k + "=****").collect(Collectors.joining(", ", "{", "}"))
        + "]";
  }
}
