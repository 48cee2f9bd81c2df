package dev.loam.storage.gcs;

import dev.loam.spi.store.ObjectStore;
import dev.loam.store.tck.ObjectStoreContractTest;

/**
 * The conformance kit against {@link GcsTestServer}, through the real {@code google-cloud-storage}
 * client: a fresh bucket per case.
 */
class GcsTestServerObjectStoreContractIT extends ObjectStoreContractTest {
  private GcsStoreSettings current;

  @Override
  protected ObjectStore newStore() {
    current = TestServers.settings(TestServers.freshBucket(), "");
    return GcsObjectStore.open(current, TestServers.context());
  }

  /** A second client on the same bucket. */
  @Override
  protected ObjectStore openAnotherHandle() {
    return GcsObjectStore.open(current, TestServers.context());
  }
}
