package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status of a produce whose commit ran out of budget (docs/reference/http-api.md "Errors"): 503
 * {@code unavailable} with {@code Retry-After} when the commit was never proposed (no metastore
 * majority reachable: nothing can have been appended), 504 {@code outcome_unknown} when an attempt
 * reached the metastore and its answer was lost (the records may have been appended).
 */
class CommitStatusIT {
  private static final String RECORDS = "/v1/namespaces/ns/streams/s/records";
  private static final String BODY = "{\"records\":[{\"value\":\"v\",\"partition\":0}]}";

  @TempDir Path dir;
  FaultyMetastore meta;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    meta = new FaultyMetastore(dir.resolve("meta"));
    h =
        new HttpTestSupport(
            dir.resolve("data"),
            n ->
                n.metastore(meta)
                    .settings(HttpTestSupport.FAST.withCommitBudget(Duration.ofMillis(500))),
            b -> b);
    assertThat(h.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    assertThat(h.post("/v1/namespaces/ns/streams", "{\"name\":\"s\"}").statusCode()).isEqualTo(201);
  }

  @AfterEach
  void tearDown() {
    h.close();
    meta.close();
  }

  private long latest() {
    return json(h.get("/v1/namespaces/ns/streams/s/partitions/0/offsets?spec=latest"))
        .path("offset")
        .asLong();
  }

  @Test
  void aCommitNeverProposedIs503Unavailable() {
    meta.noMajority = "no metastore leader known peer=test";
    HttpResponse<String> r = h.post(RECORDS, BODY);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
    assertThat(r.headers().firstValue("retry-after")).hasValue("1");
    JsonNode p = json(r);
    assertThat(p.path("code").asText()).isEqualTo("unavailable");
    assertThat(p.path("error").path("kind").asText()).isEqualTo("UNAVAILABLE");
    assertThat(p.path("detail").asText())
        .contains("never proposed", "nothing was appended", "no metastore leader known");
    assertThat(meta.proposedWithoutMajority.get())
        .as("commits proposed without a majority")
        .isZero();
    meta.noMajority = null;
    assertThat(latest()).isZero();
  }

  @Test
  void aProduceInFlightWhenTheServerClosesWithoutAMajorityIsAnsweredAtOnce() throws Exception {
    try (FaultyMetastore meta2 = new FaultyMetastore(dir.resolve("meta2"));
        HttpTestSupport slow =
            new HttpTestSupport(dir.resolve("data2"), n -> n.metastore(meta2), b -> b)) {
      assertThat(slow.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
      assertThat(slow.post("/v1/namespaces/ns/streams", "{\"name\":\"t\"}").statusCode())
          .isEqualTo(201);
      meta2.noMajority = "no metastore leader known peer=test";
      // The default 60 s commit budget: without the bound the close would wait its 30 s timeout.
      var pending =
          slow.sendAsync(
              slow.req("/v1/namespaces/ns/streams/t/records")
                  .header("content-type", "application/json")
                  .POST(java.net.http.HttpRequest.BodyPublishers.ofString(BODY))
                  .build());
      // In flight once its WAL object is written (its commit then waits for a majority).
      HttpTestSupport.await(
          () -> slow.node.writerStats().puts() > 0, Duration.ofSeconds(10), "the WAL object PUT");
      assertThat(pending).isNotDone();
      int port = slow.server.port();
      long t0 = System.nanoTime();
      slow.server.close();
      long closeMillis = (System.nanoTime() - t0) / 1_000_000;
      HttpResponse<String> r = pending.get(5, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(closeMillis).as("server close without a majority, ms").isLessThan(3000);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
      assertThat(json(r).path("detail").asText())
          .contains("the server stopped before the append's outcome was known", "metastore");
      // The port is released: it can be bound again at once.
      try (java.net.ServerSocket again =
          new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
        assertThat(again.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void aCommitWhoseAnswerWasLostIs504OutcomeUnknown() {
    meta.loseCommitAnswers = true;
    HttpResponse<String> r = h.post(RECORDS, BODY);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
    assertThat(r.headers().firstValue("retry-after")).isEmpty();
    JsonNode p = json(r);
    assertThat(p.path("code").asText()).isEqualTo("outcome_unknown");
    assertThat(p.path("error").path("kind").asText()).isEqualTo("OUTCOME_UNKNOWN");
    assertThat(p.path("detail").asText()).contains("commit outcome unknown");
    // It was in fact appended: "read to find out" is the right advice.
    meta.loseCommitAnswers = false;
    assertThat(latest()).isEqualTo(1);
  }
}
