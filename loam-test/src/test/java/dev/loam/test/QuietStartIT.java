package dev.loam.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A clean start logs nothing at WARN or ERROR: no node registers before every replica knows the
 * leader, and each replica's Ratis client addresses that leader first, so the Ratis client has no
 * redirect to log at ERROR. slf4j-simple (this module's test backend) writes to System.err at each
 * call, so the test reads what a start logs by replacing System.err for its duration.
 */
class QuietStartIT {

  @Test
  void aCleanStartOfThreeNodesLogsNoWarningOrError() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(new Tee(original, captured), true, StandardCharsets.UTF_8));
    String startLog;
    try (LoamTestCluster c =
        LoamTestCluster.builder()
            .nodes(3)
            // Generous election timeouts: on a loaded 2-core machine a leader that misses its
            // heartbeats is replaced, and that election's redirects would be logged (correctly).
            .ratisSettings(b -> b.electionTimeout(Duration.ofSeconds(1), Duration.ofSeconds(2)))
            .start()) {
      c.log(0).createNamespace("ns").join();
      c.awaitReplicated(c.consistencyToken(0));
      startLog = captured.toString(StandardCharsets.UTF_8);
    } finally {
      System.setErr(original);
    }
    List<String> loud =
        Arrays.stream(startLog.split("\n"))
            .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
            .collect(Collectors.toList());
    assertThat(startLog).contains("n0: start RPC server");
    assertThat(loud).isEmpty();
  }

  /** Writes to both streams. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }

    @Override
    public void flush() throws java.io.IOException {
      a.flush();
      b.flush();
    }
  }
}
