package dev.loam.examples.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * Runs a launcher's main class in its own JVM (this JVM's {@code java} and class path), as {@code
 * ./loam} would, and collects its exit status and output (stdout and stderr merged). A process
 * still running at the timeout is killed and reported as such, so a test of "it exits" fails rather
 * than hangs.
 */
public final class Launch {
  /** What the process did: its exit status (empty if it was still running) and its output. */
  public record Result(OptionalInt exitCode, String output, Duration took) {
    public List<String> lines() {
      return output.lines().toList();
    }

    @Override
    public String toString() {
      return "exit=" + exitCode + " after " + took.toMillis() + " ms, output:\n" + output;
    }
  }

  private Launch() {}

  public static Result run(Duration timeout, Path workDir, String mainClass, String... args)
      throws IOException, InterruptedException {
    return run(timeout, workDir, List.of(), mainClass, args);
  }

  /** As {@link #run(Duration, Path, String, String...)}, with {@code extraClassPath} first. */
  public static Result run(
      Duration timeout, Path workDir, List<Path> extraClassPath, String mainClass, String... args)
      throws IOException, InterruptedException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    StringBuilder cp = new StringBuilder();
    extraClassPath.forEach(p -> cp.append(p.toAbsolutePath()).append(File.pathSeparator));
    cp.append(System.getProperty("java.class.path"));
    cmd.addAll(List.of("-cp", cp.toString(), mainClass));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("launch", ".out");
    try {
      long start = System.nanoTime();
      Process p =
          new ProcessBuilder(cmd)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      p.getOutputStream().close();
      boolean exited = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      if (!exited) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
      String text = Files.readString(out, StandardCharsets.UTF_8);
      return new Result(exited ? OptionalInt.of(p.exitValue()) : OptionalInt.empty(), text, took);
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
