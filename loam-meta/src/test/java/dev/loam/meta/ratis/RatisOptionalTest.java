package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Ratis is optional in loam-meta: the embedded metastore runs without it, and asking for a Ratis
 * replica without it fails INVALID naming the artifact to add, not with a NoClassDefFoundError.
 * Checked in a class loader that sees this module's class path minus every Ratis jar, as a
 * single-node host's class path is.
 */
class RatisOptionalTest {
  @Test
  void withoutRatisTheSettingsNameTheArtifactToAdd() throws Exception {
    try (URLClassLoader noRatis = withoutRatis()) {
      assertThatThrownBy(() -> noRatis.loadClass("org.apache.ratis.server.RaftServer"))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> settings = noRatis.loadClass("dev.loam.meta.ratis.RatisSettings");
      Method builder = settings.getMethod("builder", String.class, Map.class, Path.class);
      Throwable t = null;
      try {
        Object b = builder.invoke(null, "a", Map.of("a", "127.0.0.1:9000"), Path.of("x"));
        b.getClass().getMethod("build").invoke(b);
      } catch (InvocationTargetException e) {
        t = e.getCause();
      }
      assertThat(t).as("building settings without Ratis").isNotNull();
      assertThat(t.getClass().getName()).isEqualTo("dev.loam.error.LoamException");
      assertThat(t.getMessage())
          .contains("dev.loam:loam-meta-ratis")
          .contains("missing artifact=org.apache.ratis:ratis-server");
      assertThat(t.getClass().getMethod("kind").invoke(t).toString()).isEqualTo("INVALID");
    }
  }

  @Test
  void withRatisTheSettingsBuild() {
    RatisSettings s =
        RatisSettings.builder("a", Map.of("a", "127.0.0.1:9000"), Path.of("x")).build();
    assertThat(s.localPeerId()).isEqualTo("a");
  }

  private static URLClassLoader withoutRatis() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("org/apache/ratis") && !entry.contains("ratis-")) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }
}
