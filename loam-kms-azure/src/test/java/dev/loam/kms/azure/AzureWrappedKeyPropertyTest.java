package dev.loam.kms.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * The wrapped-key parser of the Azure implementation: what it encodes decodes to the same version
 * and ciphertext, and any bytes at all either decode to a well-formed wrapped key or fail with
 * {@link CorruptionException} naming the namespace, never another exception.
 */
class AzureWrappedKeyPropertyTest {
  @Provide
  Arbitrary<String> versions() {
    return Arbitraries.strings()
        .withCharRange('0', '9')
        .withCharRange('a', 'z')
        .withCharRange('A', 'Z')
        .ofMinLength(1)
        .ofMaxLength(64);
  }

  @Property(tries = 300)
  void encodedKeysDecodeToTheirParts(
      @ForAll("versions") String version, @ForAll @Size(min = 1, max = 600) byte[] ciphertext) {
    AzureWrappedKey k = AzureWrappedKey.decode(AzureWrappedKey.encode(version, ciphertext), "ns");
    assertThat(k.version()).isEqualTo(version);
    assertThat(k.encryptedKey()).isEqualTo(ciphertext);
  }

  @Property(tries = 1000)
  void anyBytesDecodeOrFailAsCorruption(@ForAll @Size(max = 300) byte[] bytes) {
    Throwable t = catchThrowable(() -> AzureWrappedKey.decode(bytes, "ns-x"));
    if (t == null) {
      AzureWrappedKey k = AzureWrappedKey.decode(bytes, "ns-x");
      assertThat(k.version()).matches("[0-9a-zA-Z]{1,64}");
      assertThat(k.encryptedKey()).isNotEmpty();
      assertThat(AzureWrappedKey.encode(k.version(), k.encryptedKey())).isEqualTo(bytes);
    } else {
      assertThat(t).isInstanceOf(CorruptionException.class).hasMessageContaining("namespace=ns-x");
    }
  }
}
