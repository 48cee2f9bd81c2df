package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.kms.Pkcs12KeyManagementService;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Namespace encryption over HTTP, against a started server with the JDK client and a node with the
 * local PKCS#12 KMS: {@code POST /v1/namespaces} with {@code "encrypted": true}, {@code GET|POST|
 * DELETE /v1/namespaces/{ns}/keys}; records of an encrypted namespace produce and fetch as usual,
 * and after the destroy its fetch and produce are 404 naming the namespace while a plain one still
 * reads.
 */
class NamespaceKeysIT {
  @TempDir Path dir;
  Pkcs12KeyManagementService kms;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    kms = new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "pw".toCharArray());
    h = new HttpTestSupport(dir.resolve("node"), n -> n.keyManagement(kms), b -> b);
  }

  @AfterEach
  void tearDown() {
    h.close();
    kms.close();
  }

  HttpResponse<String> postEmpty(String path) {
    return h.send(h.req(path).POST(HttpRequest.BodyPublishers.noBody()).build());
  }

  @Test
  void anEncryptedNamespaceIsCreatedRotatedReadAndShredded() {
    HttpResponse<String> r = h.post("/v1/namespaces", "{\"name\":\"vault\",\"encrypted\":true}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    JsonNode keys = json(r).path("keys");
    assertThat(keys.path("encrypted").asBoolean()).isTrue();
    assertThat(keys.path("key_ids")).hasSize(1);
    assertThat(keys.path("current_key_id").asText()).startsWith("vault/");
    assertThat(h.post("/v1/namespaces", "{\"name\":\"open\"}").statusCode()).isEqualTo(201);
    JsonNode plain = json(h.get("/v1/namespaces/open/keys"));
    assertThat(plain.path("encrypted").asBoolean()).isFalse();
    assertThat(plain.path("key_ids")).isEmpty();

    r = postEmpty("/v1/namespaces/vault/keys");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    assertThat(json(r).path("key_ids")).hasSize(2);
    assertThat(json(h.get("/v1/namespaces/vault/keys")).path("current_key_id").asText())
        .isEqualTo(json(r).path("current_key_id").asText());

    for (String ns : new String[] {"vault", "open"}) {
      assertThat(
              h.post(
                      "/v1/namespaces/" + ns + "/streams",
                      "{\"name\":\"s\",\"partitions\":1,\"class\":\"standard\"}")
                  .statusCode())
          .isEqualTo(201);
      r =
          h.post(
              "/v1/namespaces/" + ns + "/streams/s/records",
              "{\"records\":[{\"value\":\"hello-" + ns + "\"}]}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      r = h.get("/v1/namespaces/" + ns + "/streams/s/partitions/0/records?offset=0");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.body()).contains("hello-" + ns);
    }

    r = h.delete("/v1/namespaces/vault/keys");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(json(r).path("destroyed").asBoolean()).isTrue();
    r = h.get("/v1/namespaces/vault/streams/s/partitions/0/records?offset=0");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
    assertThat(json(r).path("detail").asText()).contains("namespace=vault");
    r = h.post("/v1/namespaces/vault/streams/s/records", "{\"records\":[{\"value\":\"x\"}]}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
    assertThat(json(r).path("detail").asText()).contains("namespace=vault");
    r = h.get("/v1/namespaces/open/streams/s/partitions/0/records?offset=0");
    assertThat(r.body()).contains("hello-open");
    r = postEmpty("/v1/namespaces/vault/keys");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
  }

  @Test
  void badRequestsNameWhatWasWrong() {
    HttpResponse<String> r = h.post("/v1/namespaces", "{\"name\":\"x\",\"encrypted\":\"yes\"}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(json(r).path("detail").asText()).contains("field=encrypted");
    r = postEmpty("/v1/namespaces/missing/keys");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
    r = h.delete("/v1/namespaces/default/keys");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(json(r).path("detail").asText()).contains("has no key");
  }
}
