package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LoamNode#health()}: ready on a fresh node; not ready naming the store while its latest
 * calls fail as unreachable, ready again after a successful call; not ready naming {@code stopping}
 * (and the closed embedded metastore) once closed.
 */
class NodeHealthTest {
  @TempDir Path dir;

  /** A store whose every call fails UNAVAILABLE while {@link #down} is set. */
  static final class SwitchableStore extends ForwardingObjectStore {
    volatile boolean down;

    SwitchableStore() {
      super(new InMemoryObjectStore(InstantSource.system()));
    }

    private <T> CompletableFuture<T> gate(java.util.function.Supplier<CompletableFuture<T>> call) {
      return down
          ? CompletableFuture.failedFuture(new StoreUnavailableException("store down for the test"))
          : call.get();
    }

    @Override
    public CompletableFuture<Void> create(String key, byte[] bytes) {
      return gate(() -> delegate.create(key, bytes));
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
      return gate(() -> delegate.get(key));
    }
  }

  @Test
  void readinessFollowsTheStoresRecentOutcomesAndTheClose() throws Exception {
    SwitchableStore store = new SwitchableStore();
    NodeSettings settings =
        NodeSettings.defaults()
            .withFlushInterval(Duration.ofMillis(5))
            .withCommitBudget(Duration.ofMillis(300));
    LoamNode node =
        LoamNode.builder().nodeId("n1").dataDir(dir).objectStore(store).settings(settings).start();
    try {
      assertThat(node.health()).isEqualTo(new NodeHealth(true, List.of()));
      node.log().createNamespace("ns").get(10, TimeUnit.SECONDS);
      node.log().createStream("ns", "s", StreamSpec.standard(1)).get(10, TimeUnit.SECONDS);

      store.down = true;
      CompletableFuture<AppendResult> failed =
          node.log().append("ns", "s", List.of(AppendRecord.of("k", "v")));
      assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(dev.loam.error.LoamException.class);
      NodeHealth down = node.health();
      assertThat(down.ready()).isFalse();
      assertThat(down.reasons()).hasSize(1);
      assertThat(down.reasons().get(0).check()).isEqualTo(NodeHealth.STORE);
      assertThat(down.reasons().get(0).detail())
          .contains("object store", "store down for the test", "holdMillis=30000");

      store.down = false;
      node.log().append("ns", "s", List.of(AppendRecord.of("k", "v"))).get(10, TimeUnit.SECONDS);
      assertThat(node.health().ready()).isTrue();
    } finally {
      node.close();
    }
    NodeHealth closed = node.health();
    assertThat(closed.ready()).isFalse();
    assertThat(closed.reasons())
        .extracting(NodeHealth.Reason::check)
        .containsExactly(NodeHealth.STOPPING, NodeHealth.METASTORE);
    assertThat(closed.reasons().get(1).detail()).contains("metastore is closed");
  }

  @Test
  void healthIsReadyExactlyWithoutReasons() {
    assertThatThrownBy(() -> new NodeHealth(true, List.of(new NodeHealth.Reason("store", "x"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(NodeHealth.of(List.of()).ready()).isTrue();
  }
}
