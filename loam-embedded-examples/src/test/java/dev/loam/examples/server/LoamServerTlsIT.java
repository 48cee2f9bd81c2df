package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.http.Curl;
import dev.loam.tls.TestPki;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loam server --tls-cert --tls-key} as a separate process serves HTTPS to curl. */
class LoamServerTlsIT {
  @TempDir Path dir;

  @Test
  void servesHttpsWithTheGivenCertificate() throws Exception {
    Curl.requireCurl();
    TestPki ca = TestPki.create(dir.resolve("pki"), "server");
    TestPki.Issued cert = ca.issue("localhost");
    LoamServerMainIT.Server s =
        LoamServerMainIT.launch(
            dir.resolve("data"),
            "--kafka-port",
            "off",
            "--tls-cert",
            cert.certificate().toString(),
            "--tls-key",
            cert.privateKey().toString());
    try {
      assertThat(s.url()).startsWith("https://127.0.0.1:");
      Curl.Result r =
          Curl.run("--cacert", ca.caCertificate().toString(), s.url() + "/v1/namespaces");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).contains("default");
    } finally {
      LoamServerMainIT.stop(s);
    }
  }
}
