package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/producers}, {@code GET /v1/cluster/nodes} and the named-consumer routes of
 * docs/reference/http-api.md against a started server, with the JDK client.
 */
class ConsumersAndProducersIT {
  static final String C = "/v1/namespaces/ns/consumers/app/streams/s";

  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h = new HttpTestSupport(dir);
    setUpData(h);
  }

  static void setUpData(HttpTestSupport h) {
    assertThat(h.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    HttpResponse<String> r =
        h.post("/v1/namespaces/ns/streams", "{\"name\":\"s\",\"partitions\":2}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    StringBuilder recs = new StringBuilder("{\"records\":[");
    for (int i = 0; i < 5; i++) {
      recs.append(i == 0 ? "" : ",")
          .append("{\"value\":\"v")
          .append(i)
          .append("\",\"partition\":0}");
    }
    r = h.post("/v1/namespaces/ns/streams/s/records", recs.append("]}").toString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private static void assertProblem(HttpResponse<String> r, int status, String code) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
    assertThat(json(r).path("code").asText()).as(r.body()).isEqualTo(code);
  }

  @Test
  void producerIdsAreFreshAndMakeProducesIdempotent() {
    HttpResponse<String> a = h.post("/v1/producers", "");
    assertThat(a.statusCode()).as(a.body()).isEqualTo(200);
    JsonNode first = json(a);
    assertThat(first.path("producer_epoch").asInt()).isZero();
    JsonNode second = json(h.post("/v1/producers", "{}"));
    assertThat(second.path("producer_id").asLong())
        .isGreaterThan(first.path("producer_id").asLong());

    String produce =
        "{\"producer_id\":"
            + first.path("producer_id").asLong()
            + ",\"producer_epoch\":0,\"sequence\":0,\"records\":[{\"value\":\"x\",\"partition\":1}]}";
    JsonNode p1 = json(h.post("/v1/namespaces/ns/streams/s/records", produce));
    JsonNode p2 = json(h.post("/v1/namespaces/ns/streams/s/records", produce));
    assertThat(p2.path("duplicate").asBoolean()).isTrue();
    assertThat(p2.path("records")).isEqualTo(p1.path("records"));

    assertProblem(h.post("/v1/producers", "{\"count\":2}"), 400, "invalid");
    assertProblem(h.get("/v1/producers"), 405, "method_not_allowed");
  }

  @Test
  void clusterNodesAreListedAndFilteredByZone() {
    JsonNode all = json(h.get("/v1/cluster/nodes"));
    assertThat(all.path("nodes")).hasSize(1);
    JsonNode n = all.path("nodes").get(0);
    assertThat(n.path("node_id").asText()).isEqualTo("n1");
    assertThat(n.has("address")).isTrue();
    String zone = n.path("zone").asText();
    assertThat(json(h.get("/v1/cluster/nodes?zone=" + zone)).path("nodes")).hasSize(1);
    assertThat(json(h.get("/v1/cluster/nodes?zone=nowhere")).path("nodes")).isEmpty();
    assertProblem(h.get("/v1/cluster/nodes?az=x"), 400, "invalid");
  }

  @Test
  void clusterNodesShowTheirEndpointsAsAnObject() throws Exception {
    JsonNode none = json(h.get("/v1/cluster/nodes")).path("nodes").get(0);
    assertThat(none.path("endpoints").isObject()).as(none.toString()).isTrue();
    assertThat(none.path("endpoints").size()).isZero();

    h.node.log().advertiseEndpoint("otlp-grpc", "10.0.0.5:4317").get(5, TimeUnit.SECONDS);
    h.node.log().advertiseEndpoint("kafka", "10.0.0.5:9092").get(5, TimeUnit.SECONDS);
    JsonNode n = json(h.get("/v1/cluster/nodes")).path("nodes").get(0);
    JsonNode endpoints = n.path("endpoints");
    assertThat(endpoints.path("kafka").asText()).isEqualTo("10.0.0.5:9092");
    assertThat(endpoints.path("otlp-grpc").asText()).isEqualTo("10.0.0.5:4317");
    // By name, whatever order they were advertised in.
    assertThat(endpoints.fieldNames()).toIterable().containsExactly("kafka", "otlp-grpc");
    assertThat(json(h.get("/v1/cluster/nodes?zone=" + n.path("zone").asText())).path("nodes"))
        .first()
        .satisfies(z -> assertThat(z.path("endpoints")).isEqualTo(endpoints));
  }

  @Test
  void aConsumerLeasesCommitsAndReadsItsOffset() {
    JsonNode none = json(h.get(C + "/partitions/0"));
    assertThat(none.path("committed_offset").isNull()).isTrue();
    assertThat(none.path("generation").asLong()).isZero();

    HttpResponse<String> lease =
        h.post(C + "/partitions/0/lease", "{\"holder\":\"w1\",\"lease_ms\":60000}");
    assertThat(lease.statusCode()).as(lease.body()).isEqualTo(200);
    long gen = json(lease).path("generation").asLong();
    assertThat(gen).isEqualTo(1);
    assertThat(json(lease).path("holder").asText()).isEqualTo("w1");

    HttpResponse<String> commit =
        h.post(C + "/partitions/0/offset", "{\"generation\":" + gen + ",\"offset\":3}");
    assertThat(commit.statusCode()).as(commit.body()).isEqualTo(200);
    assertThat(json(commit).path("committed_offset").asLong()).isEqualTo(3);
    assertThat(json(h.get(C + "/partitions/0")).path("committed_offset").asLong()).isEqualTo(3);
    JsonNode all = json(h.get(C));
    assertThat(all.path("partitions")).hasSize(1);
    assertThat(all.path("partitions").get(0).path("partition").asInt()).isZero();

    // A heartbeat by the same holder keeps the generation; another holder is refused.
    assertThat(
            json(h.post(C + "/partitions/0/lease", "{\"holder\":\"w1\"}"))
                .path("generation")
                .asLong())
        .isEqualTo(gen);
    assertProblem(h.post(C + "/partitions/0/lease", "{\"holder\":\"w2\"}"), 409, "conflict");

    // A stale generation is 409 fenced; an offset beyond the high watermark is 416 with the range.
    assertProblem(
        h.post(C + "/partitions/0/offset", "{\"generation\":" + (gen + 1) + ",\"offset\":3}"),
        409,
        "fenced");
    HttpResponse<String> range =
        h.post(C + "/partitions/0/offset", "{\"generation\":" + gen + ",\"offset\":6}");
    assertProblem(range, 416, "offset_out_of_range");
    assertThat(json(range).path("high_watermark").asLong()).isEqualTo(5);
    assertThat(json(h.get(C + "/partitions/0")).path("committed_offset").asLong()).isEqualTo(3);
  }

  @Test
  void badConsumerRequestsAreRefusedNamingTheProblem() {
    assertProblem(h.post(C + "/partitions/0/lease", "{}"), 400, "invalid");
    assertProblem(
        h.post(C + "/partitions/0/lease", "{\"holder\":\"w\",\"lease_ms\":0}"), 400, "invalid");
    assertProblem(
        h.post(C + "/partitions/0/lease", "{\"holder\":\"w\",\"ttl\":1}"), 400, "invalid");
    assertProblem(h.post(C + "/partitions/0/offset", "{\"offset\":1}"), 400, "invalid");
    assertProblem(h.post(C + "/partitions/0/offset", "{\"generation\":1}"), 400, "invalid");
    // Never leased: any generation is stale.
    assertProblem(
        h.post(C + "/partitions/1/offset", "{\"generation\":1,\"offset\":0}"), 409, "fenced");
    assertProblem(h.post(C + "/partitions/7/lease", "{\"holder\":\"w\"}"), 404, "not_found");
    assertProblem(h.get(C + "/partitions/7"), 404, "not_found");
    assertProblem(
        h.get("/v1/namespaces/ns/consumers/app/streams/nope/partitions/0"), 404, "not_found");
    assertProblem(
        h.post(
            "/v1/namespaces/ns/consumers/bad%20name/streams/s/partitions/0/lease",
            "{\"holder\":\"w\"}"),
        400,
        "invalid");
    assertProblem(h.get(C + "/partitions/0/lease"), 405, "method_not_allowed");
    assertProblem(h.get(C + "/partitions/0/other"), 404, "route_not_found");
  }

  @Test
  void aConsumerResumesFromItsCommittedOffsetAfterANodeRestart() {
    JsonNode lease =
        json(h.post(C + "/partitions/0/lease", "{\"holder\":\"w1\",\"lease_ms\":600000}"));
    long gen = lease.path("generation").asLong();
    assertThat(
            h.post(C + "/partitions/0/offset", "{\"generation\":" + gen + ",\"offset\":2}")
                .statusCode())
        .isEqualTo(200);
    h.close();
    h = null;

    h = new HttpTestSupport(dir);
    JsonNode st = json(h.get(C + "/partitions/0"));
    assertThat(st.path("committed_offset").asLong()).isEqualTo(2);
    JsonNode fetched =
        json(
            h.get(
                "/v1/namespaces/ns/streams/s/partitions/0/records?offset="
                    + st.path("committed_offset").asLong()));
    assertThat(fetched.path("records").get(0).path("offset").asLong()).isEqualTo(2);
    assertThat(fetched.path("records").get(0).path("value").asText()).isEqualTo("v2");
    // The lease is still held: the same generation commits on.
    assertThat(
            h.post(C + "/partitions/0/offset", "{\"generation\":" + gen + ",\"offset\":5}")
                .statusCode())
        .isEqualTo(200);
  }
}
