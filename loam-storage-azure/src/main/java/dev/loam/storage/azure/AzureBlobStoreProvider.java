package dev.loam.storage.azure;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import dev.loam.storage.azure.AzureBlobStoreSettings.Builder;
import dev.loam.store.ObjectKeys;
import dev.loam.store.UriParameters;
import dev.loam.store.UriParameters.Parameter;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Opens {@code azblob://<account>/<container>[/<prefix>][?<parameters>]} (see
 * docs/reference/storage-azure.md). Every query parameter {@code name} may also be given as the
 * {@link StoreContext} property {@code azure.<name>}, which wins over the URI; secrets belong there
 * rather than in a URI that may be logged. Unknown parameters are rejected, so a typo does not
 * silently fall back to a default.
 */
public final class AzureBlobStoreProvider implements ObjectStoreProvider {
  /** The prefix of {@link StoreContext#properties()} this provider reads. */
  public static final String PROPERTY_PREFIX = "azure.";

  /**
   * The one definition of every parameter (docs/reference/configuration-stores.md is generated from
   * it). Each value is applied and validated on its own, in table order, so an error names the
   * parameter whose value broke a bound.
   */
  static final UriParameters<AzureBlobStoreSettings> URI_PARAMETERS =
      UriParameters.<AzureBlobStoreSettings>builder()
          .string(
              "endpoint",
              "https://<account>.blob.core.windows.net",
              "the blob service URL; for Azurite,"
                  + " http://127.0.0.1:<port>/devstoreaccount1 (path style)",
              set(Builder::endpoint))
          .secret(
              "connection-string",
              "",
              "an Azure Storage connection string (percent-encoded in a URI)",
              set(Builder::connectionString))
          .secret(
              "sas",
              "",
              "a SAS token; in a URI, percent-encode its & and =",
              set(Builder::sasToken))
          .secret(
              "account-key",
              "",
              "the account's shared key (percent-encoded in a URI)",
              set(Builder::accountKey))
          .bool(
              "create-container",
              "false",
              "true: before the first request, create the container if it is missing"
                  + " (once per store; retried on the next call if it failed)",
              set(Builder::createContainer))
          .millis("connect-timeout-ms", "5000", "TCP connect timeout", set(Builder::connectTimeout))
          .millis(
              "response-timeout-ms",
              "30000",
              "wait for the response headers, and for each read or write of a body",
              set(Builder::responseTimeout))
          .millis(
              "try-timeout-ms",
              "60000",
              "one attempt of a request, body included; at least 1000. The SDK counts it"
                  + " in whole seconds",
              set(Builder::tryTimeout))
          .integer(
              "max-tries",
              "3",
              "attempts per request, the first included (1..10)",
              set(Builder::maxTries))
          .millis(
              "retry-delay-ms",
              "200",
              "first back-off (exponential: 0, 1x, 3x, 7x ... the delay)",
              set(Builder::retryDelay))
          .millis(
              "max-retry-delay-ms",
              "5000",
              "largest back-off between attempts",
              set(Builder::maxRetryDelay))
          .longValue(
              "block-upload-threshold-bytes",
              "16777216 (16 MiB)",
              "objects larger than this are staged as blocks",
              set(Builder::blockUploadThresholdBytes))
          .integer(
              "block-size-bytes",
              "8388608 (8 MiB)",
              "size of one staged block (1 KiB to 4000 MiB)",
              set(Builder::blockSizeBytes))
          .integer(
              "block-upload-concurrency",
              "4",
              "blocks of one object staged at once (1..64)",
              set(Builder::blockUploadConcurrency))
          .integer(
              "max-connections",
              "32",
              "connection pool bound (1..1024). Up to 16 times this many requests wait for"
                  + " a connection, for at most try-timeout-ms",
              set(Builder::maxConnections))
          .integer(
              "max-list-requests",
              "8",
              "List Blobs requests that one list call may make (1..100)",
              set(Builder::maxListRequests))
          .build();

  /** Applies one value through the builder, validating the whole settings at once. */
  private static <V> BiFunction<AzureBlobStoreSettings, V, AzureBlobStoreSettings> set(
      BiFunction<Builder, V, Builder> setter) {
    return (s, v) -> setter.apply(s.toBuilder(), v).build();
  }

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
        if (URI_PARAMETERS.find(name).isEmpty()) {
          throw invalid("unknown store property property=" + e.getKey());
        }
        values.put(name, e.getValue());
      }
    }
    for (Parameter<AzureBlobStoreSettings> p : URI_PARAMETERS.parameters()) {
      String v = values.get(p.name());
      if (v == null) {
        continue;
      }
      try {
        settings = p.applyTo(settings, v);
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
      Parameter<AzureBlobStoreSettings> p = URI_PARAMETERS.find(name).orElse(null);
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
      Parameter<AzureBlobStoreSettings> p = URI_PARAMETERS.find(name).orElse(null);
      q.append(q.length() == 0 ? "?" : "&")
          .append(name)
          .append(eq < 0 ? "" : "=" + (p != null && !p.secret() ? pair.substring(eq + 1) : "***"));
    }
    return base + q;
  }

  private static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, message);
  }
}
