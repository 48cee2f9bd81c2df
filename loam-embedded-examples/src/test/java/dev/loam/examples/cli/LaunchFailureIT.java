package dev.loam.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.examples.server.LoamNodeMain;
import dev.loam.examples.server.LoamServerMain;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam node} and {@code loam server} as real processes that cannot serve: a listener that
 * cannot bind or a bad flag ends the process with a non-zero status and one line naming the flag,
 * and the ports it had bound are free again. Before, a node whose HTTP port was taken stayed up
 * with a voting metastore replica and no HTTP until killed, and a typo in {@code --store} waited
 * for a metastore leader (up to 5 minutes) before it was reported.
 */
class LaunchFailureIT {
  /** Long enough for a JVM to start Ratis and give up; a process that hangs fails the test. */
  static final Duration EXIT_WITHIN = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void aNodeWhoseHttpPortIsTakenExitsNamingThePortAndReleasesItsRaftPort() throws Exception {
    int raftPort = freePort();
    try (ServerSocket taken = bindLoopback(0)) {
      int httpPort = taken.getLocalPort();
      Launch.Result r =
          node("--peers", "n1=127.0.0.1:" + raftPort, "--http-port", Integer.toString(httpPort));
      assertThat(r.exitCode()).as("%s", r).hasValue(1);
      assertThat(r.lines())
          .as("%s", r)
          .contains(
              "loam node: n1 could not start: --http-port "
                  + httpPort
                  + ": cannot bind 127.0.0.1:"
                  + httpPort
                  + ": Address already in use");
      // The replica had bound its peer port (it led its one-voter group): released again.
      assertThat(r.output()).contains("metastore role=leader");
    }
    assertPortFree(raftPort);
  }

  @Test
  void aNodeWhoseRaftPortIsTakenExitsNamingItsPeerAddress() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(0));
      int raftPort = taken.getLocalPort();
      int httpPort = freePort();
      Launch.Result r =
          node("--peers", "n1=127.0.0.1:" + raftPort, "--http-port", Integer.toString(httpPort));
      assertThat(r.exitCode()).as("%s", r).hasValue(1);
      assertThat(r.lines())
          .as("%s", r)
          .anyMatch(
              l ->
                  l.startsWith(
                          "loam node: n1 could not start: --peers n1=127.0.0.1:"
                              + raftPort
                              + " (this node's metastore replica): UNAVAILABLE")
                      && l.contains("Address already in use"));
      assertPortFree(httpPort);
    }
  }

  @Test
  void aServerWhosePortIsTakenExitsNamingThePort() throws Exception {
    try (ServerSocket taken = bindLoopback(0)) {
      int port = taken.getLocalPort();
      Launch.Result r =
          Launch.run(
              EXIT_WITHIN,
              dir,
              LoamServerMain.class.getName(),
              "--data-dir",
              dir.resolve("server").toString(),
              "--port",
              Integer.toString(port));
      assertThat(r.exitCode()).as("%s", r).hasValue(1);
      assertThat(r.lines())
          .as("%s", r)
          .contains(
              "loam server: could not start: --port "
                  + port
                  + ": cannot bind 127.0.0.1:"
                  + port
                  + ": Address already in use");
    }
  }

  /**
   * Three peers of which only this one runs: no metastore leader can exist, so a check that waited
   * for one would never report the typo (the test's timeout would).
   */
  @Test
  void aTypoInTheStoreSchemeIsReportedAtOnceWithoutAMetastoreMajority() throws Exception {
    Launch.Result r =
        node(
            Duration.ofSeconds(20),
            "--peers",
            threePeers(),
            "--http-port",
            Integer.toString(freePort()),
            "--store",
            "fiel:///tmp/loam-typo");
    assertThat(r.exitCode()).as("%s", r).hasValue(2);
    assertThat(r.lines().get(0))
        .startsWith("loam node: --store: no object store for scheme fiel (known: ")
        .endsWith(": fiel:///tmp/loam-typo");
    assertThat(r.output()).doesNotContain("metastore role");
    assertThat(dir.resolve("n1")).doesNotExist();
  }

  @Test
  void aNodeWithoutAMetastoreLeaderExitsNamingTheStartTimeout() throws Exception {
    int raftPort = freePort();
    Launch.Result r =
        node(
            "--peers",
            "n1=127.0.0.1:"
                + raftPort
                + ",n2=127.0.0.1:"
                + freePort()
                + ",n3=127.0.0.1:"
                + freePort(),
            "--http-port",
            Integer.toString(freePort()),
            "--start-timeout-s",
            "1");
    assertThat(r.exitCode()).as("%s", r).hasValue(1);
    assertThat(r.lines())
        .as("%s", r)
        .anyMatch(
            l ->
                l.startsWith(
                    "loam node: n1 could not start: --start-timeout-s 1: UNAVAILABLE: no metastore"
                        + " leader within the start timeout"));
    assertPortFree(raftPort);
  }

  @Test
  void aFaultFileInAMissingDirectoryOrWithBadRatesIsReportedAtOnce() throws Exception {
    Path missing = dir.resolve("no-such-dir").resolve("faults.properties");
    Launch.Result r =
        node(
            Duration.ofSeconds(20),
            "--peers",
            threePeers(),
            "--http-port",
            Integer.toString(freePort()),
            "--fault-file",
            missing.toString());
    assertThat(r.exitCode()).as("%s", r).hasValue(2);
    assertThat(r.lines().get(0))
        .isEqualTo(
            "loam node: --fault-file: no such directory " + missing.getParent() + ": " + missing);

    Path bad = Files.writeString(dir.resolve("bad.properties"), "write_unavailable=2\n");
    Launch.Result r2 =
        node(
            Duration.ofSeconds(20),
            "--peers",
            threePeers(),
            "--http-port",
            Integer.toString(freePort()),
            "--fault-file",
            bad.toString());
    assertThat(r2.exitCode()).as("%s", r2).hasValue(2);
    assertThat(r2.lines().get(0))
        .startsWith("loam node: --fault-file: ")
        .contains("write_unavailable");
  }

  private Launch.Result node(String... args) throws IOException, InterruptedException {
    return node(EXIT_WITHIN, args);
  }

  private Launch.Result node(Duration timeout, String... args)
      throws IOException, InterruptedException {
    java.util.List<String> all =
        new java.util.ArrayList<>(
            java.util.List.of("--id", "n1", "--data-dir", dir.resolve("n1").toString()));
    all.addAll(java.util.List.of(args));
    if (!all.contains("--store")) {
      all.addAll(java.util.List.of("--store", dir.resolve("store").toUri().toString()));
    }
    return Launch.run(timeout, dir, LoamNodeMain.class.getName(), all.toArray(String[]::new));
  }

  private static String threePeers() throws IOException {
    return "n1=127.0.0.1:"
        + freePort()
        + ",n2=127.0.0.1:"
        + freePort()
        + ",n3=127.0.0.1:"
        + freePort();
  }

  private static ServerSocket bindLoopback(int port) throws IOException {
    return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
  }

  static int freePort() throws IOException {
    try (ServerSocket s = bindLoopback(0)) {
      return s.getLocalPort();
    }
  }

  /** Ratis binds its peer port on every interface: the wildcard bind proves it is free. */
  private static void assertPortFree(int port) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(port));
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }
}
