package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * micrometer-registry-prometheus is an optional dependency of loam-http: on a class path without it
 * (and without the Prometheus client it brings) the server's meters still count, in a plain
 * Micrometer registry, and no exposition is offered, so {@code /metrics} answers 404 naming the
 * artifact. With it (this module's test class path) the exposition is Prometheus text.
 */
class MetricsWithoutPrometheusTest {
  @Test
  void withoutTheRegistryTheMetersCountAndNoExpositionIsOffered() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("prometheus")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    try (URLClassLoader without =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      assertThat(
              Optional.ofNullable(
                  without.getResource(
                      HttpMetrics.PROMETHEUS_REGISTRY_CLASS.replace('.', '/') + ".class")))
          .isEmpty();
      Class<?> c = Class.forName(HttpMetrics.class.getName(), true, without);
      Object metrics = c.getConstructor().newInstance();
      c.getMethod("record", String.class, String.class, int.class, long.class)
          .invoke(metrics, "produce", "POST", 200, 1_000_000L);
      assertThat((Optional<?>) c.getMethod("exposition").invoke(metrics)).isEmpty();
      Object registry = c.getMethod("registry").invoke(metrics);
      assertThat(registry.getClass().getName())
          .isEqualTo("io.micrometer.core.instrument.simple.SimpleMeterRegistry");
      Object counter =
          registry.getClass().getMethod("get", String.class).invoke(registry, "loam.http.requests");
      Object found = counter.getClass().getMethod("counter").invoke(counter);
      assertThat((double) found.getClass().getMethod("count").invoke(found)).isEqualTo(1.0);
    }
  }

  @Test
  void withTheRegistryTheExpositionIsPrometheusText() {
    HttpMetrics m = new HttpMetrics();
    m.record("produce", "POST", 200, 1_000_000L);
    HttpMetrics.Exposition e = m.exposition().orElseThrow();
    assertThat(e.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    assertThat(
            dev.loam.http.PrometheusSamples.parse(e.scrape())
                .value(
                    "loam_http_requests_total",
                    java.util.Map.of("route", "produce", "method", "POST", "status", "200")))
        .isEqualTo(1.0);
    m.registry().close();
  }
}
