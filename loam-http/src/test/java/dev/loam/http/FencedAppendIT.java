package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer-lease and fenced-append routes of docs/reference/http-api.md "Fenced appends" against
 * a started server, with the JDK client: an overlapping retry appends only the new part, a stale
 * writer is 409 fenced, bad bodies are 400 naming the field.
 */
class FencedAppendIT {
  static final String W = "/v1/namespaces/ns/streams/out/partitions/0/writers/src-0";

  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h = new HttpTestSupport(dir);
    assertThat(h.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    HttpResponse<String> r =
        h.post("/v1/namespaces/ns/streams", "{\"name\":\"out\",\"partitions\":1}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
  }

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private static String group(long from, long to) {
    StringBuilder s = new StringBuilder("{\"source_from\":" + from + ",\"source_to\":" + to);
    s.append(",\"records\":[");
    for (long i = from; i <= to; i++) {
      s.append(i == from ? "" : ",").append("{\"key\":\"k").append(i).append("\",\"value\":\"v");
      s.append(i).append("\"}");
    }
    return s.append("]}").toString();
  }

  private HttpResponse<String> append(long epoch, String... groups) {
    return h.post(
        W + "/records",
        "{\"lease_epoch\":" + epoch + ",\"groups\":[" + String.join(",", groups) + "]}");
  }

  @Test
  void anOverlappingRetryAppendsOnlyTheNewPart() {
    assertThat(h.get(W).statusCode()).isEqualTo(404);
    HttpResponse<String> l = h.post(W + "/lease", "{\"holder\":\"worker-a\",\"lease_ms\":60000}");
    assertThat(l.statusCode()).as(l.body()).isEqualTo(200);
    JsonNode lease = json(l);
    assertThat(lease.path("epoch").asLong()).isEqualTo(1);
    assertThat(lease.path("source_upto").isNull()).isTrue();

    HttpResponse<String> first = append(1, group(0, 1), group(2, 2));
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(json(first).path("source_upto").asLong()).isEqualTo(2);
    assertThat(json(first).path("groups").get(1).path("offset").asLong()).isEqualTo(2);

    JsonNode retry = json(append(1, group(0, 1), group(2, 2), group(3, 4)));
    assertThat(retry.path("groups").get(0).path("status").asText()).isEqualTo("already_appended");
    assertThat(retry.path("groups").get(0).path("offset").isNull()).isTrue();
    assertThat(retry.path("groups").get(1).path("status").asText()).isEqualTo("already_appended");
    assertThat(retry.path("groups").get(2).path("status").asText()).isEqualTo("appended");
    assertThat(retry.path("groups").get(2).path("offset").asLong()).isEqualTo(3);
    assertThat(retry.path("token").asText()).isNotEmpty();

    JsonNode fetched =
        json(h.get("/v1/namespaces/ns/streams/out/partitions/0/records?offset=0&max_wait_ms=0"));
    assertThat(fetched.path("records")).hasSize(5);
    assertThat(json(h.get(W)).path("source_upto").asLong()).isEqualTo(4);
  }

  @Test
  void aStaleOrUnknownEpochIsFencedAndAnotherHolderConflicts() {
    h.post(W + "/lease", "{\"holder\":\"worker-a\"}");
    HttpResponse<String> stale = append(7, group(0, 0));
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(json(stale).path("code").asText()).isEqualTo("fenced");
    assertThat(stale.body()).contains("leaseEpoch=7");
    HttpResponse<String> other = h.post(W + "/lease", "{\"holder\":\"worker-b\"}");
    assertThat(other.statusCode()).as(other.body()).isEqualTo(409);
    assertThat(other.body()).contains("holder=worker-a");
  }

  @Test
  void badBodiesNameTheField() {
    h.post(W + "/lease", "{\"holder\":\"worker-a\"}");
    HttpResponse<String> noEpoch = h.post(W + "/records", "{\"groups\":[" + group(0, 0) + "]}");
    assertThat(noEpoch.statusCode()).isEqualTo(400);
    assertThat(noEpoch.body()).contains("lease_epoch");
    HttpResponse<String> noRange =
        h.post(
            W + "/records", "{\"lease_epoch\":1,\"groups\":[{\"records\":[{\"value\":\"x\"}]}]}");
    assertThat(noRange.statusCode()).isEqualTo(400);
    assertThat(noRange.body()).contains("groups[0].source_from");
    HttpResponse<String> badRecord =
        h.post(
            W + "/records",
            "{\"lease_epoch\":1,\"groups\":[{\"source_from\":0,\"source_to\":0,"
                + "\"records\":[{\"value\":\"x\",\"colour\":1}]}]}");
    assertThat(badRecord.statusCode()).isEqualTo(400);
    assertThat(badRecord.body()).contains("groups[0]", "colour");
    HttpResponse<String> gap = append(1, group(0, 0), group(2, 2));
    assertThat(gap.statusCode()).isEqualTo(400);
    assertThat(gap.body()).contains("contiguous");
    HttpResponse<String> noHolder = h.post(W + "/lease", "{}");
    assertThat(noHolder.statusCode()).isEqualTo(400);
  }

  @Test
  void aChangelogOfACompactedStreamFillsWithRowKinds() {
    HttpResponse<String> src =
        h.post(
            "/v1/namespaces/ns/streams",
            "{\"name\":\"rows\",\"partitions\":1,\"cleanup_policy\":\"compact\"}");
    assertThat(src.statusCode()).as(src.body()).isEqualTo(201);
    HttpResponse<String> bad =
        h.post("/v1/namespaces/ns/streams/out/changelogs", "{\"name\":\"c1\",\"mode\":\"full\"}");
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
    assertThat(bad.body()).contains("compacted");
    HttpResponse<String> c =
        h.post(
            "/v1/namespaces/ns/streams/rows/changelogs",
            "{\"name\":\"rows-cl\",\"mode\":\"full\"}");
    assertThat(c.statusCode()).as(c.body()).isEqualTo(201);
    h.post(
        "/v1/namespaces/ns/streams/rows/records",
        "{\"records\":[{\"key\":\"a\",\"value\":\"1\"},{\"key\":\"a\",\"value\":\"2\"}]}");
    JsonNode got = null;
    for (int i = 0; i < 50; i++) {
      got =
          json(
              h.get(
                  "/v1/namespaces/ns/streams/rows-cl/partitions/0/records?offset=0&max_wait_ms=200"));
      if (got.path("records").size() >= 3) {
        break;
      }
    }
    assertThat(got.path("records")).as(got.toString()).hasSize(3);
    assertThat(got.toString()).contains("loam.row_kind", "loam.source_offset");
    assertThat(got.path("records").get(1).path("value").asText()).isEqualTo("1");
    assertThat(got.path("records").get(2).path("value").asText()).isEqualTo("2");
  }
}
