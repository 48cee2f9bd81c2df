package dev.loam.dependencytests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Scans the test output of every module of a build for the secrets the tests used. Each module's
 * tests record the secrets they create or present in {@code target/used-secrets.txt} (UsedSecrets
 * in loam-tls's test-jar); surefire writes each test class's output, log lines included, to {@code
 * target/surefire-reports/*-output.txt} and its results, failure messages included, beside it. A
 * finding is a report file that holds any recorded secret, whichever module recorded it.
 *
 * <p>Findings name the file and line, and the secret only by its first four characters, so that the
 * scan's own report does not leak what it found.
 */
final class SecretScan {
  /** Secrets shorter than this are not scanned for: they would match by chance. */
  static final int MIN_SECRET_LENGTH = 12;

  private SecretScan() {}

  /** A report line holding a secret. */
  record Finding(Path file, int line, String secretPrefix) {
    @Override
    public String toString() {
      return file + ":" + line + " holds a secret starting " + secretPrefix + "...";
    }
  }

  /**
   * What a scan saw: the modules that recorded secrets, how many distinct secrets, the report files
   * read, the modules that recorded secrets but have no reports (their output cannot be checked),
   * and the findings.
   */
  record Result(
      List<String> modulesWithSecrets,
      int secrets,
      int filesScanned,
      List<String> modulesWithoutReports,
      List<Finding> findings) {
    /** One paragraph for the test log: what was scanned, never a secret. */
    String summary() {
      return "scanned "
          + filesScanned
          + " report files for "
          + secrets
          + " secrets recorded by "
          + modulesWithSecrets
          + (modulesWithoutReports.isEmpty() ? "" : "; no reports in " + modulesWithoutReports)
          + "; findings: "
          + findings.size();
    }
  }

  /** Scans every module directory directly under {@code root}. */
  static Result scan(Path root) throws IOException {
    List<Path> modules;
    try (Stream<Path> s = Files.list(root)) {
      modules = s.filter(p -> Files.isDirectory(p.resolve("target"))).sorted().toList();
    }
    Set<String> secrets = new LinkedHashSet<>();
    List<String> withSecrets = new ArrayList<>();
    List<String> withoutReports = new ArrayList<>();
    for (Path m : modules) {
      Path f = m.resolve("target/used-secrets.txt");
      if (Files.isRegularFile(f)) {
        boolean any = false;
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          String t = line.strip();
          if (t.length() >= MIN_SECRET_LENGTH) {
            secrets.add(t);
            any = true;
          }
        }
        if (any) {
          withSecrets.add(m.getFileName().toString());
          if (reports(m).isEmpty()) {
            withoutReports.add(m.getFileName().toString());
          }
        }
      }
    }
    List<Finding> findings = new ArrayList<>();
    int files = 0;
    for (Path m : modules) {
      for (Path r : reports(m)) {
        files++;
        findings.addAll(scanFile(r, secrets));
      }
    }
    return new Result(withSecrets, secrets.size(), files, withoutReports, findings);
  }

  /** Every file of a module's surefire and failsafe reports. */
  static List<Path> reports(Path module) throws IOException {
    List<Path> out = new ArrayList<>();
    for (String dir : List.of("target/surefire-reports", "target/failsafe-reports")) {
      Path d = module.resolve(dir);
      if (Files.isDirectory(d)) {
        try (Stream<Path> s = Files.walk(d)) {
          s.filter(Files::isRegularFile).sorted().forEach(out::add);
        }
      }
    }
    return out;
  }

  static List<Finding> scanFile(Path file, Set<String> secrets) throws IOException {
    // Bytes as ISO-8859-1: every byte maps to one char, so ASCII secrets are found in any encoding
    // a report may have, and a malformed file cannot stop the scan.
    String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    List<Finding> out = new ArrayList<>();
    for (String s : secrets) {
      int at = text.indexOf(s);
      while (at >= 0) {
        out.add(new Finding(file, lineOf(text, at), s.substring(0, 4)));
        at = text.indexOf(s, at + s.length());
      }
    }
    return out;
  }

  private static int lineOf(String text, int index) {
    int line = 1;
    for (int i = 0; i < index; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }
}
