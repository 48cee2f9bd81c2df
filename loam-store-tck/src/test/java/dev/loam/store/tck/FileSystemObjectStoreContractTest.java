package dev.loam.store.tck;

import dev.loam.spi.store.ObjectStore;
import dev.loam.store.fs.FileSystemObjectStore;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filesystem store against the kit, on a fresh temporary directory per case. The second handle
 * is a second store on the same root, as a second process on the machine would open it.
 */
class FileSystemObjectStoreContractTest extends ObjectStoreContractTest {
  private static ExecutorService io;

  @TempDir Path dir;

  @BeforeAll
  static void startIo() {
    io = Executors.newFixedThreadPool(8);
  }

  @AfterAll
  static void stopIo() {
    io.shutdownNow();
  }

  @Override
  protected ObjectStore newStore() {
    return open();
  }

  @Override
  protected ObjectStore openAnotherHandle() {
    return open();
  }

  private ObjectStore open() {
    return new FileSystemObjectStore(
        dir.resolve("store"), io, InstantSource.fixed(Instant.parse("2025-01-02T03:04:05Z")));
  }
}
