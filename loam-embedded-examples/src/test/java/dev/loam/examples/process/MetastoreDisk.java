package dev.loam.examples.process;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A size-limited filesystem under a node's metastore directory, so a test can fill the disk the
 * metastore's Raft log is written to and free it again while the node runs: a tmpfs mounted with
 * {@code size=} at {@code <data-dir>/meta} before the node starts. It stays mounted across the
 * node's restarts (the replica keeps its log, as on a real disk) and is unmounted when the cluster
 * closes.
 *
 * <p>Mounting needs root (or {@code CAP_SYS_ADMIN}); the test machines run as root. Without it
 * {@link #mount} fails naming the command and its output rather than running the test on an
 * unlimited disk.
 */
final class MetastoreDisk {
  private static final String FILLER = "disk-full.filler";

  private final Path dir;

  private MetastoreDisk(Path dir) {
    this.dir = dir;
  }

  /** Mounts a tmpfs of {@code bytes} at {@code dir} (created if missing). */
  static MetastoreDisk mount(Path dir, long bytes) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    run(List.of("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", dir.toString()));
    return new MetastoreDisk(dir);
  }

  /**
   * Fills the disk: writes a filler file until the filesystem refuses with "no space left"; returns
   * how many bytes it took. From here on every write of the metastore's log fails.
   */
  long fill() throws IOException {
    long written = 0;
    byte[] block = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(dir.resolve(FILLER))) {
      while (true) {
        out.write(block);
        written += block.length;
      }
    } catch (IOException e) {
      if (written == 0 && !String.valueOf(e.getMessage()).contains("No space left")) {
        throw e;
      }
    }
    // The last partial block may have gone in; top up byte by byte so nothing is left.
    try (OutputStream out =
        Files.newOutputStream(dir.resolve(FILLER), java.nio.file.StandardOpenOption.APPEND)) {
      while (true) {
        out.write(0);
        out.flush();
        written++;
      }
    } catch (IOException e) {
      // Full.
    }
    return written;
  }

  /** Frees what {@link #fill} took. */
  void free() throws IOException {
    Files.deleteIfExists(dir.resolve(FILLER));
  }

  /** Unmounts (lazily, so a process still holding files cannot keep it). */
  void unmount() {
    try {
      run(List.of("umount", "-l", dir.toString()));
    } catch (IOException | InterruptedException e) {
      // Best effort at teardown; the mount lives in a temporary directory.
    }
  }

  private static void run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", cmd)
              + " failed (a size-limited metastore disk needs root or CAP_SYS_ADMIN): "
              + out.strip());
    }
  }
}
