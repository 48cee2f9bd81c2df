package dev.loam.examples.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * libfaketime (Debian's {@code libfaketime} package) for tests that step one process's wall clock:
 * the library is preloaded into the process and reads its offset from a file once a second, so a
 * test steps the clock of a running JVM by rewriting that file. Only the wall clock moves ({@code
 * FAKETIME_DONT_FAKE_MONOTONIC}): {@code System.currentTimeMillis} and {@code Instant.now} jump,
 * {@code System.nanoTime} does not — what an NTP step does to a host. Installed with apt-get on
 * first use when missing (the tests run as root on a fresh Debian machine).
 */
final class Faketime {
  static final String PACKAGE = "libfaketime";
  private static final String SO = "libfaketime.so.1";
  private static Path library;

  private Faketime() {}

  /** The preloadable library, installing the package if dpkg does not list it. */
  static synchronized Path library() throws IOException, InterruptedException {
    if (library == null) {
      Path found = installed();
      if (found == null) {
        run(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "-q", PACKAGE));
        found = installed();
        if (found == null) {
          run(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "update", "-q"));
          run(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "-q", PACKAGE));
          found = installed();
        }
        if (found == null) {
          throw new IOException(
              "libfaketime is not installed and apt-get could not install " + PACKAGE);
        }
      }
      library = found;
    }
    return library;
  }

  /** Sets the environment that makes a process read its wall-clock offset from {@code file}. */
  static void configure(Map<String, String> env, Path library, Path file) {
    env.put("LD_PRELOAD", library.toString());
    env.put("FAKETIME_TIMESTAMP_FILE", file.toAbsolutePath().toString());
    env.put("FAKETIME_CACHE_DURATION", "1");
    env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    // libfaketime 0.9.10's fix for condition variables on the monotonic clock, on by default,
    // hangs the JVM's timed waits once the monotonic clock is left alone: no Ratis election ever
    // completes. Off, timed waits use the real monotonic clock, which is what is wanted.
    env.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  /** Writes {@code offset} (whole seconds, signed) atomically, as libfaketime's "+Ns" syntax. */
  static void writeOffset(Path file, Duration offset) throws IOException {
    long s = offset.toSeconds();
    Path part = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(part, (s >= 0 ? "+" : "") + s + "s\n", StandardCharsets.UTF_8);
    Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Path installed() throws IOException, InterruptedException {
    Process q = new ProcessBuilder("dpkg-query", "-L", PACKAGE).redirectErrorStream(true).start();
    String out = new String(q.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!q.waitFor(60, TimeUnit.SECONDS) || q.exitValue() != 0) {
      return null;
    }
    for (String line : out.split("\n")) {
      Path p = Path.of(line.trim());
      if (line.trim().endsWith("/" + SO) && Files.isRegularFile(p)) {
        return p;
      }
    }
    return null;
  }

  private static void run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
    if (!p.waitFor(15, TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
  }
}
