package dev.loam.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import com.google.rpc.ErrorInfo;
import dev.loam.cloudevents.InvalidEventException;
import dev.loam.cloudevents.ProtobufFormat;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.IngestEventsRequest;
import dev.loam.grpc.v1.cloudevents.CloudEvent;
import dev.loam.grpc.v1.cloudevents.CloudEvent.CloudEventAttributeValue;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * What {@code CloudEventsService/Ingest} makes of its events: exactly what the HTTP route's
 * protobuf codec makes of the same event's bytes (so both transports store the same record), and a
 * batch with one invalid event refused naming that event's index and the attribute.
 */
class CloudEventsRequestPropertyTest {
  Arbitrary<CloudEvent> events() {
    Arbitrary<String> text =
        Arbitraries.strings().alpha().numeric().withChars("/:.-_").ofMinLength(1).ofMaxLength(12);
    Arbitrary<CloudEventAttributeValue> value =
        Arbitraries.oneOf(
            Arbitraries.of(true, false)
                .map(b -> CloudEventAttributeValue.newBuilder().setCeBoolean(b).build()),
            Arbitraries.integers()
                .map(i -> CloudEventAttributeValue.newBuilder().setCeInteger(i).build()),
            text.map(t -> CloudEventAttributeValue.newBuilder().setCeString(t).build()),
            Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(8)
                .map(
                    b ->
                        CloudEventAttributeValue.newBuilder()
                            .setCeBytes(ByteString.copyFrom(b))
                            .build()),
            text.map(t -> CloudEventAttributeValue.newBuilder().setCeUri("urn:x:" + t).build()),
            text.map(t -> CloudEventAttributeValue.newBuilder().setCeUriRef(t).build()),
            Combinators.combine(
                    Arbitraries.longs().between(0, 253402300799L),
                    Arbitraries.integers().between(0, 999_999_999))
                .as(
                    (s, n) ->
                        CloudEventAttributeValue.newBuilder()
                            .setCeTimestamp(Timestamp.newBuilder().setSeconds(s).setNanos(n))
                            .build()));
    Arbitrary<Map<String, CloudEventAttributeValue>> extensions =
        Arbitraries.maps(
                Arbitraries.strings()
                    .withCharRange('a', 'z')
                    .numeric()
                    .ofMinLength(1)
                    .ofMaxLength(8)
                    .filter(
                        n ->
                            !List.of(
                                    "id",
                                    "source",
                                    "specversion",
                                    "type",
                                    "datacontenttype",
                                    "dataschema",
                                    "subject",
                                    "time")
                                .contains(n)),
                value)
            .ofMaxSize(4);
    Arbitrary<Integer> dataKind = Arbitraries.integers().between(0, 2);
    return Combinators.combine(text, text, text, extensions, dataKind, text)
        .as(
            (id, source, type, ext, kind, data) -> {
              CloudEvent.Builder b =
                  CloudEvent.newBuilder()
                      .setId(id)
                      .setSource(source)
                      .setSpecVersion("1.0")
                      .setType(type)
                      .putAllAttributes(ext);
              if (kind == 1) {
                b.setTextData(data);
              } else if (kind == 2) {
                b.setBinaryData(ByteString.copyFromUtf8(data));
              }
              return b.build();
            });
  }

  @Provide
  Arbitrary<List<CloudEvent>> batches() {
    return events().list().ofMaxSize(5);
  }

  @Provide
  Arbitrary<List<CloudEvent>> nonEmptyBatches() {
    return events().list().ofMinSize(1).ofMaxSize(5);
  }

  private static IngestEventsRequest request(List<CloudEvent> events) {
    return IngestEventsRequest.newBuilder().setStream("s").addAllEvents(events).build();
  }

  @Property(tries = 200)
  void eventsAreWhatTheHttpProtobufCodecReads(@ForAll("batches") List<CloudEvent> events) {
    List<dev.loam.cloudevents.CloudEvent> read = CloudEventsServiceImpl.events(request(events));
    assertThat(read).hasSize(events.size());
    for (int i = 0; i < events.size(); i++) {
      dev.loam.cloudevents.CloudEvent http = ProtobufFormat.parseEvent(events.get(i).toByteArray());
      assertThat(read.get(i).attributes()).isEqualTo(http.attributes());
      assertThat(read.get(i).data()).isEqualTo(http.data());
    }
  }

  @Property(tries = 200)
  void oneInvalidEventRefusesTheBatchNamingItsIndexAndAttribute(
      @ForAll("nonEmptyBatches") List<CloudEvent> events,
      @ForAll @IntRange(min = 0, max = 4) int at,
      @ForAll @IntRange(min = 0, max = 2) int fault) {
    int i = at % events.size();
    CloudEvent.Builder bad = events.get(i).toBuilder();
    String attribute =
        switch (fault) {
          case 0 -> {
            bad.setSpecVersion("0.3");
            yield "specversion";
          }
          case 1 -> {
            bad.clearId();
            yield "id";
          }
          default -> {
            bad.putAttributes(
                "time", CloudEventAttributeValue.newBuilder().setCeString("soon").build());
            yield "time";
          }
        };
    List<CloudEvent> batch = new java.util.ArrayList<>(events);
    batch.set(i, bad.build());
    InvalidEventException e =
        catchThrowableOfType(
            InvalidEventException.class, () -> CloudEventsServiceImpl.events(request(batch)));
    assertThat(e).as("refused").isNotNull();
    StatusRuntimeException status = CloudEventsServiceImpl.refusal(e, "ns", "s");
    assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    ErrorInfo info = LoamGrpcClient.errorInfo(status).orElseThrow();
    assertThat(info.getReason()).isEqualTo("invalid");
    assertThat(info.getMetadataMap())
        .containsEntry("index", Integer.toString(i))
        .containsEntry("attribute", attribute);
  }
}
