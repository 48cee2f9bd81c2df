package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs the curl binary: status, headers and body of one request. Public (in the test-jar) for the
 * launchers' tests in loam-embedded-examples.
 */
public final class Curl {
  public record Result(int status, String headers, String body) {
    public String header(String name) {
      for (String line : headers.split("\r\n")) {
        int c = line.indexOf(':');
        if (c > 0 && line.substring(0, c).trim().equalsIgnoreCase(name)) {
          return line.substring(c + 1).trim();
        }
      }
      return null;
    }
  }

  private Curl() {}

  /** Fails the test with a clear message when curl is not installed. */
  public static void requireCurl() {
    try {
      Process p = new ProcessBuilder("curl", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      assertThat(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0)
          .as("curl --version must succeed")
          .isTrue();
    } catch (IOException e) {
      throw new AssertionError(
          "curl is required by the HTTP API tests and is not installed or not on PATH: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** {@code curl -sS -i [args...] url}; the arguments are as a shell user would type them. */
  public static Result run(String... args) {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-i", "--max-time", "30"));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
      byte[] out = p.getInputStream().readAllBytes();
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(40, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new AssertionError("curl failed " + cmd + ": " + err);
      }
      String all = new String(out, StandardCharsets.UTF_8);
      // Skip interim 100 Continue responses.
      while (all.startsWith("HTTP/1.1 100")) {
        all = all.substring(all.indexOf("\r\n\r\n") + 4);
      }
      int split = all.indexOf("\r\n\r\n");
      String head = all.substring(0, split);
      String body = all.substring(split + 4);
      int status = Integer.parseInt(head.split(" ", 3)[1]);
      return new Result(status, head.toLowerCase(Locale.ROOT), body);
    } catch (IOException e) {
      throw new AssertionError("cannot run curl " + cmd + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
