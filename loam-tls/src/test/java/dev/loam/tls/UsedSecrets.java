package dev.loam.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Records the secrets a module's tests used (API key secrets, passwords), one a line, in {@code
 * target/used-secrets.txt} of the module under test, so that the suite's secret scan (in
 * loam-dependency-tests, the last module built) can check that none of them appears in any test's
 * output or report. Only the modules that create secrets write the file; the scan reads every
 * module's.
 */
public final class UsedSecrets {
  /** The file, relative to a module's base directory (Maven runs tests there). */
  public static final String FILE = "target/used-secrets.txt";

  private UsedSecrets() {}

  /** Appends {@code secret} to this module's file; returns it, for use inline. */
  public static synchronized String record(String secret) {
    if (secret == null || secret.isEmpty()) {
      return secret;
    }
    Path f = Path.of(FILE);
    try {
      Files.createDirectories(f.toAbsolutePath().getParent());
      Files.writeString(
          f,
          secret + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record a used secret in " + f.toAbsolutePath(), e);
    }
    return secret;
  }
}
