package dev.loam.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Loopback ports for the replicas, and the directory clean-up of a failed start. A port that was
 * free when picked can be bound by another socket before the replica binds it; {@link #portTaken}
 * recognises that failure so that the cluster starts over on fresh ports.
 */
final class LoopbackPorts {
  private LoopbackPorts() {}

  /** A port no socket held a moment ago. */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot pick a free loopback port", e);
    }
  }

  /** Whether {@code e} or one of its causes says that a port was already in use. */
  static boolean portTaken(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException
          || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  /** Deletes {@code dir} and everything under it, if it exists. */
  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        try {
          Files.deleteIfExists(p);
        } catch (NoSuchFileException gone) {
          // Deleted meanwhile.
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete dir=" + dir, e);
    }
  }
}
