package com.example.dirstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectStores;
import dev.loam.store.tck.ObjectStoreContractTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin against Loam's conformance kit, opened as a host opens it: by URI, through the
 * provider registered in META-INF/services, with a store property.
 */
class DirStoreContractTest extends ObjectStoreContractTest {
  private static ExecutorService io;

  @TempDir Path dir;

  @BeforeAll
  static void startIo() {
    io = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stopIo() {
    io.shutdownNow();
  }

  private ObjectStore open() {
    return ObjectStores.open(
        "dirstore://" + dir.resolve("objects").toUri().getPath(),
        new StoreContext(InstantSource.system(), io, Map.of("dirstore.root-suffix", "-kit")));
  }

  @Override
  protected ObjectStore newStore() {
    return open();
  }

  @Override
  protected ObjectStore openAnotherHandle() {
    return open();
  }

  /** A case overridden from another package: the kit's checks, then where the bytes landed. */
  @Override
  @Test
  protected void createThenGetReturnsTheBytes() {
    super.createThenGetReturnsTheBytes();
    assertThat(Files.isDirectory(dir.resolve("objects-kit"))).isTrue();
  }
}
