package dev.loam.storage.azure;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectKeys;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Opens {@code azblob://<account>/<container>[/<prefix>][?<parameters>]} (see
 * docs/storage-azure.md). Every query parameter {@code name} may also be given as the {@link
 * StoreContext} property {@code azure.<name>}, which wins over the URI; secrets belong there rather
 * than in a URI that may be logged. Unknown parameters are rejected, so a typo does not silently
 * fall back to a default.
 */
public final class AzureBlobStoreProvider implements ObjectStoreProvider {
  /** The prefix of {@link StoreContext#properties()} this provider reads. */
  public static final String PROPERTY_PREFIX = "azure.";

  /** One URI parameter: its name, what it sets, whether its value is a secret. */
  record Param(
      String name,
      String doc,
      boolean secret,
      BiFunction<AzureBlobStoreSettings, String, AzureBlobStoreSettings> apply) {}

  /** The one definition of every parameter; docs/storage-azure.md lists the same table. */
  static final List<Param> PARAMS =
      List.of(
          new Param(
              "endpoint",
              "blob service URL (default https://<account>.blob.core.windows.net)",
              false,
              (s, v) -> s.withEndpoint(v)),
          new Param(
              "connection-string",
              "an Azure Storage connection string (percent-encoded in a URI)",
              true,
              (s, v) -> s.withCredentials(s.accountKey(), s.sasToken(), v)),
          new Param(
              "sas",
              "a SAS token (percent-encoded in a URI)",
              true,
              (s, v) -> s.withCredentials(s.accountKey(), v, s.connectionString())),
          new Param(
              "account-key",
              "the account's shared key (percent-encoded in a URI)",
              true,
              (s, v) -> s.withCredentials(v, s.sasToken(), s.connectionString())),
          new Param(
              "create-container",
              "true: create the container before the first request if it is missing",
              false,
              (s, v) -> s.withCreateContainer(bool("create-container", v))),
          new Param(
              "connect-timeout-ms",
              "TCP connect timeout",
              false,
              (s, v) ->
                  s.withTimeouts(
                      millis("connect-timeout-ms", v), s.responseTimeout(), s.tryTimeout())),
          new Param(
              "response-timeout-ms",
              "wait for response headers and for each body read/write",
              false,
              (s, v) ->
                  s.withTimeouts(
                      s.connectTimeout(), millis("response-timeout-ms", v), s.tryTimeout())),
          new Param(
              "try-timeout-ms",
              "one attempt of a request, body included",
              false,
              (s, v) ->
                  s.withTimeouts(
                      s.connectTimeout(), s.responseTimeout(), millis("try-timeout-ms", v))),
          new Param(
              "max-tries",
              "attempts per request, the first included (1..10)",
              false,
              (s, v) -> s.withRetries(integer("max-tries", v), s.retryDelay(), s.maxRetryDelay())),
          new Param(
              "retry-delay-ms",
              "first back-off between attempts (exponential)",
              false,
              (s, v) ->
                  s.withRetries(s.maxTries(), millis("retry-delay-ms", v), s.maxRetryDelay())),
          new Param(
              "max-retry-delay-ms",
              "largest back-off between attempts",
              false,
              (s, v) ->
                  s.withRetries(s.maxTries(), s.retryDelay(), millis("max-retry-delay-ms", v))),
          new Param(
              "block-upload-threshold-bytes",
              "objects above this are uploaded as blocks",
              false,
              (s, v) ->
                  s.withBlockUpload(
                      longValue("block-upload-threshold-bytes", v),
                      s.blockSizeBytes(),
                      s.blockUploadConcurrency())),
          new Param(
              "block-size-bytes",
              "size of each staged block",
              false,
              (s, v) ->
                  s.withBlockUpload(
                      s.blockUploadThresholdBytes(),
                      integer("block-size-bytes", v),
                      s.blockUploadConcurrency())),
          new Param(
              "block-upload-concurrency",
              "blocks of one object staged at once",
              false,
              (s, v) ->
                  s.withBlockUpload(
                      s.blockUploadThresholdBytes(),
                      s.blockSizeBytes(),
                      integer("block-upload-concurrency", v))),
          new Param(
              "max-connections",
              "connection pool size",
              false,
              (s, v) -> s.withLimits(integer("max-connections", v), s.maxListRequests())),
          new Param(
              "max-list-requests",
              "List Blobs requests per list call",
              false,
              (s, v) -> s.withLimits(s.maxConnections(), integer("max-list-requests", v))));

  @Override
  public Set<String> schemes() {
    return Set.of("azblob");
  }

  @Override
  public ObjectStore open(URI uri, StoreContext context) {
    return AzureBlobObjectStore.open(parse(uri, context.properties()), context.ioExecutor());
  }

  /** The settings named by {@code uri} and {@code properties}; INVALID naming the bad part. */
  static AzureBlobStoreSettings parse(URI uri, Map<String, String> properties) {
    String shown = shown(uri);
    if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase("azblob")) {
      throw invalid("not an azblob URI scheme=" + uri.getScheme() + " uri=" + shown);
    }
    if (uri.isOpaque()) {
      throw invalid("expected azblob://<account>/<container>[/<prefix>] uri=" + shown);
    }
    String account = uri.getRawAuthority();
    if (account == null || account.isEmpty()) {
      throw invalid("missing account (azblob://<account>/...) uri=" + shown);
    }
    if (account.contains("@") || account.contains(":")) {
      throw invalid(
          "the authority must be the bare account name (no user, no port) account="
              + account.replaceAll(".*@", "***@")
              + " uri="
              + shown);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (path.startsWith("/")) {
      path = path.substring(1);
    }
    int slash = path.indexOf('/');
    String container = slash < 0 ? path : path.substring(0, slash);
    String prefix = slash < 0 ? "" : path.substring(slash + 1);
    if (container.isEmpty()) {
      throw invalid("missing container (azblob://<account>/<container>) uri=" + shown);
    }
    if (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (!prefix.isEmpty() && !ObjectKeys.isValid(prefix)) {
      throw invalid(
          "invalid prefix: "
              + ObjectKeys.problem(prefix).orElse("?")
              + " prefix="
              + prefix
              + " uri="
              + shown);
    }
    AzureBlobStoreSettings settings;
    try {
      settings =
          AzureBlobStoreSettings.of(account, container)
              .withPrefix(prefix.isEmpty() ? "" : prefix + "/");
    } catch (LoamException e) {
      throw invalid(e.getMessage() + " uri=" + shown);
    }

    Map<String, String> values = new LinkedHashMap<>(query(uri, shown));
    for (var e : properties.entrySet()) {
      if (e.getKey().startsWith(PROPERTY_PREFIX)) {
        String name = e.getKey().substring(PROPERTY_PREFIX.length());
        if (param(name) == null) {
          throw invalid("unknown store property property=" + e.getKey());
        }
        values.put(name, e.getValue());
      }
    }
    for (Param p : PARAMS) {
      String v = values.get(p.name());
      if (v == null) {
        continue;
      }
      try {
        settings = p.apply().apply(settings, v);
      } catch (LoamException e) {
        throw invalid(
            "invalid value for parameter "
                + p.name()
                + (p.secret() ? "" : " (" + e.getMessage() + ")")
                + " uri="
                + shown);
      }
    }
    return settings;
  }

  private static Param param(String name) {
    for (Param p : PARAMS) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  private static Map<String, String> query(URI uri, String shown) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      Param p = param(name);
      if (p == null) {
        throw invalid("unknown URI parameter parameter=" + name + " uri=" + shown);
      }
      if (out.containsKey(name)) {
        throw invalid("URI parameter given twice parameter=" + name + " uri=" + shown);
      }
      out.put(name, percentDecode(value, name, p.secret(), shown));
    }
    return out;
  }

  /**
   * RFC 3986 percent-decoding. Unlike {@link java.net.URLDecoder}, {@code +} stays {@code +}: keys
   * and SAS signatures are base64 and contain it.
   */
  private static String percentDecode(String s, String name, boolean secret, String shown) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length()
            || Character.digit(s.charAt(i + 1), 16) < 0
            || Character.digit(s.charAt(i + 2), 16) < 0) {
          throw invalid(
              "bad percent-encoding in parameter="
                  + name
                  + (secret ? "" : " value=" + s)
                  + " uri="
                  + shown);
        }
        out.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(b, 0, b.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The URI without its query values, which may hold secrets. */
  static String shown(URI uri) {
    String base =
        uri.getScheme()
            + "://"
            + (uri.getRawAuthority() == null ? "" : uri.getRawAuthority().replaceAll(".*@", "***@"))
            + (uri.getRawPath() == null ? "" : uri.getRawPath());
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return base;
    }
    StringBuilder q = new StringBuilder();
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      Param p = param(name);
      q.append(q.length() == 0 ? "?" : "&")
          .append(name)
          .append(eq < 0 ? "" : "=" + (p != null && !p.secret() ? pair.substring(eq + 1) : "***"));
    }
    return base + q;
  }

  private static boolean bool(String name, String v) {
    if (v.equals("true") || v.equals("false")) {
      return Boolean.parseBoolean(v);
    }
    throw invalid("expected true or false " + name + "=" + v);
  }

  private static Duration millis(String name, String v) {
    return Duration.ofMillis(longValue(name, v));
  }

  private static int integer(String name, String v) {
    long l = longValue(name, v);
    if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
      throw invalid("number out of range " + name + "=" + v);
    }
    return (int) l;
  }

  private static long longValue(String name, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw invalid("expected a whole number " + name + "=" + v);
    }
  }

  private static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, message);
  }
}
