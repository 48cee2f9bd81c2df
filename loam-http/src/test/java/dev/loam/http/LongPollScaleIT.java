package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A long-poll is a pending future: a thousand of them do not cost a thousand threads. */
class LongPollScaleIT {
  static final int POLLS = 1000;

  @TempDir Path dir;

  @Test
  void aThousandConcurrentLongPollsAreHeldByAFewThreadsAndAllWake() throws Exception {
    try (HttpTestSupport h = new HttpTestSupport(dir)) {
      h.post("/v1/namespaces", "{\"name\":\"ns\"}");
      h.post("/v1/namespaces/ns/streams", "{\"name\":\"s\",\"partitions\":1}");
      // Warm up: the client's selector and the server's event loops exist before counting.
      for (int i = 0; i < 4; i++) {
        h.get("/v1/health");
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      int before = threads.getThreadCount();
      List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
      for (int i = 0; i < POLLS; i++) {
        polls.add(
            h.sendAsync(
                h.req("/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&max_wait_ms=20000")
                    .timeout(Duration.ofSeconds(60))
                    .GET()
                    .build()));
      }
      HttpTestSupport.await(
          () -> h.server.longPollsInFlight() == POLLS, Duration.ofSeconds(30), POLLS + " polls");
      int during = threads.getThreadCount();
      assertThat(h.server.connections()).isGreaterThanOrEqualTo(POLLS);
      // The server's event loops (2) and the client's fixed pool (2) already exist; a little
      // slack for JVM housekeeping threads.
      assertThat(during - before)
          .as("threads before=%d during=%d", before, during)
          .isLessThanOrEqualTo(8);

      long produced = System.nanoTime();
      assertThat(
              h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":\"go\"}]}")
                  .statusCode())
          .isEqualTo(200);
      CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      long allWoke = (System.nanoTime() - produced) / 1_000_000;
      for (CompletableFuture<HttpResponse<String>> p : polls) {
        HttpResponse<String> r = p.get();
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"value\":\"go\"");
      }
      assertThat(allWoke).as("ms until all %d polls answered", POLLS).isLessThan(10_000);
      assertThat(h.server.longPollsInFlight()).isZero();
    }
  }
}
