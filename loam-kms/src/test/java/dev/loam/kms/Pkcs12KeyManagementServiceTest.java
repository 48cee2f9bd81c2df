package dev.loam.kms;

import static dev.loam.kms.KmsContractTest.assertFailsWith;
import static dev.loam.kms.KmsContractTest.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.CorruptionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Collections;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the kit cannot see from outside: the file's contents, reopening, a wrong password. */
class Pkcs12KeyManagementServiceTest {
  static Path shared;
  static Pkcs12KeyManagementService sharedKms;

  @TempDir Path dir;

  @BeforeContainer
  static void open() throws Exception {
    shared = Files.createTempDirectory("loam-kms");
    sharedKms = new Pkcs12KeyManagementService(shared.resolve("k.p12"), "pw".toCharArray());
    await(sharedKms.create("ns"));
  }

  @AfterContainer
  static void close() {
    sharedKms.close();
  }

  /** The wrapped-key parser: arbitrary bytes fail with corruption, never anything else. */
  @Property(tries = 300)
  void arbitraryBytesNeverUnwrap(@ForAll @Size(max = 120) byte[] junk) {
    CorruptionException e =
        assertFailsWith(CorruptionException.class, () -> sharedKms.unwrap("ns", junk));
    assertThat(e.getMessage()).contains("namespace=ns");
  }

  @Test
  void keysSurviveReopeningAndDestroyRemovesTheMaterialFromTheFile() throws Exception {
    Path file = dir.resolve("keys.p12");
    byte[] w;
    try (Pkcs12KeyManagementService kms =
        new Pkcs12KeyManagementService(file, "pw".toCharArray())) {
      await(kms.create("ns-a"));
      await(kms.rotate("ns-a"));
      await(kms.create("ns-b"));
      w = await(kms.wrap("ns-a", new byte[] {1, 2, 3}));
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(file)) {
      ks.load(in, "pw".toCharArray());
    }
    String a = "loam." + HexFormat.of().formatHex("ns-a".getBytes());
    assertThat(Collections.list(ks.aliases())).contains(a + ".v1", a + ".v2");
    try (Pkcs12KeyManagementService kms =
        new Pkcs12KeyManagementService(file, "pw".toCharArray())) {
      assertThat(await(kms.unwrap("ns-a", w))).containsExactly(1, 2, 3);
      await(kms.destroy("ns-a"));
    }
    try (var in = Files.newInputStream(file)) {
      ks.load(in, "pw".toCharArray());
    }
    assertThat(Collections.list(ks.aliases()))
        .doesNotContain(a + ".v1", a + ".v2")
        .contains(a + ".destroyed");
  }

  @Test
  void aWrongPasswordIsReportedAsAnUnreadableStore() {
    Path file = dir.resolve("keys.p12");
    try (Pkcs12KeyManagementService kms =
        new Pkcs12KeyManagementService(file, "pw".toCharArray())) {
      await(kms.create("ns-a"));
    }
    try (Pkcs12KeyManagementService kms =
        new Pkcs12KeyManagementService(file, "wrong".toCharArray())) {
      CorruptionException e = assertFailsWith(CorruptionException.class, () -> kms.current("ns-a"));
      assertThat(e.getMessage()).contains("wrong password").contains("keys.p12");
    }
  }
}
