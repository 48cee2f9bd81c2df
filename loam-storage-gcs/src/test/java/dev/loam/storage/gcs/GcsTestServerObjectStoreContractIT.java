package dev.loam.storage.gcs;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreContractTest;

/**
 * The conformance kit against {@link GcsTestServer}, through the real {@code google-cloud-storage}
 * client: a fresh bucket per case.
 */
class GcsTestServerObjectStoreContractIT extends ObjectStoreContractTest {
  @Override
  protected ObjectStore newStore() {
    return GcsObjectStore.open(
        TestServers.settings(TestServers.freshBucket(), ""), TestServers.context());
  }
}
