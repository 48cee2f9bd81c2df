package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stream admin beyond create and delete: {@code PATCH …/streams/{s}} (retention, cleanup policy)
 * and {@code POST …/streams/{s}/partitions} (grow), against a started server with the JDK client.
 */
class StreamAdminIT {
  static final String S = "/v1/namespaces/ns/streams/s";

  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h = new HttpTestSupport(dir);
    assertThat(h.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    HttpResponse<String> r =
        h.post(
            "/v1/namespaces/ns/streams",
            "{\"name\":\"s\",\"partitions\":2,\"class\":\"standard\",\"retention_ms\":86400000}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  HttpResponse<String> patch(String path, String json) {
    return patch(path, json, "application/json");
  }

  HttpResponse<String> patch(String path, String json, String contentType) {
    return h.send(
        h.req(path)
            .header("content-type", contentType)
            .method("PATCH", HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  static void assertProblem(HttpResponse<String> r, int status, String code, String... inDetail) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
    JsonNode b = json(r);
    assertThat(b.path("code").asText()).as(r.body()).isEqualTo(code);
    for (String s : inDetail) {
      assertThat(b.path("detail").asText()).as(r.body()).contains(s);
    }
  }

  @Test
  void patchChangesOnlyTheFieldsGivenAndDescribeShowsThem() {
    HttpResponse<String> r = patch(S, "{\"retention_bytes\":1073741824}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode d = json(r);
    assertThat(d.path("retention_bytes").asLong()).isEqualTo(1_073_741_824L);
    assertThat(d.path("retention_ms").asLong()).isEqualTo(86_400_000L); // kept
    assertThat(d.path("cleanup_policy").asText()).isEqualTo("delete");
    assertThat(d.path("partitions").asInt()).isEqualTo(2);
    assertThat(d.path("class").asText()).isEqualTo("standard");

    r =
        patch(
            S,
            "{\"retention_ms\":-1,\"cleanup_policy\":\"compact\"}",
            "application/merge-patch+json");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode described = json(h.get(S));
    assertThat(described.path("retention_ms").asLong()).isEqualTo(-1);
    assertThat(described.path("retention_bytes").asLong()).isEqualTo(1_073_741_824L);
    assertThat(described.path("cleanup_policy").asText()).isEqualTo("compact");
  }

  @Test
  void patchRefusesFixedFieldsAndBadValuesNamingTheFieldAndChangesNothing() {
    // The owner is left out: the node places and opens a new stream by itself (its ownership step
    // every 250 ms, or when routing the first owner-bound request); that is not a change to the
    // stream a refused patch could have made.
    JsonNode before = withoutOwner(json(h.get(S)));
    assertProblem(
        patch(S, "{\"partitions\":4}"), 400, "invalid", "field=partitions", "/partitions");
    assertProblem(patch(S, "{\"class\":\"express\"}"), 400, "invalid", "field=class");
    assertProblem(patch(S, "{\"name\":\"t\"}"), 400, "invalid", "field=name");
    assertProblem(patch(S, "{\"retention_ms\":0}"), 400, "invalid", "retention_ms=0");
    assertProblem(patch(S, "{\"retention_bytes\":-2}"), 400, "invalid", "retention_bytes");
    assertProblem(patch(S, "{\"cleanup_policy\":\"shred\"}"), 400, "invalid", "cleanup_policy");
    assertProblem(patch(S, "{\"retention\":5}"), 400, "invalid", "unknown field retention");
    assertProblem(patch(S, "{}"), 400, "invalid", "names no field");
    assertProblem(patch(S, "{\"retention_ms\":null}"), 400, "invalid", "sets no field");
    assertProblem(patch(S, "not json"), 400, "malformed_json");
    assertProblem(patch(S, "{\"retention_ms\":5}", "text/plain"), 415, "unsupported_media_type");
    assertProblem(
        patch("/v1/namespaces/ns/streams/nope", "{\"retention_ms\":5}"), 404, "not_found");
    assertProblem(patch("/v1/namespaces/nope/streams/s", "{\"retention_ms\":5}"), 404, "not_found");
    assertThat(withoutOwner(json(h.get(S)))).isEqualTo(before);
  }

  private static JsonNode withoutOwner(JsonNode description) {
    ((ObjectNode) description).remove("owner");
    return description;
  }

  @Test
  void aStreamCreatedWithACodecDescribesItKeepsItOnPatchAndServesItsRecords() {
    for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
      String path = "/v1/namespaces/ns/streams/c-" + codec;
      HttpResponse<String> r =
          h.post(
              "/v1/namespaces/ns/streams",
              "{\"name\":\"c-" + codec + "\",\"compression\":\"" + codec + "\"}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
      assertThat(json(r).path("compression").asText()).isEqualTo(codec);
      String value = "{\\\"level\\\":\\\"INFO\\\",\\\"msg\\\":\\\"" + codec + "\\\"}";
      r = h.post(path + "/records", "{\"records\":[{\"value\":\"" + value + "\"}]}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode fetched = json(h.get(path + "/partitions/0/records?offset=0"));
      assertThat(fetched.path("records").get(0).path("value").asText())
          .isEqualTo("{\"level\":\"INFO\",\"msg\":\"" + codec + "\"}");
      r = patch(path, "{\"retention_ms\":60000}");
      assertThat(json(r).path("compression").asText()).isEqualTo(codec);
    }
    assertThat(json(h.get(S)).path("compression").asText()).isEqualTo("none");
    assertProblem(
        h.post("/v1/namespaces/ns/streams", "{\"name\":\"bad\",\"compression\":\"brotli\"}"),
        400,
        "invalid",
        "compression=brotli");
  }

  @Test
  void addPartitionsGrowsTheStreamAndTheNewPartitionsTakeRecordsFromOffsetZero() {
    HttpResponse<String> r =
        h.post(S + "/records", "{\"records\":[{\"value\":\"a\",\"partition\":1}]}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertProblem(
        h.post(S + "/records", "{\"records\":[{\"value\":\"x\",\"partition\":3}]}"),
        400,
        "invalid");

    r = h.post(S + "/partitions", "{\"count\":4}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode d = json(r);
    assertThat(d.path("partitions").asInt()).isEqualTo(4);
    assertThat(d.path("partition_bounds")).hasSize(4);
    assertThat(d.path("partition_bounds").get(1).path("high_watermark").asLong()).isEqualTo(1);
    assertThat(d.path("partition_bounds").get(3).path("high_watermark").asLong()).isEqualTo(0);
    assertThat(d.path("retention_ms").asLong()).isEqualTo(86_400_000L); // config kept

    r = h.post(S + "/records", "{\"records\":[{\"value\":\"b\",\"partition\":3}]}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(json(r).path("records").get(0).path("offset").asLong()).isEqualTo(0);
    JsonNode fetched = json(h.get(S + "/partitions/3/records?offset=0"));
    assertThat(fetched.path("records").get(0).path("value").asText()).isEqualTo("b");
    assertThat(fetched.path("next_offset").asLong()).isEqualTo(1);
    // The old partition kept its record.
    assertThat(
            json(h.get(S + "/partitions/1/records?offset=0"))
                .path("records")
                .get(0)
                .path("value")
                .asText())
        .isEqualTo("a");
    assertThat(json(h.get(S)).path("partitions").asInt()).isEqualTo(4);
  }

  @Test
  void addPartitionsRefusesCountsThatDoNotGrowAndBadBodies() {
    assertProblem(
        h.post(S + "/partitions", "{\"count\":2}"), 400, "invalid", "currentPartitions=2");
    assertProblem(
        h.post(S + "/partitions", "{\"count\":1}"), 400, "invalid", "currentPartitions=2");
    assertProblem(h.post(S + "/partitions", "{\"count\":0}"), 400, "invalid", "count");
    assertProblem(h.post(S + "/partitions", "{\"count\":10001}"), 400, "invalid", "count");
    assertProblem(h.post(S + "/partitions", "{\"count\":\"3\"}"), 400, "invalid", "count");
    assertProblem(h.post(S + "/partitions", "{}"), 400, "invalid", "missing field count");
    assertProblem(
        h.post(S + "/partitions", "{\"count\":3,\"x\":1}"), 400, "invalid", "unknown field x");
    assertProblem(
        h.post("/v1/namespaces/ns/streams/nope/partitions", "{\"count\":3}"), 404, "not_found");
    HttpResponse<String> get = h.get(S + "/partitions");
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("allow")).hasValue("POST");
    assertThat(json(h.get(S)).path("partitions").asInt()).isEqualTo(2);
  }
}
