package dev.loam.storage.gcs;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
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
 * on timeouts, retries and upload sizes. Plain values, validated on construction; {@link
 * #fromUri(URI, Map)} parses a {@code gs://bucket/prefix?...} URI (docs/storage-gcs.md lists every
 * parameter).
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

  /** Every query parameter {@link #fromUri} accepts (also as {@code gcs.<name>} properties). */
  public static final Set<String> PARAMETERS =
      Set.of(
          "host",
          "project",
          "credentials",
          "credentials-file",
          "connect-timeout-ms",
          "read-timeout-ms",
          "max-attempts",
          "total-timeout-ms",
          "retry-initial-delay-ms",
          "retry-max-delay-ms",
          "resumable-threshold-bytes",
          "resumable-chunk-bytes");

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
    return new GcsStoreSettings(
        bucket,
        prefix,
        Optional.empty(),
        Optional.empty(),
        Credentials.DEFAULT,
        Optional.empty(),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        4,
        Duration.ofSeconds(60),
        Duration.ofMillis(100),
        Duration.ofSeconds(5),
        16 * 1024 * 1024,
        8 * 1024 * 1024);
  }

  /**
   * These settings with {@code host} as the endpoint (and no credentials, as for a test server).
   */
  public GcsStoreSettings withHost(String host) {
    return new GcsStoreSettings(
        bucket,
        prefix,
        Optional.of(host),
        projectId,
        Credentials.NONE,
        Optional.empty(),
        connectTimeout,
        readTimeout,
        maxAttempts,
        totalTimeout,
        initialRetryDelay,
        maxRetryDelay,
        resumableThresholdBytes,
        resumableChunkBytes);
  }

  /** These settings with other timeouts and retry bounds. */
  public GcsStoreSettings withTimeouts(
      Duration connectTimeout, Duration readTimeout, int maxAttempts, Duration totalTimeout) {
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

  /** These settings with other resumable-upload sizes. */
  public GcsStoreSettings withResumable(int thresholdBytes, int chunkBytes) {
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
        thresholdBytes,
        chunkBytes);
  }

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
    GcsStoreSettings s = defaults(bucket, prefix);
    Optional<String> host = Optional.ofNullable(params.get("host"));
    Optional<String> project = Optional.ofNullable(params.get("project"));
    Optional<Path> file = Optional.ofNullable(params.get("credentials-file")).map(Path::of);
    Credentials credentials;
    String c = params.get("credentials");
    if (c == null) {
      credentials =
          file.isPresent()
              ? Credentials.FILE
              : host.isPresent() ? Credentials.NONE : Credentials.DEFAULT;
    } else {
      switch (c) {
        case "default":
          credentials = Credentials.DEFAULT;
          break;
        case "none":
          credentials = Credentials.NONE;
          break;
        case "file":
          credentials = Credentials.FILE;
          break;
        default:
          throw invalid("credentials must be default, none or file", "credentials=" + c);
      }
    }
    return new GcsStoreSettings(
        bucket,
        prefix,
        host,
        project,
        credentials,
        file,
        millis(params, "connect-timeout-ms", s.connectTimeout),
        millis(params, "read-timeout-ms", s.readTimeout),
        integer(params, "max-attempts", s.maxAttempts),
        millis(params, "total-timeout-ms", s.totalTimeout),
        millis(params, "retry-initial-delay-ms", s.initialRetryDelay),
        millis(params, "retry-max-delay-ms", s.maxRetryDelay),
        integer(params, "resumable-threshold-bytes", s.resumableThresholdBytes),
        integer(params, "resumable-chunk-bytes", s.resumableChunkBytes));
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

  private static Duration millis(Map<String, String> params, String name, Duration dflt) {
    String v = params.get(name);
    return v == null ? dflt : Duration.ofMillis(parseLong(name, v));
  }

  private static int integer(Map<String, String> params, String name, int dflt) {
    String v = params.get(name);
    if (v == null) {
      return dflt;
    }
    long l = parseLong(name, v);
    if (l > Integer.MAX_VALUE || l < Integer.MIN_VALUE) {
      throw invalid("value out of range", name + "=" + v);
    }
    return (int) l;
  }

  private static long parseLong(String name, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw invalid("not an integer", name + "=" + v);
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
}
