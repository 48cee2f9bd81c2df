package dev.loam.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import dev.loam.arrow.ArrowBatches;
import dev.loam.arrow.StreamSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arrow Java's own {@link FlightClient} against {@link LoamFlightServer}: ListFlights and
 * GetFlightInfo describe the arrow stream (schema, one endpoint per partition, record count); DoGet
 * returns every record with every value, as the record API reads them, with and without projection,
 * across two schema versions and for an offset range that cuts a batch; API keys are enforced.
 */
class FlightDoGetTest {
  static final String V1 =
      """
      {"fields":[
        {"name":"id","nullable":false,"type":{"name":"int","bitWidth":64,"isSigned":true},"children":[]},
        {"name":"name","nullable":true,"type":{"name":"utf8"},"children":[]},
        {"name":"ok","nullable":true,"type":{"name":"bool"},"children":[]},
        {"name":"day","nullable":true,"type":{"name":"date","unit":"DAY"},"children":[]}
      ]}""";
  static final String V2 =
      V1.substring(0, V1.lastIndexOf(']'))
          + ",{\"name\":\"score\",\"nullable\":true,"
          + "\"type\":{\"name\":\"floatingpoint\",\"precision\":\"DOUBLE\"},\"children\":[]}]}";

  @TempDir Path dir;
  LoamNode node;
  Log log;
  LoamFlightServer server;
  BufferAllocator allocator;
  FlightClient client;

  @BeforeEach
  void start() {
    node =
        LoamNode.builder()
            .nodeId("flight-1")
            .dataDir(dir)
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
            .start();
    log = node.log();
    server = LoamFlightServer.builder().node(node).port(0).start();
    allocator = new RootAllocator();
    client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
    node.close();
  }

  private void append(String stream, int partition, String... values) {
    List<AppendRecord> rs = new ArrayList<>();
    for (String v : values) {
      rs.add(AppendRecord.of(null, v).toPartition(partition).withTimestamp(1_000));
    }
    log.append("default", stream, rs).join();
  }

  /** Rows of a DoGet as the record API's canonical JSON, with each batch's app_metadata offset. */
  private record Got(List<String> json, List<Long> batchOffsets, List<String> fields, int rows) {}

  private Got doGet(Ticket t, StreamSchema latest, CredentialCallOption... auth) throws Exception {
    List<String> json = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    int rows = 0;
    try (FlightStream s = client.getStream(t, auth)) {
      VectorSchemaRoot root = s.getRoot();
      List<String> fields = root.getSchema().getFields().stream().map(Field::getName).toList();
      while (s.next()) {
        offsets.add(Long.reverseBytes(s.getLatestMetadata().getLong(0)));
        rows += root.getRowCount();
        if (fields.containsAll(latest.fields().stream().map(Field::getName).toList())) {
          for (int r = 0; r < root.getRowCount(); r++) {
            json.add(new String(ArrowBatches.valueJson(latest, root, r), StandardCharsets.UTF_8));
          }
        }
      }
      return new Got(json, offsets, fields, rows);
    }
  }

  @Test
  void flightClientReadsTheStreamBack() throws Exception {
    log.createArrowStream("default", "m", StreamSpec.standard(2), V1).join();
    append("m", 0, "{\"id\":1,\"name\":\"a\",\"ok\":true,\"day\":\"2026-12-01\"}", "{\"id\":2}");
    append("m", 0, "{\"id\":3,\"name\":\"c\"}");
    log.addStreamSchema("default", "m", V2).join();
    append("m", 0, "{\"id\":4,\"score\":2.5}", "{\"id\":5,\"ok\":false}");
    append("m", 1, "{\"id\":6}");
    StreamSchema latest = StreamSchema.fromJson(log.streamSchemas("default", "m").join().get(1));

    FlightInfo info = client.getInfo(FlightDescriptor.path("default", "m"));
    assertThat(info.getSchema()).isEqualTo(latest.batchSchema());
    assertThat(info.getEndpoints()).hasSize(2);
    assertThat(info.getRecords()).isEqualTo(6);
    List<FlightInfo> listed = new ArrayList<>();
    client.listFlights(org.apache.arrow.flight.Criteria.ALL).forEach(listed::add);
    assertThat(listed)
        .extracting(i -> i.getDescriptor().getPath())
        .containsExactly(List.of("default", "m"));

    // Every value, as the record API reads the same records.
    List<String> expected = new ArrayList<>();
    for (FetchedRecord r :
        log.fetch("default", "m", 0, 0, 1 << 20, Duration.ZERO).join().records()) {
      expected.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    Got full = doGet(info.getEndpoints().get(0).getTicket(), latest);
    assertThat(full.rows()).isEqualTo(5);
    assertThat(full.json()).isEqualTo(expected);
    assertThat(full.json().get(0))
        .isEqualTo("{\"id\":1,\"name\":\"a\",\"ok\":true,\"day\":\"2026-12-01\",\"score\":null}");
    assertThat(full.batchOffsets()).containsExactly(0L, 2L, 3L);
    assertThat(full.fields())
        .containsExactly("_key", "_timestamp", "id", "name", "ok", "day", "score");

    // Projection: two columns, the same values.
    Ticket projected =
        new Ticket(new FlightTicket("default", "m", 0, 0, 5, List.of("id", "score")).encode());
    try (FlightStream s = client.getStream(projected)) {
      List<Object> ids = new ArrayList<>();
      List<Object> scores = new ArrayList<>();
      assertThat(s.getRoot().getSchema().getFields())
          .extracting(Field::getName)
          .containsExactly("id", "score");
      while (s.next()) {
        for (int r = 0; r < s.getRoot().getRowCount(); r++) {
          ids.add(s.getRoot().getVector("id").getObject(r));
          scores.add(s.getRoot().getVector("score").getObject(r));
        }
      }
      assertThat(ids).containsExactly(1L, 2L, 3L, 4L, 5L);
      assertThat(scores).containsExactly(null, null, null, 2.5, null);
    }

    // An offset range that cuts the first batch: only offsets 1..3 are served.
    Got cut =
        doGet(new Ticket(new FlightTicket("default", "m", 0, 1, 4, List.of()).encode()), latest);
    assertThat(cut.json()).isEqualTo(expected.subList(1, 4));
    assertThat(cut.batchOffsets()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void refusesBadTicketsKafkaStreamsAndMissingKeys() throws Exception {
    log.createArrowStream("default", "m", StreamSpec.standard(1), V1).join();
    log.createStream("default", "plain", StreamSpec.standard(1)).join();
    assertThatThrownBy(() -> doGet(new Ticket("nope".getBytes(StandardCharsets.UTF_8)), null))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.INVALID_ARGUMENT.code()))
        .hasMessageContaining("flight ticket invalid");
    assertThatThrownBy(() -> client.getInfo(FlightDescriptor.path("default", "plain")))
        .hasMessageContaining("not an arrow stream");

    var key = log.createApiKey(new ApiKeySpec("default", Set.of(Role.CONSUME))).join();
    assertThatThrownBy(() -> client.getInfo(FlightDescriptor.path("default", "m")))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHENTICATED.code()));
    CredentialCallOption bearer = new CredentialCallOption(new BearerCredentialWriter(key.token()));
    assertThat(client.getInfo(FlightDescriptor.path("default", "m"), bearer).getEndpoints())
        .hasSize(1);
  }
}
