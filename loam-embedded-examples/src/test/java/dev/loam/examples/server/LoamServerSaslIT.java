package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.tls.UsedSecrets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam server --kafka-sasl-mechanisms SCRAM-SHA-256} as a separate process: open until the
 * first key (created over HTTP from loopback), then the Kafka listener wants SASL with that key,
 * offers only the mechanism given, and refuses a client that does not authenticate.
 */
class LoamServerSaslIT {
  static final Pattern KAFKA = Pattern.compile("kafka=([0-9.]+:[0-9]+)");
  static final Pattern FIELD = Pattern.compile("\"(id|secret)\":\"([^\"]+)\"");

  @TempDir Path dir;

  static Admin admin(String bootstrap, Map<String, Object> extra) {
    Map<String, Object> p = new java.util.HashMap<>(extra);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 8_000);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 4_000);
    return Admin.create(p);
  }

  static Map<String, Object> sasl(String mechanism, String id, String secret) {
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        mechanism,
        "sasl.jaas.config",
        module + " required username=\"" + id + "\" password=\"" + secret + "\";");
  }

  @Test
  void theKafkaListenerAsksForTheKeysWithTheMechanismsGiven() throws Exception {
    LoamServerMainIT.Server s =
        LoamServerMainIT.launch(
            dir.resolve("data"), "--kafka-port", "0", "--kafka-sasl-mechanisms", "scram-sha-256");
    try {
      Matcher km = KAFKA.matcher(s.servingLine());
      assertThat(km.find()).as(s.servingLine()).isTrue();
      String bootstrap = km.group(1);
      // No key yet: open.
      try (Admin open = admin(bootstrap, Map.of())) {
        open.createTopics(java.util.List.of(new NewTopic("cli-sasl", 1, (short) 1)))
            .all()
            .get(20, TimeUnit.SECONDS);
      }
      HttpResponse<String> created =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(s.url() + "/v1/admin/keys"))
                      .header("content-type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"roles\":[\"cluster-admin\",\"admin\",\"produce\",\"consume\"]}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(201);
      Map<String, String> key = new java.util.HashMap<>();
      Matcher f = FIELD.matcher(created.body());
      while (f.find()) {
        key.putIfAbsent(f.group(1), f.group(2));
      }
      UsedSecrets.record(key.get("secret"));
      try (Admin a = admin(bootstrap, sasl("SCRAM-SHA-256", key.get("id"), key.get("secret")))) {
        assertThat(a.listTopics().names().get(20, TimeUnit.SECONDS)).contains("cli-sasl");
      }
      try (Admin a = admin(bootstrap, sasl("PLAIN", key.get("id"), key.get("secret")))) {
        assertThatThrownBy(() -> a.listTopics().names().get(20, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(UnsupportedSaslMechanismException.class);
      }
      try (Admin a = admin(bootstrap, Map.of())) {
        assertThatThrownBy(() -> a.listTopics().names().get(20, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class);
      }
    } finally {
      LoamServerMainIT.stop(s);
    }
  }
}
