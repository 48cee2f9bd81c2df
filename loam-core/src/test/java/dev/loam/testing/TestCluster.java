package dev.loam.testing;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One shared in-memory object store and one embedded metastore, with nodes started on them; for
 * tests that need to wrap the store or metastore with faults, or run two nodes on one log.
 */
public final class TestCluster implements AutoCloseable {
  public static final NodeSettings FAST =
      NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  private final ExecutorService metaExecutor = Executors.newSingleThreadExecutor();
  public final InMemoryObjectStore memoryStore = new InMemoryObjectStore(InstantSource.system());
  public final Metastore embeddedMeta;
  private final List<LoamNode> nodes = new ArrayList<>();

  public TestCluster(Path metaDir) {
    embeddedMeta =
        EmbeddedMetastore.open(
            metaDir,
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            metaExecutor);
  }

  public LoamNode start(String nodeId, NodeSettings settings) {
    return start(nodeId, settings, memoryStore, embeddedMeta);
  }

  public LoamNode start(String nodeId, NodeSettings settings, ObjectStore store, Metastore meta) {
    LoamNode n =
        LoamNode.builder()
            .nodeId(nodeId)
            .settings(settings)
            .objectStore(store)
            .metastore(meta)
            .start();
    nodes.add(n);
    return n;
  }

  /** Closes {@code node} with the cluster. */
  public void adopt(LoamNode node) {
    nodes.add(node);
  }

  @Override
  public void close() {
    nodes.forEach(LoamNode::close);
    embeddedMeta.close();
    memoryStore.close();
    metaExecutor.shutdownNow();
  }
}
