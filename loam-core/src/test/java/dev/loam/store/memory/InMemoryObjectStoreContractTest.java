package dev.loam.store.memory;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreContractTest;
import java.time.Instant;
import java.time.InstantSource;

/** The in-memory store passes the same kit as every real store. */
class InMemoryObjectStoreContractTest extends ObjectStoreContractTest {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore(InstantSource.fixed(Instant.parse("2025-01-02T03:04:05Z")));
  }
}
