package dev.loam.meta.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Ports for test clusters on loopback. A "free" port can be taken by another socket between {@link
 * #freePort()} and the bind, so cluster harnesses start over on fresh ports when {@link #portTaken}
 * says that is why a start failed.
 */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /** A port no socket held a moment ago. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code e} (or a cause) says a port was already in use. */
  public static boolean portTaken(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException
          || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  /** Deletes a directory tree if it exists (a failed start's replica directories). */
  public static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder())
          .forEach(
              f -> {
                try {
                  Files.deleteIfExists(f);
                } catch (IOException ex) {
                  throw new UncheckedIOException(ex);
                }
              });
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
