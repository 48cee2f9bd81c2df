package dev.loam.cloudevents.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.cloudevents.CloudEvent;
import dev.loam.cloudevents.HttpBinaryMode;
import dev.loam.cloudevents.InvalidEventException;
import dev.loam.cloudevents.JsonFormat;
import dev.loam.cloudevents.ProtobufFormat;
import dev.loam.cloudevents.RecordLayout;
import dev.loam.error.LoamException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Coverage-guided fuzzing of the CloudEvents codec (docs/reference/cloudevents.md). The first input
 * byte picks the parser: 0 structured JSON, 1 batch JSON, 2 protobuf, 3 protobuf batch, 4 HTTP
 * binary mode (the rest is {@code name: value} lines, a blank line, then the body), 5 a record's
 * headers read back (the same lines as record headers).
 *
 * <p>Contract: an {@link InvalidEventException} of kind INVALID with a message, or events that the
 * record layout stores and reads back unchanged, and that the format they came in writes and parses
 * back to themselves. Reading a record back never fails.
 */
class CloudEventsFuzzTest {
  @DictionaryEntries({
    "\"specversion\":\"1.0\"",
    "\"id\":\"",
    "\"source\":\"",
    "\"type\":\"",
    "\"time\":\"2026-10-01T12:00:00.5+02:00\"",
    "\"datacontenttype\":\"application/json\"",
    "\"data\":",
    "\"data_base64\":\"",
    "ce-specversion: 1.0\\x0A",
    "ce_specversion: 1.0\\x0A",
    "loam_ce_types: n=integer\\x0A",
    "content-type: application/cloudevents+json\\x0A",
    "%C3%A9",
    "\\ud800"
  })
  @FuzzTest
  void parse(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int mode = (input[0] & 0xff) % 6;
    byte[] body = Arrays.copyOfRange(input, 1, input.length);
    if (mode == 5) {
      readBack(body);
      return;
    }
    List<CloudEvent> events;
    try {
      events =
          switch (mode) {
            case 0 -> List.of(JsonFormat.parseEvent(body));
            case 1 -> JsonFormat.parseBatch(body);
            case 2 -> List.of(ProtobufFormat.parseEvent(body));
            case 3 -> ProtobufFormat.parseBatch(body);
            default -> {
              Lines l = lines(body);
              yield List.of(HttpBinaryMode.parse(l.headers(), l.body()));
            }
          };
    } catch (InvalidEventException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    for (CloudEvent e : events) {
      AppendRecord r = RecordLayout.toRecord(e, OptionalInt.empty());
      FetchedRecord f = new FetchedRecord(0, 0, 0, r.key(), r.value(), r.headers());
      assertThat(RecordLayout.fromRecord(f, new RecordLayout.Origin(1, "n", "s", 0)).event())
          .isEqualTo(e);
      switch (mode) {
        case 0, 1 -> {
          CloudEvent once = JsonFormat.parseEvent(JsonFormat.write(e));
          assertThat(JsonFormat.parseEvent(JsonFormat.write(once))).isEqualTo(once);
        }
        case 2, 3 -> assertThat(ProtobufFormat.parseEvent(ProtobufFormat.write(e))).isEqualTo(e);
        default -> {
          byte[] data = e.hasData() ? e.data() : new byte[0];
          assertThat(HttpBinaryMode.parse(HttpBinaryMode.headers(e), data).attributes())
              .isEqualTo(e.attributes());
        }
      }
    }
  }

  private static void readBack(byte[] body) {
    Lines l = lines(body);
    List<Header> headers = new ArrayList<>();
    for (Map.Entry<String, String> h : l.headers()) {
      headers.add(new Header(h.getKey(), h.getValue().getBytes(StandardCharsets.UTF_8)));
    }
    FetchedRecord f = new FetchedRecord(0, 3, 5, null, l.body(), headers);
    CloudEvent e = RecordLayout.fromRecord(f, new RecordLayout.Origin(1, "n", "s", 0)).event();
    assertThat(e.text(CloudEvent.SPECVERSION)).isEqualTo("1.0");
    JsonFormat.write(e);
    ProtobufFormat.write(e);
  }

  private record Lines(List<Map.Entry<String, String>> headers, byte[] body) {}

  private static Lines lines(byte[] in) {
    String s = new String(in, StandardCharsets.ISO_8859_1);
    int blank = s.indexOf("\n\n");
    String head = blank < 0 ? s : s.substring(0, blank);
    byte[] body = blank < 0 ? new byte[0] : Arrays.copyOfRange(in, blank + 2, in.length);
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (String line : head.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        String v =
            new String(
                line.substring(colon + 1).trim().getBytes(StandardCharsets.ISO_8859_1),
                StandardCharsets.UTF_8);
        headers.add(Map.entry(line.substring(0, colon), v));
      }
    }
    return new Lines(headers, body);
  }
}
