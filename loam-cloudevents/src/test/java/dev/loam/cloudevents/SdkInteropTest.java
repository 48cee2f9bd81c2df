package dev.loam.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.protobuf.ProtobufFormat;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The unmodified CloudEvents Java SDK (JSON and protobuf formats) reads what this codec writes and
 * writes what it reads: events built with the SDK, with extensions of every type, pass SDK → Loam
 * codec → SDK unchanged, in JSON, protobuf, and across the two.
 */
class SdkInteropTest {
  private static final JsonFormat SDK_JSON = new JsonFormat();
  private static final ProtobufFormat SDK_PROTO = new ProtobufFormat();

  @Provide
  Arbitrary<io.cloudevents.CloudEvent> jsonEvents() {
    return sdkEvents(false);
  }

  @Provide
  Arbitrary<io.cloudevents.CloudEvent> protoEvents() {
    return sdkEvents(true);
  }

  private static Arbitrary<io.cloudevents.CloudEvent> sdkEvents(boolean allTypes) {
    Arbitrary<String> s = EventArbitraries.text();
    Arbitrary<OffsetDateTime> time =
        Arbitraries.longs()
            .between(0, 253402300799L)
            .map(
                sec ->
                    OffsetDateTime.ofInstant(
                        java.time.Instant.ofEpochSecond(sec, (sec % 7) * 1_000_000),
                        ZoneOffset.UTC));
    return Combinators.combine(
            s, s, s, time, Arbitraries.integers(), Arbitraries.of(true, false), s)
        .as(
            (id, source, type, t, n, flag, str) -> {
              CloudEventBuilder b =
                  CloudEventBuilder.v1()
                      .withId(id)
                      .withSource(URI.create("/src/" + Math.abs(source.hashCode())))
                      .withType(type)
                      .withTime(t)
                      .withSubject(str)
                      .withExtension("count", n)
                      .withExtension("flag", flag)
                      .withExtension("label", str)
                      .withData(
                          "application/json",
                          ("{\"v\":" + n + "}").getBytes(StandardCharsets.UTF_8));
              if (allTypes) {
                b.withExtension("link", URI.create("https://example.com/" + Math.abs(n)))
                    .withExtension("at", t)
                    .withExtension("blob", str.getBytes(StandardCharsets.UTF_8));
              }
              return b.build();
            });
  }

  @Property(tries = 100)
  void sdkJsonThroughLoamJson(@ForAll("jsonEvents") io.cloudevents.CloudEvent e) {
    byte[] sdk = SDK_JSON.serialize(e);
    CloudEvent loam = dev.loam.cloudevents.JsonFormat.parseEvent(sdk);
    io.cloudevents.CloudEvent back =
        SDK_JSON.deserialize(dev.loam.cloudevents.JsonFormat.write(loam));
    assertThat(back).isEqualTo(SDK_JSON.deserialize(sdk));
    // the order the SDK wrote is kept
    assertThat(dev.loam.cloudevents.JsonFormat.write(loam)).isEqualTo(sdk);
  }

  @Property(tries = 100)
  void sdkProtobufThroughLoamProtobuf(@ForAll("protoEvents") io.cloudevents.CloudEvent e) {
    CloudEvent loam = dev.loam.cloudevents.ProtobufFormat.parseEvent(SDK_PROTO.serialize(e));
    assertSame(SDK_PROTO.deserialize(dev.loam.cloudevents.ProtobufFormat.write(loam)), e);
    // and through the record layout, as the ingest route stores it
    var r = RecordLayout.toRecord(loam, java.util.OptionalInt.empty());
    var f = new dev.loam.api.FetchedRecord(0, 0, 0, r.key(), r.value(), r.headers());
    CloudEvent stored = RecordLayout.fromRecord(f, new RecordLayout.Origin(1, "n", "s", 0)).event();
    assertSame(SDK_PROTO.deserialize(dev.loam.cloudevents.ProtobufFormat.write(stored)), e);
  }

  @Property(tries = 100)
  void sdkProtobufThroughLoamJsonKeepsJsonTypes(@ForAll("jsonEvents") io.cloudevents.CloudEvent e) {
    CloudEvent loam = dev.loam.cloudevents.ProtobufFormat.parseEvent(SDK_PROTO.serialize(e));
    io.cloudevents.CloudEvent back =
        SDK_JSON.deserialize(dev.loam.cloudevents.JsonFormat.write(loam));
    assertThat(back.getExtension("count")).isEqualTo(e.getExtension("count"));
    assertThat(back.getExtension("flag")).isEqualTo(e.getExtension("flag"));
    assertThat(back.getId()).isEqualTo(e.getId());
    assertThat(back.getTime()).isEqualTo(e.getTime());
    assertThat(back.getData().toBytes()).isEqualTo(e.getData().toBytes());
  }

  /** The SDK's own equals compares byte-array extensions by reference: compare by value. */
  private static void assertSame(
      io.cloudevents.CloudEvent actual, io.cloudevents.CloudEvent expected) {
    assertThat(actual.getAttributeNames())
        .containsExactlyInAnyOrderElementsOf(expected.getAttributeNames());
    for (String n : expected.getAttributeNames()) {
      assertThat(actual.getAttribute(n)).as(n).isEqualTo(expected.getAttribute(n));
    }
    assertThat(actual.getExtensionNames())
        .containsExactlyInAnyOrderElementsOf(expected.getExtensionNames());
    for (String n : expected.getExtensionNames()) {
      Object a = actual.getExtension(n);
      Object b = expected.getExtension(n);
      if (b instanceof byte[] bytes) {
        assertThat((byte[]) a).as(n).isEqualTo(bytes);
      } else {
        assertThat(a).as(n).isEqualTo(b);
      }
    }
    assertThat(actual.getData().toBytes()).isEqualTo(expected.getData().toBytes());
  }
}
