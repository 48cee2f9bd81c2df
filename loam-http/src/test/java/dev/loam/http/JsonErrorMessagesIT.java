package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body that is not JSON is answered 400 {@code malformed_json} with a message naming what is
 * wrong, the line and column, and the member being read, in JSON's terms: never the parser's class
 * names, feature flags or source descriptions.
 */
class JsonErrorMessagesIT {
  /** Fragments of the parser's own wording that must never reach a client. */
  private static final List<String> LEAKS =
      List.of(
          "com.fasterxml",
          "jackson",
          "Jackson",
          "Source:",
          "REDACTED",
          "StreamReadFeature",
          "DeserializationFeature",
          "JsonNode",
          "START_OBJECT",
          "(code ",
          "CTRL-CHAR",
          "Unrecognized token",
          "marker");

  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h = new HttpTestSupport(dir);
    assertThat(h.post("/v1/namespaces", "{\"name\":\"demo\"}").statusCode()).isEqualTo(201);
    assertThat(
            h.post("/v1/namespaces/demo/streams", "{\"name\":\"events\",\"partitions\":3}")
                .statusCode())
        .isEqualTo(201);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  private String malformed(String path, String body) {
    HttpResponse<String> r = h.post(path, body);
    assertThat(r.statusCode()).as(body + " -> " + r.body()).isEqualTo(400);
    JsonNode p = json(r);
    assertThat(p.path("code").asText()).as(r.body()).isEqualTo("malformed_json");
    String detail = p.path("detail").asText();
    assertThat(p.path("error").path("message").asText()).isEqualTo(detail);
    for (String leak : LEAKS) {
      assertThat(detail).as("detail of " + body).doesNotContain(leak);
    }
    return detail;
  }

  private static final String RECORDS = "/v1/namespaces/demo/streams/events/records";

  @Test
  void anUnquotedValueNamesTheTokenTheMemberAndThePosition() {
    assertThat(malformed("/v1/namespaces", "{\"name\":abc}"))
        .isEqualTo(
            "malformed JSON at line 1, column 9 (in name): unexpected text 'abc'; a value is a"
                + " string in double quotes, a number, an object, an array, true, false or null");
    assertThat(malformed(RECORDS, "{\"records\":[{\"value\":tru}]}"))
        .startsWith(
            "malformed JSON at line 1, column 22 (in records[0].value): unexpected text 'tru'");
  }

  @Test
  void aBodyCutShortSaysSoWithoutTheParsersSourceDescription() {
    assertThat(malformed(RECORDS, "{\"records\":[{\"value\":\"x\"}"))
        .isEqualTo(
            "malformed JSON at line 1, column 26 (in records[0]): the body ends before the JSON is"
                + " complete (an object, array or string is not closed)");
    assertThat(malformed("/v1/namespaces", "{\"name\":\"x\""))
        .contains("the body ends before the JSON is complete");
  }

  @Test
  void aTrailingCommaNamesTheMemberBeforeIt() {
    assertThat(malformed(RECORDS, "{\"records\":[{\"value\":\"x\",}]}"))
        .isEqualTo(
            "malformed JSON at line 1, column 26 (after records[0].value): unexpected character"
                + " '}' where a member name in double quotes was expected (a trailing comma, or a"
                + " name without double quotes)");
    assertThat(malformed("/v1/producers", "{'x':1}"))
        .contains("column 2", "unexpected character ''' where a member name in double quotes");
  }

  @Test
  void trailingDataDuplicatesEscapesAndControlCharactersAreNamed() {
    assertThat(malformed("/v1/namespaces", "{\"name\":\"x\"} {}"))
        .isEqualTo(
            "malformed JSON at line 1, column 14: more data after the end of the JSON object; the"
                + " body must be one JSON object");
    assertThat(malformed(RECORDS, "{\"records\":[{\"value\":\"x\"}], \"records\":[]}"))
        .isEqualTo("malformed JSON at line 1, column 38 (in records): duplicate member 'records'");
    assertThat(malformed(RECORDS, "{\"records\":[{\"value\":\"\\q\"}]}"))
        .contains("(in records[0].value): invalid escape in a string");
    assertThat(malformed(RECORDS, "{\"records\":[{\"value\":\"a\u0001b\"}]}"))
        .contains("(in records[0].value): a control character U+0001 inside a string");
    assertThat(
            malformed(
                "/v1/namespaces/demo/consumers/c/streams/events/partitions/0/lease",
                "{\"holder\":\"h\",\"lease_ms\":}"))
        .isEqualTo(
            "malformed JSON at line 1, column 26 (in lease_ms): unexpected character '}' where a"
                + " value was expected");
  }

  @Test
  void aBodyThatIsNotAnObjectNamesWhatItIs() {
    assertThat(malformed("/v1/namespaces", "[1]"))
        .isEqualTo("the request body must be a JSON object, got array");
  }
}
