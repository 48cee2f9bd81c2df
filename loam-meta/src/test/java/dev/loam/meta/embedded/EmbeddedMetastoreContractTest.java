package dev.loam.meta.embedded;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.MetastoreContractTest;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.io.TempDir;

/** The conformance kit run against the embedded metastore. */
class EmbeddedMetastoreContractTest extends MetastoreContractTest {
  @TempDir Path dir;
  private ExecutorService executor;

  @Override
  protected Metastore open(MetaSettings settings, InstantSource clock) {
    executor = Executors.newSingleThreadExecutor();
    return EmbeddedMetastore.open(
        dir, settings, EmbeddedMetastore.Options.defaults(), clock, executor);
  }

  @Override
  protected void cleanUp() {
    executor.shutdownNow();
  }
}
