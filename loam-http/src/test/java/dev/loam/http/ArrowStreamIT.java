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
 * Arrow streams over HTTP with the JDK client: create with {@code arrow_schema}, produce JSON
 * records (a mismatch is a 400 naming the field), fetch them back as canonical records, list and
 * add schema versions, and refuse an incompatible one.
 */
class ArrowStreamIT {
  static final String NS = "/v1/namespaces/ns/streams";
  static final String SCHEMA =
      "{\"fields\":[{\"name\":\"id\",\"nullable\":false,"
          + "\"type\":{\"name\":\"int\",\"bitWidth\":32,\"isSigned\":true},\"children\":[]},"
          + "{\"name\":\"tag\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}";
  static final String V2 =
      SCHEMA.substring(0, SCHEMA.length() - 2)
          + ",{\"name\":\"ok\",\"nullable\":true,\"type\":{\"name\":\"bool\"},\"children\":[]}]}";

  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h = new HttpTestSupport(dir);
    assertThat(h.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    HttpResponse<String> r =
        h.post(NS, "{\"name\":\"a\",\"partitions\":1,\"arrow_schema\":" + SCHEMA + "}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void produceFetchAndEvolve() {
    HttpResponse<String> ok =
        h.post(
            NS + "/a/records",
            "{\"records\":[{\"partition\":0,\"value\":\"{\\\"id\\\":7,\\\"tag\\\":\\\"x\\\"}\"},"
                + "{\"partition\":0,\"value\":\"{\\\"id\\\":8}\"}]}");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);

    HttpResponse<String> bad =
        h.post(
            NS + "/a/records", "{\"records\":[{\"partition\":0,\"value\":\"{\\\"id\\\":true}\"}]}");
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
    assertThat(bad.body()).contains("field=id: expected an integer, got a boolean");

    HttpResponse<String> add = h.post(NS + "/a/schemas", V2);
    assertThat(add.statusCode()).as(add.body()).isEqualTo(201);
    assertThat(json(add).path("version").asInt()).isEqualTo(2);
    HttpResponse<String> incompatible = h.post(NS + "/a/schemas", SCHEMA);
    assertThat(incompatible.statusCode()).as(incompatible.body()).isEqualTo(400);
    assertThat(incompatible.body()).contains("field=ok: removed");

    JsonNode versions = json(h.get(NS + "/a/schemas")).path("versions");
    assertThat(versions).hasSize(2);
    assertThat(versions.get(1).path("schema").path("fields")).hasSize(3);

    HttpResponse<String> fetched = h.get(NS + "/a/partitions/0/records?offset=0&max_wait_ms=0");
    assertThat(fetched.statusCode()).as(fetched.body()).isEqualTo(200);
    JsonNode records = json(fetched).path("records");
    assertThat(records).hasSize(2);
    assertThat(records.get(0).path("value").asText())
        .isEqualTo("{\"id\":7,\"tag\":\"x\",\"ok\":null}");
    assertThat(records.get(1).path("value").asText())
        .isEqualTo("{\"id\":8,\"tag\":null,\"ok\":null}");
  }

  @Test
  void columnsProjectAFetch() {
    HttpResponse<String> ok =
        h.post(
            NS + "/a/records",
            "{\"records\":[{\"partition\":0,\"key\":\"k\",\"value\":\"{\\\"id\\\":7,\\\"tag\\\":\\\"x\\\"}\"}]}");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    HttpResponse<String> fetched = h.get(NS + "/a/partitions/0/records?offset=0&columns=tag,id");
    assertThat(fetched.statusCode()).as(fetched.body()).isEqualTo(200);
    JsonNode records = json(fetched).path("records");
    assertThat(records).hasSize(1);
    assertThat(records.get(0).path("value").asText()).isEqualTo("{\"tag\":\"x\",\"id\":7}");
    assertThat(records.get(0).path("key").asText()).isEqualTo("k");

    HttpResponse<String> unknown = h.get(NS + "/a/partitions/0/records?offset=0&columns=nope");
    assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(400);
    assertThat(unknown.body()).contains("no such column column=nope");
    HttpResponse<String> withToken =
        h.get(NS + "/a/partitions/0/records?offset=0&columns=id&min_token=1");
    assertThat(withToken.statusCode()).as(withToken.body()).isEqualTo(400);
  }
}
