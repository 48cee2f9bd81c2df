package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./loam server --flight-port} serves Arrow Flight beside the HTTP API: an arrow stream
 * created and produced to over HTTP is read back by Arrow Java's FlightClient.
 */
class LoamServerFlightIT {
  static final Pattern FLIGHT = Pattern.compile(" flight=([0-9.]+):([0-9]+)");

  @TempDir Path dir;

  private static HttpResponse<String> post(HttpClient c, String url, String body) throws Exception {
    return c.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theFlightPortServesArrowStreams() throws Exception {
    LoamServerMainIT.Server s =
        LoamServerMainIT.launch(dir.resolve("data"), "--kafka-port", "off", "--flight-port", "0");
    try {
      Matcher m = FLIGHT.matcher(s.servingLine());
      assertThat(m.find()).as(s.servingLine()).isTrue();
      HttpClient http = HttpClient.newHttpClient();
      String schema =
          "{\"fields\":[{\"name\":\"n\",\"nullable\":false,"
              + "\"type\":{\"name\":\"int\",\"bitWidth\":32,\"isSigned\":true},\"children\":[]}]}";
      HttpResponse<String> created =
          post(
              http,
              s.url() + "/v1/namespaces/default/streams",
              "{\"name\":\"a\",\"partitions\":1,\"arrow_schema\":" + schema + "}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      HttpResponse<String> produced =
          post(
              http,
              s.url() + "/v1/namespaces/default/streams/a/records",
              "{\"records\":[{\"partition\":0,\"value\":\"{\\\"n\\\":41}\"},"
                  + "{\"partition\":0,\"value\":\"{\\\"n\\\":42}\"}]}");
      assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
      try (BufferAllocator a = new RootAllocator();
          FlightClient client =
              FlightClient.builder(
                      a, Location.forGrpcInsecure(m.group(1), Integer.parseInt(m.group(2))))
                  .build()) {
        FlightInfo info = client.getInfo(FlightDescriptor.path("default", "a"));
        assertThat(info.getRecords()).isEqualTo(2);
        List<Object> values = new ArrayList<>();
        try (FlightStream st = client.getStream(info.getEndpoints().get(0).getTicket())) {
          while (st.next()) {
            for (int r = 0; r < st.getRoot().getRowCount(); r++) {
              values.add(st.getRoot().getVector("n").getObject(r));
            }
          }
        }
        assertThat(values).containsExactly(41, 42);
      }
    } finally {
      LoamServerMainIT.stop(s);
    }
  }
}
