package dev.loam.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What makes a start try again on fresh ports, and the clean-up before it. */
class LoopbackPortsTest {

  @Test
  void aBindFailureAnywhereInTheCausesIsAPortTaken() {
    assertThat(LoopbackPorts.portTaken(new IllegalStateException(new BindException("x")))).isTrue();
    assertThat(
            LoopbackPorts.portTaken(
                new RuntimeException("start", new IOException("Address already in use"))))
        .isTrue();
    assertThat(LoopbackPorts.portTaken(new IllegalStateException("directory locked"))).isFalse();
  }

  @Test
  void deleteTreeRemovesADirectoryAndIgnoresAMissingOne(@TempDir Path dir) throws IOException {
    Path tree = dir.resolve("n0");
    Files.createDirectories(tree.resolve("a/b"));
    Files.writeString(tree.resolve("a/b/log"), "x");
    LoopbackPorts.deleteTree(tree);
    assertThat(tree).doesNotExist();
    LoopbackPorts.deleteTree(tree);
  }
}
