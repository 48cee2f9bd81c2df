package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.meta.MetaSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ratis ends the JVM when its server cannot bind; a Loam replica must instead fail to start with a
 * typed error (this test's JVM surviving to the assertion is the point).
 */
class RatisPortInUseTest {
  @TempDir Path dir;

  @Test
  void aPortInUseIsATypedStartFailureNotAnExitOfTheJvm() throws Exception {
    ExecutorService exec = Executors.newSingleThreadExecutor();
    try (ServerSocket taken = new ServerSocket()) {
      taken.setReuseAddress(false);
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      String address = "127.0.0.1:" + taken.getLocalPort();
      RatisSettings settings =
          RatisSettings.builder("m1", Map.of("m1", address), dir.resolve("m1")).build();
      assertThatThrownBy(
              () ->
                  RatisMetastore.start(
                      settings, MetaSettings.defaults(), InstantSource.system(), exec))
          .isInstanceOf(LoamException.class)
          .hasMessageContaining("cannot start the Ratis metastore peer=m1")
          .satisfies(
              e ->
                  org.assertj.core.api.Assertions.assertThat(((LoamException) e).kind())
                      .isEqualTo(LoamException.Kind.UNAVAILABLE));
    } finally {
      exec.shutdownNow();
    }
  }
}
