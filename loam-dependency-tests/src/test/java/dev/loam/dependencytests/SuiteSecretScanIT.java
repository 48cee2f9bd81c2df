package dev.loam.dependencytests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * No secret a test used appears in any test output or report of the build: this module is built
 * last, so in a full {@code mvn verify} every other module's tests have run and left their reports
 * and recorded secrets ({@link SecretScan}). Run alone, it scans what earlier builds left in the
 * other modules' {@code target} directories, and says so: the summary (also written to {@code
 * target/secret-scan.txt}) names the modules whose secrets it checked, and with none, why nothing
 * was checked.
 */
class SuiteSecretScanIT {
  @Test
  void noRecordedSecretAppearsInAnyTestOutput() throws Exception {
    Path root = Path.of("..").toAbsolutePath().normalize();
    SecretScan.Result r = SecretScan.scan(root);
    String summary =
        r.modulesWithSecrets().isEmpty()
            ? "no module under "
                + root
                + " recorded secrets (target/used-secrets.txt): nothing was checked; run the"
                + " modules whose tests create keys (loam-core, loam-http, loam-kafka,"
                + " loam-embedded-examples) before this one"
            : r.summary();
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/secret-scan.txt"), summary + "\n", StandardCharsets.UTF_8);
    System.out.println("secret scan: " + summary);
    assertThat(r.modulesWithoutReports())
        .as("modules that recorded secrets but left no test reports to check")
        .isEmpty();
    assertThat(r.findings()).as("report lines holding a secret a test used").isEmpty();
  }
}
