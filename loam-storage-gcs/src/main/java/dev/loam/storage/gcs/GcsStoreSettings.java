package dev.loam.storage.gcs;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.UriParameters;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Settings of a {@link GcsObjectStore}: where the objects live, how to authenticate, and the bounds
 * on timeouts, retries and upload sizes. Plain values, validated on construction; {@link #builder}
 * and {@link #toBuilder} set any of them. {@link #fromUri(URI, Map)} parses a {@code
 * gs://bucket/prefix?...} URI with the parameters of {@link #URI_PARAMETERS}.
 *
 * @param bucket the bucket, which must exist (the store never creates buckets)
 * @param prefix object-name prefix, empty or ending in {@code /}; object name = prefix + key
 * @param host the JSON API endpoint, e.g. {@code http://127.0.0.1:4443} for a test server; empty
 *     for Google's
 * @param projectId the project, for quota and billing attribution; empty to leave it unset
 * @param credentials where credentials come from
 * @param credentialsFile a service-account or user JSON key file, when {@code credentials} is
 *     {@link Credentials#FILE}
 * @param connectTimeout TCP connect timeout of one HTTP attempt
 * @param readTimeout socket read timeout of one HTTP attempt; a write whose response does not
 *     arrive within it has an unknown outcome
 * @param maxAttempts attempts per SDK call including the first (1 = no retry), for the calls the
 *     SDK considers idempotent (reads, list, create-if-absent); plain overwrites are never retried
 * @param totalTimeout the SDK stops retrying once this much time has passed since the first attempt
 * @param initialRetryDelay backoff before the first retry (doubled per retry, jittered)
 * @param maxRetryDelay the backoff ceiling
 * @param resumableThresholdBytes objects of at least this size go through a resumable upload,
 *     smaller ones through a single multipart upload
 * @param resumableChunkBytes bytes per request of a resumable upload, a multiple of 256 KiB
 */
public record GcsStoreSettings(
    String bucket,
    String prefix,
    Optional<String> host,
    Optional<String> projectId,
    Credentials credentials,
    Optional<Path> credentialsFile,
    Duration connectTimeout,
    Duration readTimeout,
    int maxAttempts,
    Duration totalTimeout,
    Duration initialRetryDelay,
    Duration maxRetryDelay,
    int resumableThresholdBytes,
    int resumableChunkBytes) {

  /** Where credentials come from. */
  public enum Credentials {
    /** Application Default Credentials (env, gcloud, metadata server). */
    DEFAULT,
    /** Anonymous requests (test servers, public buckets). */
    NONE,
    /** A JSON key file named by {@code credentialsFile}. */
    FILE
  }

  /** GCS requires resumable chunks to be multiples of this. */
  public static final int CHUNK_GRANULARITY = 256 * 1024;

  /** The longest object name GCS accepts, in UTF-8 bytes. */
  public static final int MAX_OBJECT_NAME_BYTES = 1024;

  /** The most attempts a call may be given; no retry-forever configuration. */
  public static final int MAX_ATTEMPTS_LIMIT = 10;

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]");

  public GcsStoreSettings {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(credentialsFile, "credentialsFile");
    if (!BUCKET.matcher(bucket).matches() || bucket.length() > 222) {
      throw invalid(
          "invalid bucket name (3..222 of [a-z0-9._-], alphanumeric at both ends)", bucket);
    }
    if (!prefix.isEmpty()) {
      if (!prefix.endsWith("/")
          || !dev.loam.store.ObjectKeys.isValid(prefix.substring(0, prefix.length() - 1))) {
        throw invalid("invalid prefix (valid key segments, ending in '/')", prefix);
      }
      if (prefix.length() >= MAX_OBJECT_NAME_BYTES) {
        throw invalid("prefix leaves no room for keys in 1024-byte object names", prefix);
      }
    }
    host.ifPresent(
        h -> {
          URI u;
          try {
            u = URI.create(h);
          } catch (IllegalArgumentException e) {
            throw invalid("host is not a URL", h);
          }
          if (u.getScheme() == null
              || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
              || u.getHost() == null) {
            throw invalid("host must be an http:// or https:// URL with a host", h);
          }
        });
    if ((credentials == Credentials.FILE) != credentialsFile.isPresent()) {
      throw invalid(
          "credentials=file needs credentials-file, and credentials-file needs credentials=file",
          credentials.name().toLowerCase(Locale.ROOT));
    }
    positive("connect-timeout-ms", connectTimeout);
    positive("read-timeout-ms", readTimeout);
    positive("total-timeout-ms", totalTimeout);
    positive("retry-initial-delay-ms", initialRetryDelay);
    positive("retry-max-delay-ms", maxRetryDelay);
    if (connectTimeout.toMillis() > Integer.MAX_VALUE
        || readTimeout.toMillis() > Integer.MAX_VALUE) {
      throw invalid("timeouts must fit in int milliseconds", readTimeout.toString());
    }
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
      throw invalid("max-attempts must be 1.." + MAX_ATTEMPTS_LIMIT, Integer.toString(maxAttempts));
    }
    if (maxRetryDelay.compareTo(initialRetryDelay) < 0) {
      throw invalid(
          "retry-max-delay-ms below retry-initial-delay-ms", maxRetryDelay.toMillis() + "ms");
    }
    if (resumableChunkBytes < CHUNK_GRANULARITY || resumableChunkBytes % CHUNK_GRANULARITY != 0) {
      throw invalid(
          "resumable-chunk-bytes must be a positive multiple of " + CHUNK_GRANULARITY,
          Integer.toString(resumableChunkBytes));
    }
    if (resumableThresholdBytes < 1) {
      throw invalid(
          "resumable-threshold-bytes must be positive", Integer.toString(resumableThresholdBytes));
    }
  }

  /**
   * Defaults for {@code bucket} and {@code prefix} (empty, or ending in {@code /}): Google's
   * endpoint, default credentials, 10 s connect, 30 s read, 4 attempts within 60 s, 100 ms..5 s
   * backoff, resumable uploads from 16 MiB in 8 MiB chunks.
   */
  public static GcsStoreSettings defaults(String bucket, String prefix) {
    return builder(bucket, prefix).build();
  }

  /**
   * A builder for {@code bucket} and {@code prefix} holding the {@linkplain #defaults defaults}.
   */
  public static Builder builder(String bucket, String prefix) {
    return new Builder(bucket, prefix);
  }

  /** A builder holding these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * These settings with {@code host} as the endpoint (and no credentials, as for a test server).
   */
  public GcsStoreSettings withHost(String host) {
    return toBuilder().host(host).credentials(Credentials.NONE).noCredentialsFile().build();
  }

  /** These settings with other timeouts and retry bounds. */
  public GcsStoreSettings withTimeouts(
      Duration connectTimeout, Duration readTimeout, int maxAttempts, Duration totalTimeout) {
    return toBuilder()
        .connectTimeout(connectTimeout)
        .readTimeout(readTimeout)
        .maxAttempts(maxAttempts)
        .totalTimeout(totalTimeout)
        .build();
  }

  /** These settings with other resumable-upload sizes. */
  public GcsStoreSettings withResumable(int thresholdBytes, int chunkBytes) {
    return toBuilder()
        .resumableThresholdBytes(thresholdBytes)
        .resumableChunkBytes(chunkBytes)
        .build();
  }

  /**
   * The query parameters of a {@code gs://} URI, also accepted as {@code gcs.<name>} properties
   * (docs/reference/configuration-stores.md is generated from this table).
   */
  public static final UriParameters<Builder> URI_PARAMETERS =
      UriParameters.<Builder>builder()
          .string(
              "host",
              "Google's endpoint",
              "JSON API endpoint, http:// or https://, e.g. a test server. The client ignores"
                  + " STORAGE_EMULATOR_HOST, so this is the only way to point it elsewhere",
              Builder::host)
          .string(
              "project",
              "",
              "project id for quota/billing attribution. Set it with a host; otherwise the client"
                  + " may try to detect a project",
              Builder::projectId)
          .parsed(
              "credentials",
              "default, none or file",
              "file with a credentials-file, else none with a host, else default",
              "default: Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud,"
                  + " metadata server). none: anonymous. file: the key file below",
              GcsStoreSettings::parseCredentials,
              Builder::credentials)
          .parsed(
              "credentials-file",
              "path",
              "",
              "path to a service-account or user JSON key. Implies credentials=file",
              Path::of,
              Builder::credentialsFile)
          .millis(
              "connect-timeout-ms",
              "10000",
              "TCP connect timeout of one HTTP attempt",
              Builder::connectTimeout)
          .millis(
              "read-timeout-ms",
              "30000",
              "socket read timeout of one HTTP attempt. A write that gets no answer within it"
                  + " has an unknown outcome",
              Builder::readTimeout)
          .integer(
              "max-attempts",
              "4",
              "attempts per SDK call, first included, 1.." + MAX_ATTEMPTS_LIMIT,
              Builder::maxAttempts)
          .millis(
              "total-timeout-ms",
              "60000",
              "no retry starts after this much time since the first attempt",
              Builder::totalTimeout)
          .millis(
              "retry-initial-delay-ms",
              "100",
              "first backoff; doubled per retry, jittered",
              Builder::initialRetryDelay)
          .millis(
              "retry-max-delay-ms",
              "5000",
              "backoff ceiling (at least the initial delay)",
              Builder::maxRetryDelay)
          .integer(
              "resumable-threshold-bytes",
              "16777216 (16 MiB)",
              "objects of at least this size use a resumable upload",
              Builder::resumableThresholdBytes)
          .integer(
              "resumable-chunk-bytes",
              "8388608 (8 MiB)",
              "bytes per resumable request; a multiple of 256 KiB (GCS rule)",
              Builder::resumableChunkBytes)
          .build();

  /** Every query parameter {@link #fromUri} accepts (also as {@code gcs.<name>} properties). */
  public static final Set<String> PARAMETERS = URI_PARAMETERS.names();

  /**
   * Parses {@code gs://bucket[/prefix][?param=value&...]}. {@code properties} entries named {@code
   * gcs.<param>} override the URI's parameters (for secrets or paths given outside the URI). Throws
   * {@link LoamException} INVALID naming the bad part.
   */
  public static GcsStoreSettings fromUri(URI uri, Map<String, String> properties) {
    if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase("gs")) {
      throw invalid("not a gs:// URI", String.valueOf(uri.getScheme()));
    }
    if (uri.getRawUserInfo() != null || uri.getPort() != -1) {
      throw invalid("a gs:// URI has no user info or port", "gs://" + uri.getRawAuthority());
    }
    if (uri.getRawFragment() != null) {
      throw invalid("a gs:// URI has no fragment", uri.getRawFragment());
    }
    String bucket = uri.getHost() != null ? uri.getHost() : uri.getRawAuthority();
    if (bucket == null || bucket.isEmpty()) {
      throw invalid("gs:// URI needs a bucket", uri.toString());
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String prefix = path.startsWith("/") ? path.substring(1) : path;
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    Map<String, String> params = parseQuery(uri.getRawQuery());
    for (Map.Entry<String, String> e : properties.entrySet()) {
      if (e.getKey().startsWith("gcs.")) {
        String name = e.getKey().substring(4);
        if (!PARAMETERS.contains(name)) {
          throw invalid("unknown property", e.getKey());
        }
        params.put(name, e.getValue());
      }
    }
    Builder b = builder(bucket, prefix);
    try {
      for (UriParameters.Parameter<Builder> p : URI_PARAMETERS.parameters()) {
        String v = params.get(p.name());
        if (v != null) {
          b = p.applyTo(b, v);
        }
      }
    } catch (UriParameters.InvalidParameterException e) {
      throw new LoamException(Kind.INVALID, "gs store URI: " + e.getMessage(), e);
    }
    if (!params.containsKey("credentials")) {
      b.credentials(
          params.containsKey("credentials-file")
              ? Credentials.FILE
              : params.containsKey("host") ? Credentials.NONE : Credentials.DEFAULT);
    }
    return b.build();
  }

  private static Credentials parseCredentials(String c) {
    switch (c) {
      case "default":
        return Credentials.DEFAULT;
      case "none":
        return Credentials.NONE;
      case "file":
        return Credentials.FILE;
      default:
        throw invalid("credentials must be default, none or file", "credentials=" + c);
    }
  }

  private static Map<String, String> parseQuery(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&", -1)) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw invalid("query parameter without a name or value", pair);
      }
      String name = decode(pair.substring(0, eq));
      String value = decode(pair.substring(eq + 1));
      if (!PARAMETERS.contains(name)) {
        throw invalid("unknown query parameter", name);
      }
      if (params.put(name, value) != null) {
        throw invalid("query parameter given twice", name);
      }
    }
    return params;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw invalid("bad percent-encoding in query", s);
    }
  }

  private static void positive(String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw invalid("must be positive", name + "=" + d.toMillis());
    }
  }

  private static LoamException invalid(String what, String part) {
    return new LoamException(Kind.INVALID, "gs store URI: " + what + ": " + part);
  }

  /** Builds {@link GcsStoreSettings}; starts from the defaults, validates in {@link #build}. */
  public static final class Builder {
    private final String bucket;
    private final String prefix;
    private Optional<String> host = Optional.empty();
    private Optional<String> projectId = Optional.empty();
    private Credentials credentials = Credentials.DEFAULT;
    private Optional<Path> credentialsFile = Optional.empty();
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration readTimeout = Duration.ofSeconds(30);
    private int maxAttempts = 4;
    private Duration totalTimeout = Duration.ofSeconds(60);
    private Duration initialRetryDelay = Duration.ofMillis(100);
    private Duration maxRetryDelay = Duration.ofSeconds(5);
    private int resumableThresholdBytes = 16 * 1024 * 1024;
    private int resumableChunkBytes = 8 * 1024 * 1024;

    private Builder(String bucket, String prefix) {
      this.bucket = bucket;
      this.prefix = prefix;
    }

    private Builder(GcsStoreSettings s) {
      this.bucket = s.bucket;
      this.prefix = s.prefix;
      this.host = s.host;
      this.projectId = s.projectId;
      this.credentials = s.credentials;
      this.credentialsFile = s.credentialsFile;
      this.connectTimeout = s.connectTimeout;
      this.readTimeout = s.readTimeout;
      this.maxAttempts = s.maxAttempts;
      this.totalTimeout = s.totalTimeout;
      this.initialRetryDelay = s.initialRetryDelay;
      this.maxRetryDelay = s.maxRetryDelay;
      this.resumableThresholdBytes = s.resumableThresholdBytes;
      this.resumableChunkBytes = s.resumableChunkBytes;
    }

    public Builder host(String v) {
      this.host = Optional.of(v);
      return this;
    }

    public Builder projectId(String v) {
      this.projectId = Optional.of(v);
      return this;
    }

    public Builder credentials(Credentials v) {
      this.credentials = v;
      return this;
    }

    public Builder credentialsFile(Path v) {
      this.credentialsFile = Optional.of(v);
      return this;
    }

    public Builder connectTimeout(Duration v) {
      this.connectTimeout = v;
      return this;
    }

    public Builder readTimeout(Duration v) {
      this.readTimeout = v;
      return this;
    }

    public Builder maxAttempts(int v) {
      this.maxAttempts = v;
      return this;
    }

    public Builder totalTimeout(Duration v) {
      this.totalTimeout = v;
      return this;
    }

    public Builder initialRetryDelay(Duration v) {
      this.initialRetryDelay = v;
      return this;
    }

    public Builder maxRetryDelay(Duration v) {
      this.maxRetryDelay = v;
      return this;
    }

    public Builder resumableThresholdBytes(int v) {
      this.resumableThresholdBytes = v;
      return this;
    }

    public Builder resumableChunkBytes(int v) {
      this.resumableChunkBytes = v;
      return this;
    }

    /** No credentials file (as for {@link Credentials#DEFAULT} or {@link Credentials#NONE}). */
    public Builder noCredentialsFile() {
      this.credentialsFile = Optional.empty();
      return this;
    }

    /** The settings; INVALID naming the first setting out of bounds. */
    public GcsStoreSettings build() {
      return new GcsStoreSettings(
          bucket,
          prefix,
          host,
          projectId,
          credentials,
          credentialsFile,
          connectTimeout,
          readTimeout,
          maxAttempts,
          totalTimeout,
          initialRetryDelay,
          maxRetryDelay,
          resumableThresholdBytes,
          resumableChunkBytes);
    }
  }
}
