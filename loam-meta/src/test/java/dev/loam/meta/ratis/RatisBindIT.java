package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.meta.MetaSettings;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's Raft port listens on the host of its own address only: given {@code 127.0.0.1:PORT},
 * nothing answers on PORT at any other address of the machine.
 */
class RatisBindIT {
  @TempDir Path dir;

  @Test
  void theRaftPortBindsOnlyTheGivenHost() throws Exception {
    ExecutorService exec = Executors.newSingleThreadExecutor();
    String address = RatisTestCluster.newAddress();
    int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
    RatisSettings settings =
        RatisTestCluster.testDefaults("m1", Map.of("m1", address), dir.resolve("m1")).build();
    assertThat(settings.bindHost()).isEqualTo("127.0.0.1");
    try (RatisMetastore m =
        RatisMetastore.start(settings, MetaSettings.defaults(), InstantSource.system(), exec)) {
      RatisTestCluster.get(m.readLinearizable(r -> r.appliedIndex()));
      // The given address answers, and its port is held.
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        assertThat(s.isConnected()).isTrue();
      }
      assertThatThrownBy(() -> bind(InetAddress.getByName("127.0.0.1"), port))
          .isInstanceOf(IOException.class);
      InetAddress other = otherLocalAddress();
      // Nothing answers on the same port at another address of this machine ...
      assertThatThrownBy(
              () -> {
                try (Socket s = new Socket()) {
                  s.connect(new InetSocketAddress(other, port), 2000);
                }
              })
          .isInstanceOf(ConnectException.class);
      // ... and the port there is free: no wildcard socket holds it.
      bind(other, port);
    } finally {
      exec.shutdownNow();
    }
  }

  private static void bind(InetAddress host, int port) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(host, port));
    }
  }

  /**
   * A non-loopback IPv4 address of this machine if it has one, else 127.0.0.2 (another loopback
   * address, distinct from 127.0.0.1 for binding on Linux).
   */
  private static InetAddress otherLocalAddress() throws SocketException, IOException {
    for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!ni.isUp() || ni.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(ni.getInetAddresses())) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
          return a;
        }
      }
    }
    return InetAddress.getByName("127.0.0.2");
  }
}
