package dev.loam.storage.s3;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.ObjectKeys;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Everything an {@link S3ObjectStore} needs to know, as plain values. Immutable and validated; the
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
    Duration connectionAcquireTimeout) {

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

  private static final Set<String> URI_PARAMETERS =
      Set.of(
          "endpoint",
          "region",
          "path-style",
          "access-key",
          "secret-key",
          "multipart-threshold-bytes",
          "part-size-bytes",
          "part-concurrency",
          "max-attempts",
          "connect-timeout-ms",
          "attempt-timeout-ms",
          "call-timeout-ms",
          "max-connections",
          "connection-acquire-timeout-ms");

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
   * 30 s per attempt, 120 s per call, 64 connections, 10 s to acquire one.
   */
  public static S3StoreSettings defaults(String bucket) {
    return new S3StoreSettings(
        bucket,
        "",
        Optional.empty(),
        Optional.empty(),
        false,
        Optional.empty(),
        Optional.empty(),
        16L * 1024 * 1024,
        8 * 1024 * 1024,
        4,
        3,
        Duration.ofSeconds(2),
        Duration.ofSeconds(30),
        Duration.ofSeconds(120),
        64,
        Duration.ofSeconds(10));
  }

  public S3StoreSettings withPrefix(String p) {
    return new S3StoreSettings(
        bucket,
        p,
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
        connectionAcquireTimeout);
  }

  /** An emulator or S3-compatible server: endpoint, region, and path style on or off. */
  public S3StoreSettings withEndpoint(URI e, String r, boolean pathStyleAccess) {
    return new S3StoreSettings(
        bucket,
        prefix,
        Optional.of(e),
        Optional.of(r),
        pathStyleAccess,
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
        connectionAcquireTimeout);
  }

  public S3StoreSettings withCredentials(String keyId, String secret) {
    return new S3StoreSettings(
        bucket,
        prefix,
        endpoint,
        region,
        pathStyle,
        Optional.of(keyId),
        Optional.of(secret),
        multipartThresholdBytes,
        partSizeBytes,
        partConcurrency,
        maxAttempts,
        connectTimeout,
        attemptTimeout,
        callTimeout,
        maxConnections,
        connectionAcquireTimeout);
  }

  public S3StoreSettings withMultipart(long thresholdBytes, int partBytes, int concurrency) {
    return new S3StoreSettings(
        bucket,
        prefix,
        endpoint,
        region,
        pathStyle,
        accessKeyId,
        secretAccessKey,
        thresholdBytes,
        partBytes,
        concurrency,
        maxAttempts,
        connectTimeout,
        attemptTimeout,
        callTimeout,
        maxConnections,
        connectionAcquireTimeout);
  }

  public S3StoreSettings withRetries(int attempts) {
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
        attempts,
        connectTimeout,
        attemptTimeout,
        callTimeout,
        maxConnections,
        connectionAcquireTimeout);
  }

  public S3StoreSettings withTimeouts(Duration connect, Duration attempt, Duration call) {
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
        connect,
        attempt,
        call,
        maxConnections,
        connectionAcquireTimeout);
  }

  public S3StoreSettings withConnections(int max, Duration acquireTimeout) {
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
        max,
        acquireTimeout);
  }

  /**
   * Parses {@code s3://bucket[/prefix][?param=value&...]} (parameters in docs/storage-s3.md).
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
    S3StoreSettings s = defaults(bucket).withPrefix(prefix);
    Optional<URI> endpoint = Optional.empty();
    if (q.containsKey("endpoint")) {
      try {
        endpoint = Optional.of(new URI(q.get("endpoint")));
      } catch (java.net.URISyntaxException e) {
        throw invalid("malformed endpoint endpoint=" + q.get("endpoint"));
      }
    }
    Optional<String> region = Optional.ofNullable(q.get("region"));
    if (region.isPresent() && !region.get().matches("[a-z0-9-]{1,32}")) {
      throw invalid("region must be 1..32 of [a-z0-9-] region=" + region.get());
    }
    boolean pathStyle = bool(q, "path-style", false);
    Optional<String> keyId =
        Optional.ofNullable(properties.getOrDefault(ACCESS_KEY_PROPERTY, q.get("access-key")));
    Optional<String> secret =
        Optional.ofNullable(properties.getOrDefault(SECRET_KEY_PROPERTY, q.get("secret-key")));
    return new S3StoreSettings(
        s.bucket,
        s.prefix,
        endpoint,
        region,
        pathStyle,
        keyId,
        secret,
        longParam(q, "multipart-threshold-bytes", s.multipartThresholdBytes),
        (int) Math.min(Integer.MAX_VALUE, longParam(q, "part-size-bytes", s.partSizeBytes)),
        (int) longParam(q, "part-concurrency", s.partConcurrency),
        (int) longParam(q, "max-attempts", s.maxAttempts),
        millis(q, "connect-timeout-ms", s.connectTimeout),
        millis(q, "attempt-timeout-ms", s.attemptTimeout),
        millis(q, "call-timeout-ms", s.callTimeout),
        (int) longParam(q, "max-connections", s.maxConnections),
        millis(q, "connection-acquire-timeout-ms", s.connectionAcquireTimeout));
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
      if (!URI_PARAMETERS.contains(name)) {
        throw invalid("unknown query parameter parameter=" + name + " known=" + URI_PARAMETERS);
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

  private static boolean bool(Map<String, String> q, String name, boolean dflt) {
    String v = q.get(name);
    if (v == null) {
      return dflt;
    }
    if (v.equals("true")) {
      return true;
    }
    if (v.equals("false")) {
      return false;
    }
    throw invalid("expected true or false " + name + "=" + v);
  }

  private static long longParam(Map<String, String> q, String name, long dflt) {
    String v = q.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0 || n > Integer.MAX_VALUE && !name.equals("multipart-threshold-bytes")) {
        throw invalid("value out of range " + name + "=" + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw invalid("expected a non-negative integer " + name + "=" + v);
    }
  }

  private static Duration millis(Map<String, String> q, String name, Duration dflt) {
    return q.containsKey(name) ? Duration.ofMillis(longParam(q, name, 0)) : dflt;
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
}
