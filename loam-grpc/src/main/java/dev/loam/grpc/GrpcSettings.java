package dev.loam.grpc;

import dev.loam.cloudevents.CloudEventIngest;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.tls.TlsSettings;
import io.grpc.BindableService;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link LoamGrpcServer} listens and serves (docs/reference/grpc.md "Settings").
 *
 * @param host the address the listener binds (default {@code 127.0.0.1})
 * @param port the port (default {@value #DEFAULT_PORT}); 0 for an ephemeral one
 * @param authentication when an API key is required (default: {@code WHEN_KEYS_EXIST} on a loopback
 *     host, {@code REQUIRED} otherwise, as the HTTP API)
 * @param tls when present the listener speaks TLS only
 * @param ingestQuota the default per-namespace ingest-bytes quota, per node (default unlimited)
 * @param ingestQuotaOverrides namespace to its own quota
 * @param maxRequestBytes the largest request message (default 16 MiB)
 * @param threads threads of the executor that runs calls (default 2)
 * @param maxFetchBytes the {@code max_bytes} of a Fetch that sends 0, and the most one may ask
 * @param subscribeBytes the {@code max_bytes} of a Subscribe message when the request sends 0, and
 *     the most one may ask
 * @param subscribeWait how long one long-poll of a Subscribe waits before it polls again
 * @param cloudEventsDedupWindow how long {@code CloudEventsService/Ingest} answers a repeated
 *     source + id as a duplicate (1 s..24 h; 1 h by default, as on the HTTP API)
 * @param extraServices further services served behind the same authentication and TLS
 */
public record GrpcSettings(
    String host,
    int port,
    Authentication authentication,
    Optional<TlsSettings> tls,
    IngestQuota ingestQuota,
    Map<String, IngestQuota> ingestQuotaOverrides,
    int maxRequestBytes,
    int threads,
    int maxFetchBytes,
    int subscribeBytes,
    Duration subscribeWait,
    Duration cloudEventsDedupWindow,
    List<BindableService> extraServices) {

  /** The default port of {@code ./loam server}: gRPC's conventional one. */
  public static final int DEFAULT_PORT = 50051;

  /** The node-registry endpoint name under which a server advertises its {@code host:port}. */
  public static final String ENDPOINT = "grpc";

  public GrpcSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(authentication, "authentication");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(ingestQuota, "ingestQuota");
    Objects.requireNonNull(subscribeWait, "subscribeWait");
    Objects.requireNonNull(cloudEventsDedupWindow, "cloudEventsDedupWindow");
    ingestQuotaOverrides = Map.copyOf(ingestQuotaOverrides);
    extraServices = List.copyOf(extraServices);
    if (host.isBlank()) {
      throw invalid("host must not be blank");
    }
    if (port < 0 || port > 65535) {
      throw invalid("port must be within 0..65535 port=" + port);
    }
    if (maxRequestBytes < 1024 || maxRequestBytes > (256 << 20)) {
      throw invalid(
          "max request size must be within 1 KiB..256 MiB maxRequestBytes=" + maxRequestBytes);
    }
    if (threads < 1 || threads > 256) {
      throw invalid("threads must be within 1..256 threads=" + threads);
    }
    if (maxFetchBytes < 1024 || maxFetchBytes > (64 << 20)) {
      throw invalid("maxFetchBytes must be within 1 KiB..64 MiB maxFetchBytes=" + maxFetchBytes);
    }
    if (subscribeBytes < 1024 || subscribeBytes > (16 << 20)) {
      throw invalid("subscribeBytes must be within 1 KiB..16 MiB subscribeBytes=" + subscribeBytes);
    }
    if (subscribeWait.compareTo(Duration.ofMillis(10)) < 0
        || subscribeWait.compareTo(Duration.ofMinutes(10)) > 0) {
      throw invalid("subscribeWait must be within 10 ms..10 min subscribeWait=" + subscribeWait);
    }
    if (cloudEventsDedupWindow.compareTo(Duration.ofSeconds(1)) < 0
        || cloudEventsDedupWindow.compareTo(CloudEventIngest.MAX_WINDOW) > 0) {
      throw invalid(
          "cloudEventsDedupWindow must be within 1 s..24 h cloudEventsDedupWindow="
              + cloudEventsDedupWindow);
    }
  }

  /** The defaults: loopback, port {@value #DEFAULT_PORT}. */
  public static GrpcSettings defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  private static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, "invalid gRPC settings: " + message);
  }

  /** Builds {@link GrpcSettings}; each value is validated by {@link #build()}. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = DEFAULT_PORT;
    private Authentication authentication;
    private Optional<TlsSettings> tls = Optional.empty();
    private IngestQuota ingestQuota = IngestQuota.unlimited();
    private Map<String, IngestQuota> overrides = Map.of();
    private int maxRequestBytes = 16 << 20;
    private int threads = 2;
    private int maxFetchBytes = 1 << 20;
    private int subscribeBytes = 256 << 10;
    private Duration subscribeWait = Duration.ofSeconds(30);
    private Duration dedupWindow = CloudEventIngest.DEFAULT_WINDOW;
    private final List<BindableService> extra = new ArrayList<>();

    Builder() {}

    public Builder host(String h) {
      this.host = h;
      return this;
    }

    public Builder port(int p) {
      this.port = p;
      return this;
    }

    public Builder authentication(Authentication a) {
      this.authentication = Objects.requireNonNull(a, "authentication");
      return this;
    }

    public Builder tls(TlsSettings t) {
      this.tls = Optional.of(Objects.requireNonNull(t, "tls"));
      return this;
    }

    public Builder ingestQuota(IngestQuota q) {
      this.ingestQuota = Objects.requireNonNull(q, "ingestQuota");
      return this;
    }

    public Builder ingestQuotaOverrides(Map<String, IngestQuota> o) {
      this.overrides = Map.copyOf(o);
      return this;
    }

    public Builder maxRequestBytes(int n) {
      this.maxRequestBytes = n;
      return this;
    }

    public Builder threads(int n) {
      this.threads = n;
      return this;
    }

    public Builder maxFetchBytes(int n) {
      this.maxFetchBytes = n;
      return this;
    }

    public Builder subscribeBytes(int n) {
      this.subscribeBytes = n;
      return this;
    }

    public Builder subscribeWait(Duration d) {
      this.subscribeWait = Objects.requireNonNull(d, "subscribeWait");
      return this;
    }

    /** How long CloudEvents ingest answers a repeated source + id as a duplicate. */
    public Builder cloudEventsDedupWindow(Duration d) {
      this.dedupWindow = Objects.requireNonNull(d, "cloudEventsDedupWindow");
      return this;
    }

    /** Serves one more service on the same listener, behind the same authentication and TLS. */
    public Builder addService(BindableService s) {
      extra.add(Objects.requireNonNull(s, "service"));
      return this;
    }

    public GrpcSettings build() {
      Authentication a = authentication != null ? authentication : defaultAuthentication(host);
      return new GrpcSettings(
          host,
          port,
          a,
          tls,
          ingestQuota,
          overrides,
          maxRequestBytes,
          threads,
          maxFetchBytes,
          subscribeBytes,
          subscribeWait,
          dedupWindow,
          extra);
    }

    private static Authentication defaultAuthentication(String host) {
      try {
        return InetAddress.getByName(host).isLoopbackAddress()
            ? Authentication.WHEN_KEYS_EXIST
            : Authentication.REQUIRED;
      } catch (UnknownHostException e) {
        return Authentication.REQUIRED;
      }
    }
  }
}
