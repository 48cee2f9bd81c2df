package dev.loam.store.tck;

import dev.loam.spi.store.ObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.time.Instant;
import java.time.InstantSource;

/** The in-memory store passes the same kit as every real store. */
class InMemoryObjectStoreContractTest extends ObjectStoreContractTest {
  private InMemoryObjectStore current;

  @Override
  protected ObjectStore newStore() {
    current = new InMemoryObjectStore(InstantSource.fixed(Instant.parse("2025-01-02T03:04:05Z")));
    return current;
  }

  /** An in-memory store lives in one process: its other handle shares the instance. */
  @Override
  protected ObjectStore openAnotherHandle() {
    return handleSharing(current);
  }
}
