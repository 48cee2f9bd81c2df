package dev.loam.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every format round-trips every generated event: attribute names, values (the text sent) and
 * order, types and data, byte for byte; protobuf with its one documented exception (time and
 * timestamp extensions in canonical RFC 3339 UTC, number extensions as strings, the four fixed
 * fields first); binary mode with every value a string.
 */
class CodecRoundTripPropertyTest {
  @Provide
  Arbitrary<CloudEvent> events() {
    return EventArbitraries.events();
  }

  @Property(tries = 200)
  void structuredJsonRoundTrips(@ForAll("events") CloudEvent e) {
    assertThat(JsonFormat.parseEvent(JsonFormat.write(e))).isEqualTo(jsonView(e));
  }

  @Property(tries = 100)
  void batchJsonRoundTrips(@ForAll("events") CloudEvent a, @ForAll("events") CloudEvent b) {
    assertThat(JsonFormat.parseBatch(JsonFormat.writeBatch(List.of(a, b))))
        .containsExactly(jsonView(a), jsonView(b));
  }

  @Property(tries = 200)
  void recordLayoutRoundTrips(@ForAll("events") CloudEvent e) {
    AppendRecord r = RecordLayout.toRecord(e, OptionalInt.empty());
    FetchedRecord f = new FetchedRecord(0, 7, 1000, r.key(), r.value(), r.headers());
    RecordLayout.ReadEvent back =
        RecordLayout.fromRecord(f, new RecordLayout.Origin(9, "ns", "s", 0));
    assertThat(back.event()).isEqualTo(e);
    assertThat(back.rawJson()).isNull();
    String pk = e.text(CloudEvent.PARTITIONKEY);
    assertThat(r.key()).isEqualTo(pk == null ? null : pk.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 200)
  void recordHeadersFollowTheKafkaBinding(@ForAll("events") CloudEvent e) {
    AppendRecord r = RecordLayout.toRecord(e, OptionalInt.empty());
    List<String> names = new ArrayList<>();
    for (Header h : r.headers()) {
      names.add(h.key());
    }
    List<String> expected = new ArrayList<>();
    boolean typed = false;
    for (Attribute a : e.attributes()) {
      expected.add(a.name().equals(CloudEvent.DATACONTENTTYPE) ? "content-type" : "ce_" + a.name());
      typed |=
          a.type() != AttributeType.STRING && !EventValidator.CONTEXT_ATTRIBUTES.contains(a.name());
    }
    if (typed) {
      expected.add(RecordLayout.TYPES);
    }
    assertThat(names).containsExactlyElementsOf(expected);
  }

  @Property(tries = 200)
  void protobufRoundTripsWithTheTimestampException(@ForAll("events") CloudEvent e) {
    CloudEvent expected = protobufView(e);
    assertThat(ProtobufFormat.parseEvent(ProtobufFormat.write(e))).isEqualTo(expected);
    assertThat(ProtobufFormat.parseBatch(ProtobufFormat.writeBatch(List.of(e, e))))
        .containsExactly(expected, expected);
    // and what protobuf gives back is a fixed point
    assertThat(ProtobufFormat.parseEvent(ProtobufFormat.write(expected))).isEqualTo(expected);
  }

  @Property(tries = 200)
  void httpBinaryModeRoundTripsAsStrings(@ForAll("events") CloudEvent e) {
    List<Map.Entry<String, String>> headers = HttpBinaryMode.headers(e);
    for (Map.Entry<String, String> h : headers) {
      if (h.getKey().startsWith("ce-")) {
        assertThat(h.getValue()).matches("[\\x21-\\x7e]*");
      }
    }
    byte[] body = e.hasData() ? e.data() : new byte[0];
    CloudEvent back = HttpBinaryMode.parse(headers, body);
    List<Attribute> strings = new ArrayList<>();
    for (Attribute a : e.attributes()) {
      strings.add(Attribute.string(a.name(), a.text()));
    }
    byte[] data =
        e.hasData() ? e.data() : e.text(CloudEvent.DATACONTENTTYPE) == null ? null : new byte[0];
    assertThat(back).isEqualTo(new CloudEvent(strings, data));
  }

  /**
   * What JSON output gives back for {@code e}: JSON has numbers and booleans, and carries the other
   * typed extensions (uri, urireference, timestamp, binary) as strings.
   */
  static CloudEvent jsonView(CloudEvent e) {
    List<Attribute> out = new ArrayList<>();
    for (Attribute a : e.attributes()) {
      out.add(
          switch (a.type()) {
            case URI, URI_REF, TIMESTAMP, BINARY -> Attribute.string(a.name(), a.text());
            default -> a;
          });
    }
    return new CloudEvent(out, e.data());
  }

  /** What protobuf output gives back for {@code e}. */
  static CloudEvent protobufView(CloudEvent e) {
    List<Attribute> out = new ArrayList<>();
    for (String fixed :
        List.of(CloudEvent.SPECVERSION, CloudEvent.ID, CloudEvent.SOURCE, CloudEvent.TYPE)) {
      e.attribute(fixed).ifPresent(out::add);
    }
    for (Attribute a : e.attributes()) {
      switch (a.name()) {
        case CloudEvent.SPECVERSION, CloudEvent.ID, CloudEvent.SOURCE, CloudEvent.TYPE -> {}
        case CloudEvent.TIME ->
            out.add(Attribute.string(a.name(), Rfc3339.canonical(Rfc3339.parse(a.text()))));
        default ->
            out.add(a.type() == AttributeType.NUMBER ? Attribute.string(a.name(), a.text()) : a);
      }
    }
    return new CloudEvent(out, e.data());
  }
}
