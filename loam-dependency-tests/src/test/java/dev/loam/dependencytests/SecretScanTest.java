package dev.loam.dependencytests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scanner itself, on made-up module trees: a secret one module recorded is found in any
 * module's output or report (and named only by its prefix), a clean tree has no finding, and a
 * module that recorded secrets without leaving reports is named.
 */
class SecretScanTest {
  @TempDir Path root;

  static final String SECRET = "Zq3kVn0pWmX8rT2yLs6hJd4fGb1cAe9uIo7PlKjHgFd";

  private Path module(String name, String secrets) throws Exception {
    Path m = Files.createDirectories(root.resolve(name).resolve("target/surefire-reports"));
    if (secrets != null) {
      Files.writeString(root.resolve(name).resolve("target/used-secrets.txt"), secrets);
    }
    return m;
  }

  @Test
  void findsARecordedSecretInAnyModulesOutput() throws Exception {
    Path a = module("mod-a", SECRET + "\nshort\n");
    Path b = module("mod-b", null);
    Files.writeString(a.resolve("dev.x.ATest-output.txt"), "a clean line\n");
    Files.writeString(
        b.resolve("dev.x.BTest-output.txt"),
        "line one\n[main] INFO key accepted secret=" + SECRET + "\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        b.resolve("TEST-dev.x.BTest.xml"), "<failure message=\"expected " + SECRET + "\"/>");
    SecretScan.Result r = SecretScan.scan(root);
    assertThat(r.modulesWithSecrets()).containsExactly("mod-a");
    assertThat(r.secrets()).isEqualTo(1);
    assertThat(r.filesScanned()).isEqualTo(3);
    assertThat(r.findings()).hasSize(2);
    assertThat(r.findings().get(0).file().getFileName()).hasToString("TEST-dev.x.BTest.xml");
    SecretScan.Finding f = r.findings().get(1);
    assertThat(f.file().getFileName()).hasToString("dev.x.BTest-output.txt");
    assertThat(f.line()).isEqualTo(2);
    assertThat(f.toString()).contains("Zq3k").doesNotContain(SECRET);
    assertThat(r.summary()).doesNotContain(SECRET).contains("findings: 2");
  }

  @Test
  void aCleanTreeHasNoFindingAndAModuleWithoutReportsIsNamed() throws Exception {
    Path a = module("mod-a", SECRET + "\n");
    Files.writeString(a.resolve("dev.x.ATest-output.txt"), "nothing to see\n");
    Path c = Files.createDirectories(root.resolve("mod-c").resolve("target"));
    Files.writeString(c.resolve("used-secrets.txt"), "Another-Secret-Of-Mod-C-1234567\n");
    SecretScan.Result r = SecretScan.scan(root);
    assertThat(r.findings()).isEmpty();
    assertThat(r.modulesWithSecrets()).containsExactly("mod-a", "mod-c");
    assertThat(r.modulesWithoutReports()).containsExactly("mod-c");
  }
}
