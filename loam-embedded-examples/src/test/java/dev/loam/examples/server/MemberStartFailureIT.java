package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that cannot bind its HTTP port, in this JVM: {@link LoamNodeMain.Member#start} throws a
 * failure naming the flag and the port, and has closed what it had started by then: its Raft peer
 * port is free again and every non-daemon thread it started has ended (so a process would exit even
 * without {@code System.exit}).
 */
class MemberStartFailureIT {
  @TempDir Path dir;

  @Test
  void aTakenHttpPortFailsTheStartNamingItAndLeavesNoPortOrThreadBehind() throws Exception {
    int raftPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      raftPort = s.getLocalPort();
    }
    Set<Thread> before = nonDaemonThreads();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int httpPort = taken.getLocalPort();
      NodeOptions o =
          NodeOptions.parse(
              new String[] {
                "--id", "n1",
                "--peers", "n1=127.0.0.1:" + raftPort,
                "--data-dir", dir.resolve("n1").toString(),
                "--store", dir.resolve("store").toUri().toString(),
                "--http-port", Integer.toString(httpPort)
              });
      assertThatThrownBy(
              () ->
                  LoamNodeMain.Member.start(o, new PrintStream(out, true, StandardCharsets.UTF_8)))
          .hasMessage(
              "--http-port "
                  + httpPort
                  + ": cannot bind 127.0.0.1:"
                  + httpPort
                  + ": Address already in use");
    }
    // It got as far as leading its one-voter metastore: the replica ran, then was closed.
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("metastore role=leader");
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(raftPort));
    }
    for (Thread t : nonDaemonThreads()) {
      if (!before.contains(t)) {
        t.join(10_000);
        assertThat(t.isAlive()).as("non-daemon thread %s still running", t.getName()).isFalse();
      }
    }
  }

  private static Set<Thread> nonDaemonThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (!t.isDaemon() && t.isAlive()) {
        out.add(t);
      }
    }
    return out;
  }
}
