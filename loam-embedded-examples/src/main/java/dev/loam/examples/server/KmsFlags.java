package dev.loam.examples.server;

import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.Pkcs12KeyManagementService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The key-management flags of {@code loam node} and {@code loam server} (docs/security.md, "Data at
 * rest"; docs/reference/kms.md): {@code --kms-keystore FILE} names the local PKCS#12 key store that
 * holds the namespaces' master keys (created on the first key), {@code --kms-password-file FILE}
 * the file whose first line is its password (never a flag value, which any user of the host can
 * read in the process list), and {@code --kms-timeout-ms} the bound of one namespace's KMS call.
 * Without {@code --kms-keystore} the node has no KMS: it writes and reads plain namespaces only.
 * Both files are checked while the command line is parsed.
 */
final class KmsFlags {
  private KmsFlags() {}

  /** What the flags give: the key store, its password and the KMS timeout. */
  record Settings(Path keystore, char[] password, Duration timeout) {
    /** Opens the PKCS#12 KMS; the caller closes it after the node. */
    KeyManagementService open() {
      return new Pkcs12KeyManagementService(keystore, password);
    }
  }

  /** The three flags of a command. */
  record Options(Flag<Path> keystore, Flag<Path> passwordFile, Flag<Duration> timeout) {
    /**
     * The settings of a parsed command line; empty without {@code --kms-keystore}.
     *
     * @throws UsageException naming the flag for a password file without a key store, a key store
     *     without a password file, a directory that does not exist, or an unreadable or empty
     *     password file
     */
    Optional<Settings> settings(ParsedArgs a) {
      Path store = a.get(keystore);
      Path pw = a.get(passwordFile);
      if (store == null) {
        if (pw != null) {
          throw new UsageException(passwordFile.name(), "needs --kms-keystore");
        }
        return Optional.empty();
      }
      if (pw == null) {
        throw new UsageException(keystore.name(), "needs --kms-password-file");
      }
      Path dir = store.toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir)) {
        throw new UsageException(keystore.name(), "the directory of " + store + " does not exist");
      }
      if (Files.isDirectory(store)) {
        throw new UsageException(keystore.name(), store + " is a directory, not a key store file");
      }
      String line;
      try {
        line = Files.readAllLines(pw, StandardCharsets.UTF_8).stream().findFirst().orElse("");
      } catch (IOException e) {
        throw new UsageException(passwordFile.name(), "cannot read " + pw + ": " + e, e);
      }
      if (line.isEmpty()) {
        throw new UsageException(passwordFile.name(), pw + " has no password on its first line");
      }
      return Optional.of(new Settings(store, line.toCharArray(), a.get(timeout)));
    }
  }

  /** Declares the flags on {@code cmd}. */
  static Options declare(Command cmd) {
    return new Options(
        cmd.optional(
            "--kms-keystore",
            "FILE",
            Values.path(),
            "none",
            "a PKCS#12 key store holding the namespaces' master keys (created on first use);"
                + " enables encrypted namespaces (docs/security.md)"),
        cmd.optional(
            "--kms-password-file",
            "FILE",
            Values.path(),
            "none",
            "a file whose first line is the --kms-keystore password"),
        cmd.flag(
            "--kms-timeout-ms",
            "MS",
            Values.millis(1, 600_000),
            Duration.ofSeconds(5),
            "the longest one namespace's KMS call may take before its appends fail"));
  }
}
