package dev.loam.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every validation rule of docs/reference/cloudevents.md "Validation" refuses with a typed INVALID
 * error whose message names the event's index and the attribute at fault.
 */
class ValidationTest {
  private static final String OK =
      "\"specversion\":\"1.0\",\"id\":\"a\",\"source\":\"/s\",\"type\":\"t\"";

  private static InvalidEventException refuseJson(String body) {
    try {
      JsonFormat.parseBatch(body.getBytes(StandardCharsets.UTF_8));
    } catch (InvalidEventException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      return e;
    }
    throw new AssertionError("accepted: " + body);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "specversion 0.3|{\"specversion\":\"0.3\",\"id\":\"a\",\"source\":\"/s\",\"type\":\"t\"}|specversion|events[1].specversion: \"0.3\" is not 1.0",
        "specversion missing|{\"id\":\"a\",\"source\":\"/s\",\"type\":\"t\"}|specversion|events[1].specversion: missing",
        "specversion a number|{\"specversion\":1.0,\"id\":\"a\",\"source\":\"/s\",\"type\":\"t\"}|specversion|events[1].specversion: must be a JSON string, not a number",
        "id missing|{\"specversion\":\"1.0\",\"source\":\"/s\",\"type\":\"t\"}|id|events[1].id: missing",
        "id empty|{\"specversion\":\"1.0\",\"id\":\"\",\"source\":\"/s\",\"type\":\"t\"}|id|events[1].id: empty",
        "id null|{\"specversion\":\"1.0\",\"id\":null,\"source\":\"/s\",\"type\":\"t\"}|id|events[1].id: missing",
        "source empty|{\"specversion\":\"1.0\",\"id\":\"a\",\"source\":\"\",\"type\":\"t\"}|source|events[1].source: empty",
        "type missing|{\"specversion\":\"1.0\",\"id\":\"a\",\"source\":\"/s\"}|type|events[1].type: missing",
        "time not RFC 3339|{"
            + OK
            + ",\"time\":\"2026-10-01 12:00:00\"}|time|events[1].time: \"2026-10-01 12:00:00\" is not an RFC 3339 date-time",
        "time month 13|{"
            + OK
            + ",\"time\":\"2026-13-01T12:00:00Z\"}|time|events[1].time: \"2026-13-01T12:00:00Z\" is not an RFC 3339 date-time",
        "time without offset|{"
            + OK
            + ",\"time\":\"2026-10-01T12:00:00\"}|time|events[1].time: \"2026-10-01T12:00:00\" is not an RFC 3339 date-time",
        "name uppercase|{"
            + OK
            + ",\"Traceparent\":\"x\"}|Traceparent|events[1].\"Traceparent\": an attribute name is one or more lowercase ASCII letters and digits",
        "name underscore|{"
            + OK
            + ",\"trace_id\":\"x\"}|trace_id|events[1].\"trace_id\": an attribute name is one or more lowercase ASCII letters and digits",
        "subject a boolean|{"
            + OK
            + ",\"subject\":true}|subject|events[1].subject: must be a JSON string, not a boolean",
        "time a number|{"
            + OK
            + ",\"time\":1}|time|events[1].time: must be a JSON string, not a number",
        "datacontenttype an object|{"
            + OK
            + ",\"datacontenttype\":{}}|datacontenttype|events[1].datacontenttype: must be a JSON string, not an object",
        "extension an array|{"
            + OK
            + ",\"tags\":[1]}|tags|events[1].tags: an extension is a string, number or boolean, not an array",
        "data and data_base64|{"
            + OK
            + ",\"data\":1,\"data_base64\":\"AA==\"}|data_base64|events[1].data_base64: an event has data or data_base64, not both",
        "data_base64 not base64|{"
            + OK
            + ",\"data_base64\":\"!!\"}|data_base64|events[1].data_base64: not base64 (RFC 4648, padded)",
        "member twice|{"
            + OK
            + ",\"subject\":\"a\",\"subject\":\"b\"}|subject|events[1].subject: occurs twice",
      })
  void jsonRuleNamesTheAttribute(String rule, String bad, String attribute, String message) {
    InvalidEventException e = refuseJson("[{" + OK + "}," + bad + "]");
    assertThat(e.attribute()).isEqualTo(attribute);
    assertThat(e.getMessage()).isEqualTo(message);
  }

  @Test
  void longAttributeNamesAreAccepted() {
    String name = "a".repeat(40);
    CloudEvent e = JsonFormat.parseEvent(("{" + OK + ",\"" + name + "\":\"x\"}").getBytes());
    assertThat(e.text(name)).isEqualTo("x");
  }

  @Test
  void aNullAttributeIsAbsent() {
    CloudEvent e = JsonFormat.parseEvent(("{" + OK + ",\"subject\":null}").getBytes());
    assertThat(e.attribute("subject")).isEmpty();
  }

  @Test
  void malformedJsonIsRefused() {
    assertThat(refuseJson("[{" + OK + "},").getMessage())
        .startsWith("events")
        .contains("malformed JSON");
    assertThat(refuseJson("{" + OK + "}").getMessage())
        .isEqualTo("events: a batch is one JSON array of events");
    assertThat(refuseJson("[{" + OK + "}] x").getMessage()).contains("malformed JSON");
  }

  @Test
  void aBatchOfMoreThanTheLimitIsRefused() {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i <= JsonFormat.MAX_EVENTS; i++) {
      b.append(i == 0 ? "" : ",").append("{").append(OK).append("}");
    }
    assertThat(refuseJson(b.append("]").toString()).getMessage())
        .isEqualTo("events: more than 1000 events in one request");
  }

  @Test
  void binaryModeRulesNameTheAttribute() {
    assertThatThrownBy(
            () ->
                HttpBinaryMode.parse(
                    List.of(
                        Map.entry("ce-specversion", "1.0"),
                        Map.entry("ce-id", "a"),
                        Map.entry("ce-source", "/s")),
                    new byte[0]))
        .isInstanceOf(InvalidEventException.class)
        .hasMessage("events[0].type: missing");
    assertThatThrownBy(
            () ->
                HttpBinaryMode.parse(
                    List.of(
                        Map.entry("CE-SpecVersion", "1.0"),
                        Map.entry("ce-id", "a"),
                        Map.entry("ce-source", "/s"),
                        Map.entry("ce-type", "t"),
                        Map.entry("ce-bad_name", "x")),
                    new byte[0]))
        .hasMessage(
            "events[0].\"bad_name\": an attribute name is one or more lowercase ASCII letters and"
                + " digits");
    assertThatThrownBy(
            () ->
                HttpBinaryMode.parse(
                    List.of(
                        Map.entry("ce-specversion", "1.0"),
                        Map.entry("ce-id", "a%zz"),
                        Map.entry("ce-source", "/s"),
                        Map.entry("ce-type", "t")),
                    new byte[0]))
        .hasMessage("events[0].id: a % not followed by two hex digits");
    assertThatThrownBy(
            () ->
                HttpBinaryMode.parse(
                    List.of(
                        Map.entry("ce-specversion", "1.0"),
                        Map.entry("ce-id", "a"),
                        Map.entry("ce-id", "b"),
                        Map.entry("ce-source", "/s"),
                        Map.entry("ce-type", "t")),
                    new byte[0]))
        .hasMessage("events[0].id: occurs twice");
  }

  @Test
  void binaryModeDecodesPercentEscapes() {
    CloudEvent e =
        HttpBinaryMode.parse(
            List.of(
                Map.entry("ce-specversion", "1.0"),
                Map.entry("ce-id", "caf%C3%A9%20%25"),
                Map.entry("ce-source", "/s"),
                Map.entry("ce-type", "t"),
                Map.entry("Content-Type", "text/plain")),
            "hi".getBytes());
    assertThat(e.text("id")).isEqualTo("café %");
    assertThat(e.text("datacontenttype")).isEqualTo("text/plain");
    assertThat(HttpBinaryMode.percentEncode("café %")).isEqualTo("caf%C3%A9%20%25");
  }

  @Test
  void protobufRulesNameTheAttribute() {
    // CloudEvent{id="a", source="/s", spec_version="0.3", type="t"}
    byte[] v03 = {10, 1, 'a', 18, 2, '/', 's', 26, 3, '0', '.', '3', 34, 1, 't'};
    assertThatThrownBy(() -> ProtobufFormat.parseEvent(v03))
        .hasMessage("events[0].specversion: \"0.3\" is not 1.0");
    byte[] noType = {10, 1, 'a', 18, 2, '/', 's', 26, 3, '1', '.', '0'};
    assertThatThrownBy(() -> ProtobufFormat.parseEvent(noType))
        .hasMessage("events[0].type: missing");
    byte[] protoData = {10, 1, 'a', 18, 2, '/', 's', 26, 3, '1', '.', '0', 34, 1, 't', 66, 0};
    assertThatThrownBy(() -> ProtobufFormat.parseEvent(protoData))
        .hasMessageStartingWith("events[0].proto_data: not supported");
    byte[] truncated = {10, 5, 'a'};
    assertThatThrownBy(() -> ProtobufFormat.parseEvent(truncated))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("events[0]: malformed protobuf");
  }

  @Test
  void rfc3339AcceptsOffsetsFractionsAndLowercase() {
    assertThat(Rfc3339.isValid("2026-10-01T12:00:00Z")).isTrue();
    assertThat(Rfc3339.isValid("2026-10-01t12:00:00.123456789012+23:59")).isTrue();
    assertThat(Rfc3339.isValid("2026-02-29T00:00:00Z")).isFalse();
    assertThat(Rfc3339.isValid("2026-10-01T24:00:00Z")).isFalse();
    assertThat(Rfc3339.isValid("2026-10-01T12:00:00+24:00")).isFalse();
    assertThat(Rfc3339.isValid("2026-10-01T12:00Z")).isFalse();
    assertThat(Rfc3339.canonical(Rfc3339.parse("2026-10-01T12:00:00.500+02:00")))
        .isEqualTo("2026-10-01T10:00:00.5Z");
    assertThat(Rfc3339.millis(1_718_000_000_007L)).isEqualTo("2024-06-10T06:13:20.007Z");
  }
}
