package dev.loam.kms;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The kit on the local PKCS#12 implementation; a second handle opens the same file. */
class Pkcs12KmsContractTest extends KmsContractTest {
  @TempDir Path dir;

  @Override
  protected KeyManagementService newKms() {
    return new Pkcs12KeyManagementService(dir.resolve("keys.p12"), "changeit".toCharArray());
  }

  @Override
  protected KeyManagementService openAnotherHandle() {
    return new Pkcs12KeyManagementService(dir.resolve("keys.p12"), "changeit".toCharArray());
  }
}
