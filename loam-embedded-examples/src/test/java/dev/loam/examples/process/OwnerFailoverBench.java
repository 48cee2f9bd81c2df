package dev.loam.examples.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Owner failover time: three {@code loam node} processes; each run kills (-9) the owner of a stream
 * and measures the time until an owner-bound request (a config change) succeeds on another node,
 * following 307s by hand; then restarts the killed node. Prints each run and the median and max.
 * Not a test: run by hand, on a quiet machine.
 *
 * <pre>
 * mvn -B -pl loam-embedded-examples -am package -DskipTests   # once, then:
 * cd loam-embedded-examples && java -cp "target/test-classes:target/classes:target/lib/*" \
 *     dev.loam.examples.process.OwnerFailoverBench [runs=10] [livenessMs=3000]
 * </pre>
 */
public final class OwnerFailoverBench {
  private OwnerFailoverBench() {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    String liveness = args.length > 1 ? args[1] : "3000";
    ObjectMapper json = new ObjectMapper();
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    String streams = "/v1/namespaces/default/streams";
    try (ProcessCluster c =
        ProcessCluster.builder()
            .nodes(3)
            .logDir(Path.of("target", "process-cluster", "OwnerFailoverBench"))
            .nodeArgs("--flush-ms", "10", "--liveness-timeout-ms", liveness)
            .start()) {
      send(client, c.httpUrl(0) + streams, "POST", "{\"name\":\"f\",\"partitions\":1}");
      List<Long> times = new ArrayList<>();
      for (int run = 0; run < runs; run++) {
        String owner = "";
        while (owner.isEmpty()) {
          for (int i = 0; i < 3 && owner.isEmpty(); i++) {
            HttpResponse<String> d = send(client, c.httpUrl(i) + streams + "/f", "GET", null);
            JsonNode o = json.readTree(d.body()).get("owner");
            if (o.get("state").asText().equals("open")) {
              owner = o.get("node_id").asText();
            }
          }
          Thread.sleep(50);
        }
        int victim = -1;
        for (int i = 0; i < 3; i++) {
          if (c.nodeId(i).equals(owner)) {
            victim = i;
          }
        }
        int via = (victim + 1) % 3;
        long t0 = System.nanoTime();
        c.kill9(victim);
        String body = "{\"retention_ms\":" + (3_600_000 + run) + "}";
        while (true) {
          HttpResponse<String> r;
          try {
            r = send(client, c.httpUrl(via) + streams + "/f", "PATCH", body);
            String loc = r.headers().firstValue("location").orElse("");
            if (r.statusCode() == 307 && !loc.startsWith(c.httpUrl(victim))) {
              r = send(client, loc, "PATCH", body);
            }
          } catch (java.io.IOException e) {
            r = null;
          }
          if (r != null && r.statusCode() == 200) {
            break;
          }
          Thread.sleep(20);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        times.add(ms);
        System.out.println("run " + (run + 1) + " owner=" + owner + " failover_ms=" + ms);
        c.restart(victim);
      }
      Collections.sort(times);
      System.out.println(
          "owner failover over "
              + runs
              + " runs (liveness "
              + liveness
              + " ms): median_ms="
              + times.get(times.size() / 2)
              + " min_ms="
              + times.get(0)
              + " max_ms="
              + times.get(times.size() - 1)
              + " all="
              + times);
    }
  }

  private static HttpResponse<String> send(
      HttpClient client, String url, String method, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5));
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("content-type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
