package dev.loam.kafka;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * kcat (librdkafka's command-line client) for tests: found on the PATH, or installed from Debian's
 * packages on first use (the tests run as root on a fresh Debian machine; nothing is installed by
 * hand). After an install the binary is the one dpkg says the {@code kcat} package holds, so it is
 * found whatever the PATH.
 */
final class Kcat {
  /** apt-get waits this long for a dpkg lock held by another apt run instead of failing at once. */
  private static final List<String> APT_INSTALL =
      List.of(
          "apt-get",
          "-o",
          "DPkg::Lock::Timeout=300",
          "install",
          "-y",
          "--no-install-recommends",
          "kcat");

  private static Path binary;

  private Kcat() {}

  /** The kcat binary, installing Debian's {@code kcat} package if it is not on the PATH. */
  static synchronized Path binary() throws IOException, InterruptedException {
    if (binary == null) {
      binary = resolve(System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    }
    return binary;
  }

  /**
   * The kcat binary on {@code pathEnv} (a PATH value), else the one the {@code kcat} package
   * installs: {@code apt-get install}, and if that fails (a fresh machine may have no package lists
   * yet) {@code apt-get update} and the install again.
   */
  static Path resolve(String pathEnv) throws IOException, InterruptedException {
    Optional<Path> found = onPath(pathEnv);
    if (found.isPresent()) {
      return found.get();
    }
    Result r = run(APT_INSTALL, null, 900);
    if (r.exit() != 0) {
      Result update = run(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "update"), null, 900);
      r = run(APT_INSTALL, null, 900);
      if (r.exit() != 0) {
        throw new IOException(
            "could not install kcat from Debian's packages: apt-get update said:\n"
                + update.text()
                + "\napt-get install said:\n"
                + r.text());
      }
    }
    return installedBinary();
  }

  /** The first executable {@code kcat} in the directories of {@code pathEnv}. */
  static Optional<Path> onPath(String pathEnv) {
    for (String dir : pathEnv.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path p = Path.of(dir, "kcat");
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The executable the installed {@code kcat} package holds, as dpkg lists its files. */
  private static Path installedBinary() throws IOException, InterruptedException {
    Result files = run(List.of("dpkg-query", "-L", "kcat"), null, 60);
    if (files.exit() == 0) {
      for (String line : files.text().split("\n")) {
        Path p = Path.of(line.trim());
        if (line.trim().endsWith("/bin/kcat") && Files.isExecutable(p)) {
          return p;
        }
      }
    }
    throw new IOException(
        "apt-get installed kcat but dpkg lists no executable bin/kcat in it:\n" + files.text());
  }

  /** What a run printed (stdout and stderr merged, as bytes) and its exit status. */
  record Result(int exit, byte[] output) {
    /** The output as text (UTF-8). */
    String text() {
      return new String(output, StandardCharsets.UTF_8);
    }
  }

  /** Runs kcat with {@code args}, feeding {@code stdin} (may be null), within {@code seconds}. */
  static Result kcat(List<String> args, byte[] stdin, int seconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary().toString());
    cmd.addAll(args);
    return run(cmd, stdin, seconds);
  }

  /**
   * Runs kcat with {@code args} and fails unless it exits 0 and librdkafka logged no error or
   * warning; only stdout is returned (log lines go to stderr), so the bytes are exactly what kcat
   * printed for the records.
   */
  static byte[] kcatOk(List<String> args, byte[] stdin, int seconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary().toString());
    cmd.addAll(args);
    Path out = Files.createTempFile("kcat", ".out");
    Path err = Files.createTempFile("kcat", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd);
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      int exit = await(pb, cmd, stdin, seconds, out, err);
      byte[] bytes = Files.readAllBytes(out);
      String stderr = textOf(err);
      if (exit != 0) {
        throw new IOException("kcat exited " + exit + ": " + cmd + "\nstderr:\n" + stderr);
      }
      for (String line : stderr.split("\n")) {
        // librdkafka's log lines are "%<level>|...": levels 0 to 4 are emergency to warning.
        if (line.matches("%[0-4]\\|.*")) {
          throw new IOException("librdkafka logged a problem: " + cmd + "\nstderr:\n" + stderr);
        }
      }
      return bytes;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static Result run(List<String> cmd, byte[] stdin, int seconds)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("kcat", ".out");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
      pb.redirectOutput(out.toFile());
      int exit = await(pb, cmd, stdin, seconds, out, out);
      return new Result(exit, Files.readAllBytes(out));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static int await(
      ProcessBuilder pb, List<String> cmd, byte[] stdin, int seconds, Path out, Path err)
      throws IOException, InterruptedException {
    Process p = pb.start();
    try (var in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin);
      }
    }
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new IOException(
          "timed out after "
              + seconds
              + " s: "
              + cmd
              + "\nstdout:\n"
              + textOf(out)
              + (err.equals(out) ? "" : "\nstderr:\n" + textOf(err)));
    }
    return p.exitValue();
  }

  private static String textOf(Path file) throws IOException {
    return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
  }
}
