package dev.loam.store.tck;

import dev.loam.spi.store.ObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.store.tck.FaultInjectingObjectStore.Operation;
import java.time.Duration;
import java.time.InstantSource;

/**
 * With no fault rule, the wrapper is transparent: it passes the kit, with every write delayed by a
 * millisecond so that its futures complete on another thread, as a remote store's do.
 */
class FaultInjectingObjectStoreContractTest extends ObjectStoreContractTest {
  private InMemoryObjectStore current;

  @Override
  protected ObjectStore newStore() {
    current = new InMemoryObjectStore(InstantSource.system());
    return new FaultInjectingObjectStore(current)
        .delay(Duration.ofMillis(1), Operation.CREATE, Operation.PUT, Operation.DELETE);
  }

  @Override
  protected ObjectStore openAnotherHandle() {
    return new FaultInjectingObjectStore(handleSharing(current));
  }
}
