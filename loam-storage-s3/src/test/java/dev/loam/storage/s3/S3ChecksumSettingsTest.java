package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.storage.s3.S3Checksums.PartChecksum;
import dev.loam.storage.s3.S3Checksums.When;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The checksum parameters of {@code s3://} URIs; no sockets. */
class S3ChecksumSettingsTest {
  private static S3StoreSettings parse(String uri) {
    return S3StoreSettings.fromUri(URI.create(uri), Map.of());
  }

  @Test
  void theDefaultsAreTheSdksChecksumsAndCrc32Parts() {
    assertThat(parse("s3://b-1").checksums()).isEqualTo(S3Checksums.DEFAULTS);
    assertThat(S3Checksums.DEFAULTS)
        .isEqualTo(new S3Checksums(When.WHEN_SUPPORTED, When.WHEN_SUPPORTED, PartChecksum.CRC32));
  }

  @Test
  void theRadosgwSettingsParse() {
    S3StoreSettings s =
        parse(
            "s3://b-1?request-checksum=when-required&response-checksum=when-required"
                + "&part-checksum=none");
    assertThat(s.checksums()).isEqualTo(S3Checksums.WHEN_REQUIRED);
    assertThat(s.toString())
        .contains(
            "checksums=request-checksum=when-required&response-checksum=when-required"
                + "&part-checksum=none");
  }

  @Test
  void eachParameterSetsOnlyItsOwnPart() {
    assertThat(parse("s3://b-1?request-checksum=when-required").checksums())
        .isEqualTo(S3Checksums.DEFAULTS.withRequestCalculation(When.WHEN_REQUIRED));
    assertThat(parse("s3://b-1?response-checksum=when-required").checksums())
        .isEqualTo(S3Checksums.DEFAULTS.withResponseValidation(When.WHEN_REQUIRED));
    assertThat(parse("s3://b-1?part-checksum=sha256").checksums())
        .isEqualTo(S3Checksums.DEFAULTS.withPartChecksum(PartChecksum.SHA256));
    assertThat(parse("s3://b-1?part-checksum=CRC32C").checksums().partChecksum())
        .isEqualTo(PartChecksum.CRC32C);
  }

  @Test
  void badValuesAreInvalidAndNameTheParameterAndTheChoices() {
    assertInvalid("s3://b-1?request-checksum=always", "request-checksum=always", "when-required");
    assertInvalid("s3://b-1?response-checksum=", "response-checksum=", "when-supported");
    assertInvalid("s3://b-1?part-checksum=md5", "part-checksum=md5", "crc32, crc32c");
    assertInvalid(
        "s3://b-1?part-checksum=none&part-checksum=crc32", "given twice", "part-checksum");
  }

  @Test
  void theSettingsReachTheClientWithoutIo() {
    S3StoreSettings s =
        parse("s3://b-1?region=us-east-1&request-checksum=when-required&part-checksum=none")
            .withCredentials("id", "secret");
    try (S3ObjectStore store = new S3ObjectStore(s, Runnable::run)) {
      assertThat(store.settings().checksums().partChecksum()).isEqualTo(PartChecksum.NONE);
    }
  }

  @Property(tries = 300)
  void everyValueRoundTripsThroughItsUriForm(
      @ForAll When request, @ForAll When response, @ForAll PartChecksum part) {
    S3Checksums c = new S3Checksums(request, response, part);
    assertThat(parse("s3://b-1?" + c).checksums()).isEqualTo(c);
  }

  @Property(tries = 500)
  void anyOtherValueIsInvalidNamingTheParameter(
      @ForAll("parameters") String parameter, @ForAll("noise") String value) {
    boolean known =
        parameter.equals("part-checksum")
            ? java.util.Arrays.stream(PartChecksum.values())
                .anyMatch(p -> p.uriValue().equalsIgnoreCase(value))
            : value.equalsIgnoreCase("when-supported") || value.equalsIgnoreCase("when-required");
    String uri = "s3://b-1?" + parameter + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    if (known) {
      parse(uri);
      return;
    }
    assertThatThrownBy(() -> parse(uri))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(parameter + "=");
  }

  @Provide
  Arbitrary<String> parameters() {
    return Arbitraries.of("request-checksum", "response-checksum", "part-checksum");
  }

  @Provide
  Arbitrary<String> noise() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(60),
        Arbitraries.of(
            "when-supported", "WHEN-REQUIRED", "crc32", "none", "sha1", "when_required"));
  }

  private static void assertInvalid(String uri, String... naming) {
    assertThatThrownBy(() -> parse(uri))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .satisfies(
            e -> {
              for (String n : naming) {
                assertThat(e.getMessage()).contains(n);
              }
            });
  }
}
