package dev.loam.storage.s3;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.ObjectKeys;
import dev.loam.store.UriParameters;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything an {@link S3ObjectStore} needs to know, as plain values. Immutable and validated in
 * the canonical constructor; {@link #builder} and {@link #toBuilder} set any of them, and the
 * {@code with*} methods return changed copies. {@link #toString()} never shows the secret key.
 *
 * @param bucket the bucket, which must exist
 * @param prefix prepended to every object key; empty, or valid key segments ending in {@code /}
 * @param endpoint the S3 endpoint; empty for AWS itself
 * @param region the signing region; empty to take it from the SDK's default region chain
 * @param pathStyle path-style requests ({@code http://host/bucket/key}), needed by most emulators
 * @param accessKeyId static credentials; empty for the SDK's default credentials chain
 * @param secretAccessKey given together with {@code accessKeyId}
 * @param multipartThresholdBytes objects at least this large are written by multipart upload
 * @param partSizeBytes the size of every part but the last (S3's minimum is 5 MiB)
 * @param partConcurrency how many parts of one object are uploaded at once
 * @param maxAttempts SDK attempts per request, first one included (1 = no retries)
 * @param connectTimeout TCP connect timeout
 * @param attemptTimeout the limit on one HTTP attempt, from sending to the last response byte
 * @param callTimeout the limit on one call, all attempts and back-offs included
 * @param maxConnections HTTP connections kept at most; more requests wait for one
 * @param connectionAcquireTimeout how long a request waits for a connection
 * @param checksums when request and response checksums are used, and the multipart part checksum
 */
public record S3StoreSettings(
    String bucket,
    String prefix,
    Optional<URI> endpoint,
    Optional<String> region,
    boolean pathStyle,
    Optional<String> accessKeyId,
    Optional<String> secretAccessKey,
    long multipartThresholdBytes,
    int partSizeBytes,
    int partConcurrency,
    int maxAttempts,
    Duration connectTimeout,
    Duration attemptTimeout,
    Duration callTimeout,
    int maxConnections,
    Duration connectionAcquireTimeout,
    S3Checksums checksums) {

  /** S3's smallest part (all but the last part of a multipart upload). */
  public static final int MIN_PART_SIZE_BYTES = 5 * 1024 * 1024;

  /** S3's largest part. */
  public static final long MAX_PART_SIZE_BYTES = 5L * 1024 * 1024 * 1024;

  /** S3's largest number of parts in one upload. */
  public static final int MAX_PARTS = 10_000;

  /** The StoreContext property that overrides the {@code access-key} URI parameter. */
  public static final String ACCESS_KEY_PROPERTY = "s3.access-key-id";

  /** The StoreContext property that overrides the {@code secret-key} URI parameter. */
  public static final String SECRET_KEY_PROPERTY = "s3.secret-access-key";

  public S3StoreSettings {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(attemptTimeout, "attemptTimeout");
    Objects.requireNonNull(callTimeout, "callTimeout");
    Objects.requireNonNull(connectionAcquireTimeout, "connectionAcquireTimeout");
    Objects.requireNonNull(checksums, "checksums");
    if (!validBucket(bucket)) {
      throw invalid("bucket name must be 3..63 of [a-z0-9.-] bucket=" + bucket);
    }
    if (!prefix.isEmpty()
        && !(prefix.endsWith("/")
            && ObjectKeys.isValid(prefix.substring(0, prefix.length() - 1)))) {
      throw invalid("prefix must be valid key segments ending in '/' prefix=" + prefix);
    }
    if (prefix.length() >= ObjectKeys.MAX_KEY_BYTES) {
      throw invalid("prefix leaves no room for keys prefix=" + prefix);
    }
    endpoint.ifPresent(
        e -> {
          String s = e.getScheme() == null ? "" : e.getScheme().toLowerCase(Locale.ROOT);
          if (!(s.equals("http") || s.equals("https")) || e.getHost() == null) {
            throw invalid("endpoint must be an http or https URL endpoint=" + e);
          }
        });
    if (accessKeyId.isPresent() != secretAccessKey.isPresent()) {
      throw invalid(
          "give both the access key id and the secret access key, or neither accessKeyId="
              + accessKeyId.orElse("<none>"));
    }
    if (partSizeBytes < MIN_PART_SIZE_BYTES) {
      throw invalid(
          "part size below S3's minimum of "
              + MIN_PART_SIZE_BYTES
              + " partSizeBytes="
              + partSizeBytes);
    }
    if (multipartThresholdBytes < partSizeBytes) {
      throw invalid(
          "multipart threshold must be at least the part size multipartThresholdBytes="
              + multipartThresholdBytes);
    }
    if (partConcurrency < 1 || partConcurrency > 64) {
      throw invalid("part concurrency outside 1..64 partConcurrency=" + partConcurrency);
    }
    if (maxAttempts < 1 || maxAttempts > 10) {
      throw invalid("max attempts outside 1..10 maxAttempts=" + maxAttempts);
    }
    if (maxConnections < 1 || maxConnections > 1024) {
      throw invalid("max connections outside 1..1024 maxConnections=" + maxConnections);
    }
    positive(connectTimeout, "connectTimeout");
    positive(attemptTimeout, "attemptTimeout");
    positive(callTimeout, "callTimeout");
    positive(connectionAcquireTimeout, "connectionAcquireTimeout");
    if (callTimeout.compareTo(attemptTimeout) < 0) {
      throw invalid("call timeout shorter than the attempt timeout callTimeout=" + callTimeout);
    }
  }

  /**
   * Defaults for {@code bucket}: no prefix, AWS endpoint, default region and credentials chains,
   * virtual-host style, multipart from 16 MiB in 8 MiB parts (4 at once), 3 attempts, 2 s connect,
   * 30 s per attempt, 120 s per call, 64 connections, 10 s to acquire one, and {@link
   * S3Checksums#DEFAULTS} (checksums when supported, CRC32 on each part).
   */
  public static S3StoreSettings defaults(String bucket) {
    return builder(bucket).build();
  }

  /** A builder for {@code bucket} holding the {@linkplain #defaults defaults}. */
  public static Builder builder(String bucket) {
    return new Builder(bucket);
  }

  /** A builder holding these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public S3StoreSettings withPrefix(String p) {
    return toBuilder().prefix(p).build();
  }

  /** An emulator or S3-compatible server: endpoint, region, and path style on or off. */
  public S3StoreSettings withEndpoint(URI e, String r, boolean pathStyleAccess) {
    return toBuilder().endpoint(e).region(r).pathStyle(pathStyleAccess).build();
  }

  public S3StoreSettings withCredentials(String keyId, String secret) {
    return toBuilder().accessKeyId(keyId).secretAccessKey(secret).build();
  }

  public S3StoreSettings withMultipart(long thresholdBytes, int partBytes, int concurrency) {
    return toBuilder()
        .multipartThresholdBytes(thresholdBytes)
        .partSizeBytes(partBytes)
        .partConcurrency(concurrency)
        .build();
  }

  /** Checksum behaviour; {@link S3Checksums#WHEN_REQUIRED} for Ceph radosgw and its kind. */
  public S3StoreSettings withChecksums(S3Checksums c) {
    return toBuilder().checksums(c).build();
  }

  public S3StoreSettings withRetries(int attempts) {
    return toBuilder().maxAttempts(attempts).build();
  }

  public S3StoreSettings withTimeouts(Duration connect, Duration attempt, Duration call) {
    return toBuilder().connectTimeout(connect).attemptTimeout(attempt).callTimeout(call).build();
  }

  public S3StoreSettings withConnections(int max, Duration acquireTimeout) {
    return toBuilder().maxConnections(max).connectionAcquireTimeout(acquireTimeout).build();
  }

  /**
   * The query parameters of an {@code s3://} URI (docs/reference/configuration-stores.md is
   * generated from this table). Whole numbers are non-negative and, but for the multipart
   * threshold, fit an {@code int}, milliseconds included.
   */
  public static final UriParameters<Builder> URI_PARAMETERS =
      UriParameters.<Builder>builder()
          .parsed(
              "endpoint",
              "URL",
              "AWS",
              "http(s)://host[:port] of an S3-compatible server or emulator",
              v -> {
                try {
                  return new URI(v);
                } catch (URISyntaxException e) {
                  throw UriParameters.invalid("endpoint", "malformed endpoint endpoint=" + v);
                }
              },
              Builder::endpoint)
          .parsed(
              "region",
              "string",
              "the SDK's default region chain (AWS_REGION, profile, instance metadata)",
              "signing region, [a-z0-9-]{1,32}",
              v -> {
                if (!v.matches("[a-z0-9-]{1,32}")) {
                  throw UriParameters.invalid(
                      "region", "region must be 1..32 of [a-z0-9-] region=" + v);
                }
                return v;
              },
              Builder::region)
          .bool(
              "path-style",
              "false",
              "true for http://host/bucket/key requests (emulators, most S3-compatible servers)",
              Builder::pathStyle)
          .string(
              "access-key",
              "",
              "static access key id (tests; prefer the property "
                  + ACCESS_KEY_PROPERTY
                  + ", which wins)",
              Builder::accessKeyId)
          .secret(
              "secret-key",
              "",
              "static secret key, together with access-key; the property "
                  + SECRET_KEY_PROPERTY
                  + " wins",
              Builder::secretAccessKey)
          .number(
              "multipart-threshold-bytes",
              "integer",
              "16777216 (16 MiB)",
              "objects at least this large use multipart upload; at least the part size",
              0,
              Long.MAX_VALUE,
              n -> n,
              Builder::multipartThresholdBytes)
          .number(
              "part-size-bytes",
              "integer",
              "8388608 (8 MiB)",
              "part size, at least 5242880 (5 MiB)",
              0,
              Integer.MAX_VALUE,
              n -> (int) n,
              Builder::partSizeBytes)
          .number(
              "part-concurrency",
              "integer",
              "4",
              "parts of one object uploaded at once, 1..64",
              0,
              Integer.MAX_VALUE,
              n -> (int) n,
              Builder::partConcurrency)
          .number(
              "max-attempts",
              "integer",
              "3",
              "SDK attempts per request, the first included (1 = no retries), 1..10",
              0,
              Integer.MAX_VALUE,
              n -> (int) n,
              Builder::maxAttempts)
          .number(
              "connect-timeout-ms",
              "milliseconds",
              "2000",
              "TCP connect timeout",
              0,
              Integer.MAX_VALUE,
              Duration::ofMillis,
              Builder::connectTimeout)
          .number(
              "attempt-timeout-ms",
              "milliseconds",
              "30000",
              "limit on one HTTP attempt (also the Netty read and write idle timeouts)",
              0,
              Integer.MAX_VALUE,
              Duration::ofMillis,
              Builder::attemptTimeout)
          .number(
              "call-timeout-ms",
              "milliseconds",
              "120000",
              "one call's limit, all attempts and back-offs included; at least the attempt timeout",
              0,
              Integer.MAX_VALUE,
              Duration::ofMillis,
              Builder::callTimeout)
          .number(
              "max-connections",
              "integer",
              "64",
              "HTTP connections at most, 1..1024; up to 16 times this many requests wait for one",
              0,
              Integer.MAX_VALUE,
              n -> (int) n,
              Builder::maxConnections)
          .number(
              "connection-acquire-timeout-ms",
              "milliseconds",
              "10000",
              "how long a request waits for a free connection",
              0,
              Integer.MAX_VALUE,
              Duration::ofMillis,
              Builder::connectionAcquireTimeout)
          .parsed(
              "request-checksum",
              "when-supported, when-required",
              "when-supported",
              "when the SDK adds a checksum to a request: on every operation that takes one"
                  + " (aws-chunked body with a CRC32 trailer), or only where S3 requires one;"
                  + " when-required for Ceph radosgw and other servers that refuse aws-chunked",
              v -> S3Checksums.When.parse("request-checksum", v),
              (b, w) -> b.checksums(b.checksums.withRequestCalculation(w)))
          .parsed(
              "response-checksum",
              "when-supported, when-required",
              "when-supported",
              "when the SDK validates a checksum a response carries: whenever one is present,"
                  + " or only where S3 requires it",
              v -> S3Checksums.When.parse("response-checksum", v),
              (b, w) -> b.checksums(b.checksums.withResponseValidation(w)))
          .parsed(
              "part-checksum",
              "crc32, crc32c, sha1, sha256, none",
              "crc32",
              "checksum named at CreateMultipartUpload and sent with every part; none sends no"
                  + " part checksum (needed by Ceph radosgw)",
              v -> S3Checksums.PartChecksum.parse("part-checksum", v),
              (b, p) -> b.checksums(b.checksums.withPartChecksum(p)))
          .build();

  /**
   * Parses {@code s3://bucket[/prefix][?param=value&...]} (parameters in {@link #URI_PARAMETERS}).
   * {@code properties} {@value #ACCESS_KEY_PROPERTY} and {@value #SECRET_KEY_PROPERTY} override the
   * URI's credentials. Throws {@link LoamException} INVALID naming the bad part; secrets never
   * appear in messages.
   */
  public static S3StoreSettings fromUri(URI uri, Map<String, String> properties) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(properties, "properties");
    if (!"s3".equalsIgnoreCase(uri.getScheme())) {
      throw invalid("not an s3 URI scheme=" + uri.getScheme());
    }
    if (uri.isOpaque()) {
      throw invalid("s3 URI must be s3://bucket/prefix uri=" + redact(uri));
    }
    if (uri.getFragment() != null) {
      throw invalid("s3 URI must not have a fragment fragment=" + uri.getFragment());
    }
    if (uri.getRawUserInfo() != null || uri.getPort() != -1) {
      throw invalid("s3 URI authority must be only the bucket uri=" + redact(uri));
    }
    String bucket = uri.getHost() != null ? uri.getHost() : uri.getRawAuthority();
    if (bucket == null || bucket.isEmpty()) {
      throw invalid("s3 URI needs a bucket uri=" + redact(uri));
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String prefix = path.startsWith("/") ? path.substring(1) : path;
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    Map<String, String> q = query(uri);
    // The prefix is checked on its own first, so that a bad prefix is named before any parameter.
    Builder b = defaults(bucket).withPrefix(prefix).toBuilder();
    for (UriParameters.Parameter<Builder> p : URI_PARAMETERS.parameters()) {
      String v = q.get(p.name());
      if (v != null) {
        b = p.applyTo(b, v);
      }
    }
    String keyId = properties.get(ACCESS_KEY_PROPERTY);
    if (keyId != null) {
      b.accessKeyId(keyId);
    }
    String secret = properties.get(SECRET_KEY_PROPERTY);
    if (secret != null) {
      b.secretAccessKey(secret);
    }
    return b.build();
  }

  /** Shows everything but the secret key. */
  @Override
  public String toString() {
    return "S3StoreSettings[bucket="
        + bucket
        + ", prefix="
        + prefix
        + ", endpoint="
        + endpoint.map(URI::toString).orElse("<aws>")
        + ", region="
        + region.orElse("<default chain>")
        + ", pathStyle="
        + pathStyle
        + ", accessKeyId="
        + accessKeyId.orElse("<default chain>")
        + ", secretAccessKey="
        + (secretAccessKey.isPresent() ? "****" : "<default chain>")
        + ", multipartThresholdBytes="
        + multipartThresholdBytes
        + ", partSizeBytes="
        + partSizeBytes
        + ", partConcurrency="
        + partConcurrency
        + ", maxAttempts="
        + maxAttempts
        + ", connectTimeout="
        + connectTimeout
        + ", attemptTimeout="
        + attemptTimeout
        + ", callTimeout="
        + callTimeout
        + ", maxConnections="
        + maxConnections
        + ", connectionAcquireTimeout="
        + connectionAcquireTimeout
        + ", checksums="
        + checksums
        + "]";
  }

  // ---------------------------------------------------------------------------------------------

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      if (eq < 0) {
        throw invalid("query parameter without a value parameter=" + name);
      }
      if (URI_PARAMETERS.find(name).isEmpty()) {
        throw invalid(
            "unknown query parameter parameter=" + name + " known=" + URI_PARAMETERS.names());
      }
      if (out.put(name, decode(pair.substring(eq + 1))) != null) {
        throw invalid("query parameter given twice parameter=" + name);
      }
    }
    return out;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw invalid("malformed percent-encoding in the query");
    }
  }

  private static void positive(Duration d, String name) {
    if (d.isNegative() || d.isZero()) {
      throw invalid("timeout must be positive " + name + "=" + d);
    }
  }

  private static boolean validBucket(String b) {
    return b.length() >= 3 && b.length() <= 63 && b.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]");
  }

  /** The URI without its query, which may hold a secret. */
  private static String redact(URI uri) {
    String s = uri.toString();
    int q = s.indexOf('?');
    return q < 0 ? s : s.substring(0, q) + "?...";
  }

  private static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, message);
  }

  /** Builds {@link S3StoreSettings}; starts from the defaults, validates in {@link #build}. */
  public static final class Builder {
    private final String bucket;
    private String prefix = "";
    private Optional<URI> endpoint = Optional.empty();
    private Optional<String> region = Optional.empty();
    private boolean pathStyle;
    private Optional<String> accessKeyId = Optional.empty();
    private Optional<String> secretAccessKey = Optional.empty();
    private long multipartThresholdBytes = 16L * 1024 * 1024;
    private int partSizeBytes = 8 * 1024 * 1024;
    private int partConcurrency = 4;
    private int maxAttempts = 3;
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration attemptTimeout = Duration.ofSeconds(30);
    private Duration callTimeout = Duration.ofSeconds(120);
    private int maxConnections = 64;
    private Duration connectionAcquireTimeout = Duration.ofSeconds(10);
    private S3Checksums checksums = S3Checksums.DEFAULTS;

    private Builder(String bucket) {
      this.bucket = bucket;
    }

    private Builder(S3StoreSettings s) {
      this.bucket = s.bucket;
      this.prefix = s.prefix;
      this.endpoint = s.endpoint;
      this.region = s.region;
      this.pathStyle = s.pathStyle;
      this.accessKeyId = s.accessKeyId;
      this.secretAccessKey = s.secretAccessKey;
      this.multipartThresholdBytes = s.multipartThresholdBytes;
      this.partSizeBytes = s.partSizeBytes;
      this.partConcurrency = s.partConcurrency;
      this.maxAttempts = s.maxAttempts;
      this.connectTimeout = s.connectTimeout;
      this.attemptTimeout = s.attemptTimeout;
      this.callTimeout = s.callTimeout;
      this.maxConnections = s.maxConnections;
      this.connectionAcquireTimeout = s.connectionAcquireTimeout;
      this.checksums = s.checksums;
    }

    public Builder prefix(String v) {
      this.prefix = v;
      return this;
    }

    public Builder endpoint(URI v) {
      this.endpoint = Optional.of(v);
      return this;
    }

    public Builder region(String v) {
      this.region = Optional.of(v);
      return this;
    }

    public Builder pathStyle(boolean v) {
      this.pathStyle = v;
      return this;
    }

    public Builder accessKeyId(String v) {
      this.accessKeyId = Optional.of(v);
      return this;
    }

    public Builder secretAccessKey(String v) {
      this.secretAccessKey = Optional.of(v);
      return this;
    }

    public Builder multipartThresholdBytes(long v) {
      this.multipartThresholdBytes = v;
      return this;
    }

    public Builder partSizeBytes(int v) {
      this.partSizeBytes = v;
      return this;
    }

    public Builder partConcurrency(int v) {
      this.partConcurrency = v;
      return this;
    }

    public Builder maxAttempts(int v) {
      this.maxAttempts = v;
      return this;
    }

    public Builder connectTimeout(Duration v) {
      this.connectTimeout = v;
      return this;
    }

    public Builder attemptTimeout(Duration v) {
      this.attemptTimeout = v;
      return this;
    }

    public Builder callTimeout(Duration v) {
      this.callTimeout = v;
      return this;
    }

    public Builder maxConnections(int v) {
      this.maxConnections = v;
      return this;
    }

    public Builder connectionAcquireTimeout(Duration v) {
      this.connectionAcquireTimeout = v;
      return this;
    }

    public Builder checksums(S3Checksums v) {
      this.checksums = v;
      return this;
    }

    /** The settings; INVALID naming the first setting out of bounds. */
    public S3StoreSettings build() {
      return new S3StoreSettings(
          bucket,
          prefix,
          endpoint,
          region,
          pathStyle,
          accessKeyId,
          secretAccessKey,
          multipartThresholdBytes,
          partSizeBytes,
          partConcurrency,
          maxAttempts,
          connectTimeout,
          attemptTimeout,
          callTimeout,
          maxConnections,
          connectionAcquireTimeout,
          checksums);
    }
  }
}
