package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpResponseStatus;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The {@code Authorization} header parser, fuzzed: random strings and single mutations of a valid
 * header either parse to a well-formed token or are refused with the one typed refusal (401
 * unauthenticated, never another exception), and a refusal's message never repeats the header.
 */
class BearerTokenPropertyTest {
  static final String ID = "abcdefghijklmnop";
  static final String SECRET = "Zm9vYmFyYmF6cXV4LXNlY3JldC1ieXRlcy0xMjM0NTY3";

  @Example
  void aValidHeaderParsesAndMasksItsSecret() {
    BearerToken t = BearerToken.parse("Bearer " + ID + "." + SECRET);
    assertThat(t.keyId()).isEqualTo(ID);
    assertThat(t.secret()).isEqualTo(SECRET);
    assertThat(t.toString()).doesNotContain(SECRET);
    assertThat(BearerToken.parse("bearer   " + ID + "." + SECRET + "  ").secret())
        .isEqualTo(SECRET);
  }

  @Example
  void missingAndOtherSchemesAreRefused() {
    for (String h :
        new String[] {
          null,
          "",
          "Basic " + ID + ":" + SECRET,
          "Bearer",
          "Bearer ",
          "Bearer " + ID,
          "Bearer ." + SECRET,
          "Bearer " + ID + ".",
          "Bearer " + ID + "." + SECRET + "." + SECRET,
          "Bearer " + ID + "." + SECRET + "=",
          "Bearer " + "a".repeat(600)
        }) {
      assertRefused(h);
    }
  }

  @Property(tries = 2000)
  void randomHeadersParseOrAreRefusedTyped(@ForAll("headers") String header) {
    check(header);
  }

  @Property(tries = 2000)
  void mutatedValidHeadersParseOrAreRefusedTyped(@ForAll("mutated") String header) {
    check(header);
  }

  private static void check(String header) {
    BearerToken t;
    try {
      t = BearerToken.parse(header);
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(HttpResponseStatus.UNAUTHORIZED);
      assertThat(e.code()).isEqualTo("unauthenticated");
      String token = header.length() > 7 ? header.substring(7).strip() : "";
      if (token.length() >= 8) {
        assertThat(e.getMessage()).doesNotContain(token);
      }
      return;
    }
    // Parsed: both parts non-empty base64url, and together exactly the header's token.
    assertThat(t.keyId()).isNotEmpty().matches("[A-Za-z0-9_-]+");
    assertThat(t.secret()).isNotEmpty().matches("[A-Za-z0-9_-]+");
    assertThat(header.strip()).endsWith(t.keyId() + "." + t.secret());
  }

  private static void assertRefused(String header) {
    try {
      BearerToken.parse(header);
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(HttpResponseStatus.UNAUTHORIZED);
      if (header != null && header.contains(SECRET)) {
        assertThat(e.getMessage()).doesNotContain(SECRET);
      }
      return;
    }
    throw new AssertionError("accepted header=" + header);
  }

  @Provide
  Arbitrary<String> headers() {
    Arbitrary<String> any = Arbitraries.strings().ofMaxLength(80);
    Arbitrary<String> ascii = Arbitraries.strings().ascii().ofMaxLength(80);
    Arbitrary<String> bearerish =
        Combinators.combine(
                Arbitraries.of("Bearer ", "bearer ", "BEARER ", "Bearer", "Bear ", " Bearer  "),
                Arbitraries.strings().withChars("abcXYZ019-_.= \t\u00e9\u0000").ofMaxLength(70))
            .as(String::concat);
    return Arbitraries.oneOf(any, ascii, bearerish);
  }

  @Provide
  Arbitrary<String> mutated() {
    String valid = "Bearer " + ID + "." + SECRET;
    Arbitrary<Integer> at = Arbitraries.integers().between(0, valid.length() - 1);
    Arbitrary<Character> ch = Arbitraries.chars();
    Arbitrary<String> replaced =
        Combinators.combine(at, ch)
            .as((i, c) -> valid.substring(0, i) + c + valid.substring(i + 1));
    Arbitrary<String> inserted =
        Combinators.combine(at, ch).as((i, c) -> valid.substring(0, i) + c + valid.substring(i));
    Arbitrary<String> deleted = at.map(i -> valid.substring(0, i) + valid.substring(i + 1));
    Arbitrary<String> cut = at.map(i -> valid.substring(0, i));
    return Arbitraries.oneOf(replaced, inserted, deleted, cut);
  }
}
