package dev.loam.storage.azure;

import dev.loam.spi.store.ObjectStore;
import dev.loam.store.tck.ObjectStoreContractTest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit, unchanged, against Azurite 3.37.0. Each case gets a fresh container (the
 * store creates it on first use), so no prefix is needed and 1024-byte keys fit Azure's limit. The
 * second handle is a second client on the same container.
 */
class AzuriteObjectStoreContractIT extends ObjectStoreContractTest {
  private static ExecutorService callbacks;

  @BeforeAll
  static void startServer() {
    Azurite.shared();
    callbacks = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stopExecutor() {
    callbacks.shutdownNow();
  }

  private AzureBlobStoreSettings current;

  @Override
  protected ObjectStore newStore() {
    current = Azurite.shared().settings("kit");
    return AzureBlobObjectStore.open(current, callbacks);
  }

  @Override
  protected ObjectStore openAnotherHandle() {
    return AzureBlobObjectStore.open(current, callbacks);
  }
}
