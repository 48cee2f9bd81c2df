package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A single-node host needs no Apache Ratis (optional in loam-meta; cluster mode adds
 * loam-meta-ratis): a node starts, appends and reads back in a class loader that sees loam-core's
 * class path minus every Ratis jar, as a host that declares only loam-core has it.
 */
class SingleNodeWithoutRatisTest {
  @TempDir Path dir;

  @Test
  void aSingleNodeRunsWithoutRatisOnTheClassPath() throws Exception {
    try (URLClassLoader noRatis = withoutRatis()) {
      assertThatThrownBy(() -> noRatis.loadClass("org.apache.ratis.server.RaftServer"))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> flow = noRatis.loadClass(Flow.class.getName());
      assertThat(flow.getClassLoader()).isSameAs(noRatis);
      Object read = flow.getMethod("run", Path.class).invoke(null, dir);
      assertThat(read).isEqualTo("hello");
    }
  }

  /** What a single-node host does; loaded in the class loader without Ratis. */
  public static final class Flow {
    private Flow() {}

    /** Starts a node on {@code dir}, appends a record and answers its value as read back. */
    public static String run(Path dir) {
      try (LoamNode node = LoamNode.builder().nodeId("n1").dataDir(dir).start()) {
        Log log = node.log();
        log.createNamespaceIfAbsent("shop").join();
        log.createStreamIfAbsent("shop", "orders", StreamSpec.standard(1)).join();
        log.append("shop", "orders", List.of(AppendRecord.of("k", "hello"))).join();
        return log.fetch("shop", "orders", 0, 0, 1 << 20, Duration.ZERO)
            .join()
            .records()
            .get(0)
            .valueAsString();
      }
    }
  }

  private static URLClassLoader withoutRatis() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("org/apache/ratis") && !entry.contains("ratis")) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }
}
