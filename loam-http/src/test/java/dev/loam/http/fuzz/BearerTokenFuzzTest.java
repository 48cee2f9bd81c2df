package dev.loam.http.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.BearerToken;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the {@code Authorization} header parser ({@link BearerToken#parse}).
 * The input is the header value as ISO-8859-1 (how HTTP/1.1 carries it).
 *
 * <p>Contract: a 401 {@link ApiException} {@code unauthenticated} whose message does not repeat the
 * token, or a token whose id and secret are non-empty base64url and together exactly the header's
 * credential.
 */
class BearerTokenFuzzTest {
  static final java.util.List<String> REFUSALS =
      java.util.List.of(
          "an API key is required: send Authorization: Bearer <id>.<secret>",
          "the Authorization header must use the Bearer scheme",
          "a bearer token is <id>.<secret>, one dot between them",
          "a bearer token holds only base64url characters");

  @DictionaryEntries({"Bearer ", "bearer ", "abcdefghijklmnop", ".", "_", "-", " ", "\t"})
  @FuzzTest
  void authorizationHeader(byte[] input) {
    String header = new String(input, StandardCharsets.ISO_8859_1);
    BearerToken t;
    try {
      t = BearerToken.parse(header);
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(HttpResponseStatus.UNAUTHORIZED);
      assertThat(e.code()).isEqualTo("unauthenticated");
      // Every refusal is one of the parser's fixed texts (the length aside), so none can repeat
      // what the client sent.
      assertThat(
              REFUSALS.stream().anyMatch(e.getMessage()::equals)
                  || e.getMessage().matches("the Authorization header is too long length=\\d+"))
          .as("a fixed refusal text: %s", e.getMessage())
          .isTrue();
      return;
    }
    assertThat(t.keyId()).isNotEmpty().matches("[A-Za-z0-9_-]+");
    assertThat(t.secret()).isNotEmpty().matches("[A-Za-z0-9_-]+");
    assertThat(header.strip()).endsWith(t.keyId() + "." + t.secret());
    // Masked: the id shows, the secret never (it may be a substring of the id, so compare whole).
    assertThat(t.toString()).isEqualTo("BearerToken[keyId=" + t.keyId() + ", secret=***]");
  }
}
