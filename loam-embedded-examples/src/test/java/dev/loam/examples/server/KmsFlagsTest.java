package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.cli.UsageException;
import dev.loam.kms.KeyManagementService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam node}'s KMS flags: off by default, a key store with its password file opens the local
 * PKCS#12 KMS (a real one: it creates and wraps a namespace key), and every mistake is a usage
 * error naming the flag before anything starts.
 */
class KmsFlagsTest {
  @TempDir Path dir;

  NodeOptions parse(String... extra) {
    return NodeOptions.parse(LoamNodeMainTest.args("n1", LoamNodeMainTest.THREE, extra));
  }

  @Test
  void withoutAKeyStoreTheNodeHasNoKms() {
    assertThat(parse().kms()).isEmpty();
  }

  @Test
  void aKeyStoreAndItsPasswordFileOpenTheLocalKms() throws Exception {
    Path pw = Files.writeString(dir.resolve("pw"), "s3cret\nignored second line\n");
    NodeOptions o =
        parse(
            "--kms-keystore",
            dir.resolve("keys.p12").toString(),
            "--kms-password-file",
            pw.toString(),
            "--kms-timeout-ms",
            "250");
    KmsFlags.Settings k = o.kms().orElseThrow();
    assertThat(new String(k.password())).isEqualTo("s3cret");
    assertThat(k.timeout()).isEqualTo(Duration.ofMillis(250));
    try (KeyManagementService kms = k.open()) {
      kms.create("tenant").join();
      byte[] wrapped = kms.wrap("tenant", new byte[32]).join();
      assertThat(kms.unwrap("tenant", wrapped).join()).isEqualTo(new byte[32]);
    }
    assertThat(dir.resolve("keys.p12")).exists();
  }

  @Test
  void loamServerTakesTheSameFlags() throws Exception {
    Path pw = Files.writeString(dir.resolve("pw"), "s3cret\n");
    String data = dir.resolve("data").toString();
    assertThat(LoamServerMain.parse(new String[] {"--data-dir", data}).kms()).isEmpty();
    LoamServerMain.Options o =
        LoamServerMain.parse(
            new String[] {
              "--data-dir",
              data,
              "--kms-keystore",
              dir.resolve("keys.p12").toString(),
              "--kms-password-file",
              pw.toString()
            });
    assertThat(o.kms()).isPresent();
    assertThat(o.kms().get().timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThatThrownBy(
            () ->
                LoamServerMain.parse(
                    new String[] {"--data-dir", data, "--kms-password-file", pw.toString()}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("needs --kms-keystore");
  }

  @Test
  void mistakesNameTheFlag() throws Exception {
    Path pw = Files.writeString(dir.resolve("pw"), "s3cret\n");
    Path empty = Files.writeString(dir.resolve("empty"), "");
    String store = dir.resolve("keys.p12").toString();
    assertThatThrownBy(() -> parse("--kms-keystore", store))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--kms-keystore")
        .hasMessageContaining("needs --kms-password-file");
    assertThatThrownBy(() -> parse("--kms-password-file", pw.toString()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--kms-password-file")
        .hasMessageContaining("needs --kms-keystore");
    assertThatThrownBy(
            () ->
                parse(
                    "--kms-keystore",
                    dir.resolve("nope/keys.p12").toString(),
                    "--kms-password-file",
                    pw.toString()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("does not exist");
    assertThatThrownBy(
            () -> parse("--kms-keystore", store, "--kms-password-file", empty.toString()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--kms-password-file")
        .hasMessageContaining("no password");
    assertThatThrownBy(
            () ->
                parse(
                    "--kms-keystore",
                    store,
                    "--kms-password-file",
                    dir.resolve("missing").toString()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("cannot read");
    assertThatThrownBy(
            () ->
                parse(
                    "--kms-keystore",
                    store,
                    "--kms-password-file",
                    pw.toString(),
                    "--kms-timeout-ms",
                    "0"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--kms-timeout-ms");
  }
}
