package dev.loam.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The three read-back rules of docs/reference/cloudevents.md "Consume", in order. */
class ReadBackTest {
  private static final RecordLayout.Origin ORIGIN =
      new RecordLayout.Origin(42, "demo", "orders", 3);

  private static Header h(String k, String v) {
    return new Header(k, v.getBytes(StandardCharsets.UTF_8));
  }

  private static String json(FetchedRecord r) {
    RecordLayout.ReadEvent e = RecordLayout.fromRecord(r, ORIGIN);
    return new String(
        JsonFormat.writeBatch(List.of(e.event()), java.util.Arrays.asList(e.rawJson())),
        StandardCharsets.UTF_8);
  }

  @Test
  void producedCeHeadersAreAnEvent() {
    FetchedRecord r =
        new FetchedRecord(
            3,
            5,
            1000,
            null,
            "{\"a\": 1}".getBytes(),
            List.of(
                h("ce_specversion", "1.0"),
                h("ce_id", "x"),
                h("ce_source", "/s"),
                h("ce_type", "t"),
                h("ce_n", "7"),
                h("other", "dropped"),
                h("loam_ce_types", "n=integer")));
    assertThat(json(r))
        .isEqualTo(
            "[{\"specversion\":\"1.0\",\"id\":\"x\",\"source\":\"/s\",\"type\":\"t\",\"n\":7,"
                + "\"data\":{\"a\": 1}}]");
  }

  @Test
  void aBadTypeEntryLeavesTheValueAString() {
    FetchedRecord r =
        new FetchedRecord(
            3,
            5,
            1000,
            null,
            null,
            List.of(
                h("ce_specversion", "1.0"),
                h("ce_id", "x"),
                h("ce_source", "/s"),
                h("ce_type", "t"),
                h("ce_n", "seven"),
                h("loam_ce_types", "n=integer,zz=bogus")));
    assertThat(json(r))
        .isEqualTo(
            "[{\"specversion\":\"1.0\",\"id\":\"x\",\"source\":\"/s\",\"type\":\"t\",\"n\":\"seven\"}]");
  }

  @Test
  void structuredModeValuePassesThroughUnchanged() {
    String value = "{ \"specversion\" : \"1.0\", \"id\":\"x\",\"source\":\"/s\",\"type\":\"t\" }";
    FetchedRecord r =
        new FetchedRecord(
            3,
            5,
            1000,
            null,
            value.getBytes(),
            List.of(h("content-type", ContentTypes.STRUCTURED_JSON)));
    assertThat(json(r)).isEqualTo("[" + value + "]");
  }

  @Test
  void partialCeHeadersGetTheSynthesizedEnvelope() {
    FetchedRecord r =
        new FetchedRecord(
            3,
            9,
            1_718_000_000_007L,
            "user-1".getBytes(),
            "{\"k\":true}".getBytes(),
            List.of(h("ce_specversion", "1.0"), h("ce_id", "x")));
    assertThat(json(r))
        .isEqualTo(
            "[{\"specversion\":\"1.0\",\"id\":\"42-9\",\"source\":\"/namespaces/demo/streams/orders/partitions/3\","
                + "\"type\":\"dev.loam.stream.record\",\"time\":\"2024-06-10T06:13:20.007Z\","
                + "\"partitionkey\":\"user-1\",\"datacontenttype\":\"application/json\",\"data\":{\"k\":true}}]");
  }

  @Test
  void binaryValueAndKeyGetOctetStreamAndNoPartitionKey() {
    FetchedRecord r =
        new FetchedRecord(3, 0, 0, new byte[] {(byte) 0xff}, new byte[] {0, 1, 2}, List.of());
    assertThat(json(r))
        .isEqualTo(
            "[{\"specversion\":\"1.0\",\"id\":\"42-0\",\"source\":\"/namespaces/demo/streams/orders/partitions/3\","
                + "\"type\":\"dev.loam.stream.record\",\"time\":\"1970-01-01T00:00:00.000Z\","
                + "\"datacontenttype\":\"application/octet-stream\",\"data_base64\":\"AAEC\"}]");
  }

  @Test
  void aContentTypeHeaderIsTheDataContentType() {
    FetchedRecord r =
        new FetchedRecord(
            3, 1, 0, null, "hello".getBytes(), List.of(h("content-type", "text/plain")));
    assertThat(json(r)).contains("\"datacontenttype\":\"text/plain\",\"data\":\"hello\"");
    FetchedRecord tombstone = new FetchedRecord(3, 2, 0, null, null, List.of());
    assertThat(json(tombstone)).endsWith("\"time\":\"1970-01-01T00:00:00.000Z\"}]");
  }

  @Test
  void jsonContentTypeWithBytesThatAreNotJsonComesBackAsBase64() {
    CloudEvent e =
        new CloudEvent(
            List.of(
                Attribute.string("specversion", "1.0"),
                Attribute.string("id", "x"),
                Attribute.string("source", "/s"),
                Attribute.string("type", "t"),
                Attribute.string("datacontenttype", "application/json")),
            "not json".getBytes());
    assertThat(new String(JsonFormat.write(e), StandardCharsets.UTF_8))
        .endsWith("\"data_base64\":\"bm90IGpzb24=\"}");
  }
}
