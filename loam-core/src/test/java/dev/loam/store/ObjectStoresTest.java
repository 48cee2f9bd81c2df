package dev.loam.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.fs.FileSystemObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStoresTest {
  final StoreContext ctx = new StoreContext(InstantSource.system(), Runnable::run, Map.of());

  @Test
  void opensTheBuiltInStoresByUri(@TempDir Path dir) {
    try (ObjectStore mem = ObjectStores.open("mem://", ctx)) {
      assertThat(mem).isInstanceOf(InMemoryObjectStore.class);
    }
    try (ObjectStore fs = ObjectStores.open(dir.resolve("objs").toUri().toString(), ctx)) {
      assertThat(fs).isInstanceOf(FileSystemObjectStore.class);
      fs.create("a/b", new byte[] {1}).join();
      assertThat(Files.exists(dir.resolve("objs"))).isTrue();
    }
  }

  @Test
  void unknownSchemesAndMalformedUrisAreInvalidAndSaySo() {
    assertThatThrownBy(() -> ObjectStores.open("nope://bucket", ctx))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("scheme=nope")
        .hasMessageContaining("file")
        .extracting(e -> ((LoamException) e).kind())
        .isEqualTo(LoamException.Kind.INVALID);
    assertThatThrownBy(() -> ObjectStores.open("::bad", ctx))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("uri=::bad");
    assertThatThrownBy(() -> ObjectStores.open("file:", ctx)).isInstanceOf(LoamException.class);
  }
}
