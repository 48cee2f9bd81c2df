package dev.loam.http.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@code /metrics} through Micrometer's Prometheus registry. The only class of loam-http that names
 * {@code micrometer-registry-prometheus}, an optional dependency: {@link HttpMetrics} looks for the
 * registry class ({@link HttpMetrics#PROMETHEUS_REGISTRY_CLASS}) before it touches this one, so
 * without it this class is never linked (linking it would load the registry class).
 */
final class PrometheusExposition implements HttpMetrics.Exposition {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  MeterRegistry registry() {
    return registry;
  }

  @Override
  public String contentType() {
    return "text/plain; version=0.0.4; charset=utf-8";
  }

  @Override
  public String scrape() {
    return registry.scrape();
  }
}
