package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import dev.loam.wal.ulid.Ulid;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** The namespace key file codec (docs/formats/namespace-key-v1.md). */
class NamespaceKeyFilePropertyTest {
  @Provide
  Arbitrary<String> namespaces() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .withChars('-', '.', '_')
        .ofMinLength(1)
        .ofMaxLength(40);
  }

  @Property(tries = 200)
  void roundTrip(
      @ForAll("namespaces") String ns,
      @ForAll long msb,
      @ForAll long lsb,
      @ForAll @Size(min = 1, max = 300) byte[] wrapped) {
    Ulid u = new Ulid(msb, lsb);
    byte[] b = NamespaceKeyFile.encode(new NamespaceKeyFile.Contents(ns, u, wrapped));
    NamespaceKeyFile.Contents c = NamespaceKeyFile.decode(b, "k", ns, u);
    assertThat(c.namespace()).isEqualTo(ns);
    assertThat(c.ulid()).isEqualTo(u);
    assertThat(c.wrapped()).isEqualTo(wrapped);
    // Read under another namespace or ULID: refused, before any KMS call.
    assertThat(catchThrowable(() -> NamespaceKeyFile.decode(b, "k", ns + "x", u)))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("names another key");
  }

  @Example
  void theKeyIsTheOneTheBucketLayoutDocuments() throws java.io.IOException {
    Ulid u = Ulid.parse("01J0GXQ2E4KX9V0M3N5P6R8S9T");
    assertThat(NamespaceKeyFile.key("c1", "tenant", u))
        .isEqualTo("ns/c1/tenant/keys/01J0GXQ2E4KX9V0M3N5P6R8S9T.key");
    String doc =
        java.nio.file.Files.readString(java.nio.file.Path.of("../docs/formats/bucket-layout.md"));
    assertThat(doc).contains("ns/<cluster_id>/<namespace>/keys/<ulid>.key");
  }

  @Property(tries = 50)
  void everyFlipAndEveryTruncationIsDetected(
      @ForAll("namespaces") String ns,
      @ForAll @Size(min = 1, max = 40) byte[] wrapped,
      @ForAll byte mask) {
    byte flip = mask == 0 ? 1 : mask;
    Ulid u = new Ulid(7, 9);
    byte[] b = NamespaceKeyFile.encode(new NamespaceKeyFile.Contents(ns, u, wrapped));
    for (int i = 0; i < b.length; i++) {
      byte[] bad = b.clone();
      bad[i] ^= flip;
      int at = i;
      assertThat(catchThrowable(() -> NamespaceKeyFile.decode(bad, "ns/c/x/keys/k.key", ns, u)))
          .as("flip at %d", at)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("key=ns/c/x/keys/k.key");
    }
    for (int len = 0; len < b.length; len++) {
      byte[] prefix = Arrays.copyOf(b, len);
      assertThat(catchThrowable(() -> NamespaceKeyFile.decode(prefix, "k", ns, u)))
          .isInstanceOf(CorruptionException.class);
    }
  }
}
