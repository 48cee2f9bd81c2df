package dev.loam.otlp;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.tls.TlsSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The settings of an {@link OtlpReceiver}: where its two listeners bind, where records go by
 * default, the per-stream key attributes, authentication, quota, TLS and limits
 * (docs/reference/otlp.md "Configuration"). Immutable; build with {@link #builder()}.
 *
 * @param host the address both listeners bind (default {@code 127.0.0.1})
 * @param httpPort the OTLP/HTTP port (default 4318), 0 for an ephemeral one, -1 for none
 * @param grpcPort the OTLP/gRPC port (default 4317), 0 for an ephemeral one, -1 for none
 * @param defaultNamespace the namespace of a request that names none and whose key is not scoped
 *     (default {@code default}); created at start if absent
 * @param defaultStream the stream of a request without {@code loam-stream} (default {@code
 *     otel_logs})
 * @param autoCreateStreams whether a missing stream is created on first use (default true)
 * @param defaultPartitions partitions of an auto-created stream (default 4)
 * @param keyAttributes stream name to the attribute whose value keys its records
 * @param maxRequestBytes largest body, as sent and after gzip (default 16 MiB)
 * @param maxRecordBytes largest mapped record, value and headers (default 1 MiB)
 * @param maxRecordsPerRequest most LogRecords in one request (default 100 000)
 * @param authentication when an API key is required (default: {@code WHEN_KEYS_EXIST} on a loopback
 *     host, {@code REQUIRED} otherwise)
 * @param ingestQuota the default per-namespace ingest-bytes quota, per node (default unlimited)
 * @param ingestQuotaOverrides namespace to its own quota
 * @param tls when present both listeners speak TLS only
 * @param ioThreads event-loop threads of each listener (default min(4, processors))
 */
public record OtlpSettings(
    String host,
    int httpPort,
    int grpcPort,
    String defaultNamespace,
    String defaultStream,
    boolean autoCreateStreams,
    int defaultPartitions,
    Map<String, String> keyAttributes,
    int maxRequestBytes,
    int maxRecordBytes,
    int maxRecordsPerRequest,
    Authentication authentication,
    IngestQuota ingestQuota,
    Map<String, IngestQuota> ingestQuotaOverrides,
    Optional<TlsSettings> tls,
    int ioThreads) {

  /** The OTLP/HTTP default port. */
  public static final int DEFAULT_HTTP_PORT = 4318;

  /** The OTLP/gRPC default port. */
  public static final int DEFAULT_GRPC_PORT = 4317;

  /** The stream of a request without {@code loam-stream}. */
  public static final String DEFAULT_STREAM = "otel_logs";

  /** Partitions of an auto-created stream. */
  public static final int DEFAULT_PARTITIONS = 4;

  /** A port value meaning "no listener". */
  public static final int OFF = -1;

  private static final Pattern ATTRIBUTE = Pattern.compile("[\\x21-\\x7e]{1,255}");

  public OtlpSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(defaultNamespace, "defaultNamespace");
    Objects.requireNonNull(defaultStream, "defaultStream");
    Objects.requireNonNull(authentication, "authentication");
    Objects.requireNonNull(ingestQuota, "ingestQuota");
    Objects.requireNonNull(tls, "tls");
    keyAttributes = Map.copyOf(keyAttributes);
    ingestQuotaOverrides = Map.copyOf(ingestQuotaOverrides);
    if (host.isBlank()) {
      throw invalid("host must not be blank host=" + host);
    }
    checkPort("httpPort", httpPort);
    checkPort("grpcPort", grpcPort);
    if (httpPort == OFF && grpcPort == OFF) {
      throw invalid("at least one of the OTLP listeners must be on httpPort=-1 grpcPort=-1");
    }
    if (httpPort > 0 && httpPort == grpcPort) {
      throw invalid("the OTLP/HTTP and OTLP/gRPC ports must differ port=" + httpPort);
    }
    if (defaultNamespace.isBlank()) {
      throw invalid("default namespace must not be blank");
    }
    if (defaultStream.isBlank()) {
      throw invalid("default stream must not be blank");
    }
    if (defaultPartitions < 1 || defaultPartitions > 10_000) {
      throw invalid(
          "default partitions must be within 1..10000 defaultPartitions=" + defaultPartitions);
    }
    for (Map.Entry<String, String> e : keyAttributes.entrySet()) {
      if (e.getKey().isBlank() || !ATTRIBUTE.matcher(e.getValue()).matches()) {
        throw invalid(
            "a key attribute names a stream and 1..255 printable ASCII characters stream="
                + e.getKey()
                + " attribute="
                + e.getValue());
      }
    }
    if (maxRequestBytes < 1024 || maxRequestBytes > (256 << 20)) {
      throw invalid(
          "max request size must be within 1 KiB..256 MiB maxRequestBytes=" + maxRequestBytes);
    }
    if (maxRecordBytes < 256 || maxRecordBytes > (8 << 20)) {
      throw invalid(
          "max record size must be within 256 bytes..8 MiB maxRecordBytes=" + maxRecordBytes);
    }
    if (maxRecordsPerRequest < 1 || maxRecordsPerRequest > 1_000_000) {
      throw invalid(
          "max records per request must be within 1..1000000 maxRecordsPerRequest="
              + maxRecordsPerRequest);
    }
    if (ioThreads < 1 || ioThreads > 64) {
      throw invalid("io threads must be within 1..64 ioThreads=" + ioThreads);
    }
  }

  private static void checkPort(String name, int port) {
    if (port < OFF || port > 65535) {
      throw invalid(name + " must be within 0..65535, or -1 for none " + name + "=" + port);
    }
  }

  private static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, message);
  }

  /** The defaults: loopback, ports 4318 and 4317, namespace {@code default}, stream otel_logs. */
  public static OtlpSettings defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The key attribute of a stream, if it has one. */
  public Optional<String> keyAttributeOf(String stream) {
    return Optional.ofNullable(keyAttributes.get(stream));
  }

  /** The ingest quota of a namespace: its override, else the default. */
  public IngestQuota quotaOf(String namespace) {
    return ingestQuotaOverrides.getOrDefault(namespace, ingestQuota);
  }

  /** Builds {@link OtlpSettings}; every value starts at its default. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int httpPort = DEFAULT_HTTP_PORT;
    private int grpcPort = DEFAULT_GRPC_PORT;
    private String defaultNamespace = "default";
    private String defaultStream = DEFAULT_STREAM;
    private boolean autoCreateStreams = true;
    private int defaultPartitions = DEFAULT_PARTITIONS;
    private final Map<String, String> keyAttributes = new LinkedHashMap<>();
    private int maxRequestBytes = 16 << 20;
    private int maxRecordBytes = 1 << 20;
    private int maxRecordsPerRequest = 100_000;
    private Authentication authentication;
    private IngestQuota ingestQuota = IngestQuota.unlimited();
    private final Map<String, IngestQuota> ingestQuotaOverrides = new LinkedHashMap<>();
    private Optional<TlsSettings> tls = Optional.empty();
    private int ioThreads = Math.min(4, Math.max(1, Runtime.getRuntime().availableProcessors()));

    private Builder() {}

    public Builder host(String h) {
      this.host = h;
      return this;
    }

    /** 0 binds an ephemeral port ({@link OtlpReceiver#httpPort()} tells which). */
    public Builder httpPort(int p) {
      this.httpPort = p;
      return this;
    }

    /** 0 binds an ephemeral port ({@link OtlpReceiver#grpcPort()} tells which). */
    public Builder grpcPort(int p) {
      this.grpcPort = p;
      return this;
    }

    /** No OTLP/HTTP listener. */
    public Builder disableHttp() {
      this.httpPort = OFF;
      return this;
    }

    /** No OTLP/gRPC listener. */
    public Builder disableGrpc() {
      this.grpcPort = OFF;
      return this;
    }

    public Builder defaultNamespace(String ns) {
      this.defaultNamespace = ns;
      return this;
    }

    public Builder defaultStream(String s) {
      this.defaultStream = s;
      return this;
    }

    public Builder autoCreateStreams(boolean on) {
      this.autoCreateStreams = on;
      return this;
    }

    public Builder defaultPartitions(int n) {
      this.defaultPartitions = n;
      return this;
    }

    /** Keys the records of {@code stream} (in any namespace) on {@code attribute}. */
    public Builder keyAttribute(String stream, String attribute) {
      this.keyAttributes.put(
          Objects.requireNonNull(stream, "stream"), Objects.requireNonNull(attribute, "attribute"));
      return this;
    }

    public Builder maxRequestBytes(int n) {
      this.maxRequestBytes = n;
      return this;
    }

    public Builder maxRecordBytes(int n) {
      this.maxRecordBytes = n;
      return this;
    }

    public Builder maxRecordsPerRequest(int n) {
      this.maxRecordsPerRequest = n;
      return this;
    }

    public Builder authentication(Authentication a) {
      this.authentication = Objects.requireNonNull(a, "authentication");
      return this;
    }

    public Builder ingestQuota(IngestQuota q) {
      this.ingestQuota = Objects.requireNonNull(q, "ingestQuota");
      return this;
    }

    /** Overrides the quota of one namespace ({@link IngestQuota#unlimited()} exempts it). */
    public Builder ingestQuota(String namespace, IngestQuota q) {
      this.ingestQuotaOverrides.put(
          Objects.requireNonNull(namespace, "namespace"), Objects.requireNonNull(q, "quota"));
      return this;
    }

    /** TLS on both listeners; default plaintext. */
    public Builder tls(TlsSettings t) {
      this.tls = Optional.of(Objects.requireNonNull(t, "tls"));
      return this;
    }

    public Builder ioThreads(int n) {
      this.ioThreads = n;
      return this;
    }

    /** Validates and builds; INVALID naming the first bad value. */
    public OtlpSettings build() {
      Authentication auth =
          authentication != null
              ? authentication
              : (isLoopback(host) ? Authentication.WHEN_KEYS_EXIST : Authentication.REQUIRED);
      return new OtlpSettings(
          host,
          httpPort,
          grpcPort,
          defaultNamespace,
          defaultStream,
          autoCreateStreams,
          defaultPartitions,
          keyAttributes,
          maxRequestBytes,
          maxRecordBytes,
          maxRecordsPerRequest,
          auth,
          ingestQuota,
          ingestQuotaOverrides,
          tls,
          ioThreads);
    }

    private static boolean isLoopback(String h) {
      return h.equals("127.0.0.1") || h.equals("localhost") || h.equals("::1");
    }
  }
}
