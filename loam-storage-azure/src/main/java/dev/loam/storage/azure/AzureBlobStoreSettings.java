package dev.loam.storage.azure;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.ObjectKeys;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Plain, validated settings of an {@link AzureBlobObjectStore} (STYLE.md §7): where the container
 * is, how to authenticate, and the bounds on time, retries, connections and uploads.
 *
 * <p>Credentials, in order of precedence: {@code connectionString}, {@code sasToken}, {@code
 * accountKey}; with none of them, the well-known key of the emulator account {@code
 * devstoreaccount1} for that account, else the SDK's default chain ({@code
 * DefaultAzureCredential}). Secrets never appear in {@link #toString()} or in any message.
 *
 * @param accountName the storage account, 3..24 of {@code [a-z0-9]}
 * @param endpoint the blob service URL; empty for {@code https://<account>.blob.core.windows.net}
 * @param container the container, 3..63 of {@code [a-z0-9-]} (Azure's container name rules)
 * @param prefix prepended to every key: empty, or valid key segments ending in {@code /}
 * @param createContainer whether the store creates the container (if absent) before its first
 *     request
 * @param accountKey the shared key, or empty
 * @param sasToken a SAS token (with or without the leading {@code ?}), or empty
 * @param connectionString an Azure Storage connection string, or empty
 * @param connectTimeout TCP connect timeout
 * @param responseTimeout longest wait for response headers, and for each read or write of the body
 * @param tryTimeout longest time of one attempt of a request, whole seconds (the SDK truncates), at
 *     least 1 s
 * @param maxTries attempts per request, the first included (the SDK's retry policy, exponential)
 * @param retryDelay the first back-off between attempts
 * @param maxRetryDelay the largest back-off between attempts
 * @param blockUploadThresholdBytes objects larger than this are written as staged blocks plus a
 *     block-list commit; smaller ones in one Put Blob
 * @param blockSizeBytes the size of each staged block
 * @param blockUploadConcurrency blocks of one object staged at once
 * @param maxConnections the connection pool's bound; more requests queue for a connection
 * @param maxListRequests List Blobs requests one {@code list} call may make (Azure may return short
 *     pages with a continuation marker)
 */
public record AzureBlobStoreSettings(
    String accountName,
    String endpoint,
    String container,
    String prefix,
    boolean createContainer,
    String accountKey,
    String sasToken,
    String connectionString,
    Duration connectTimeout,
    Duration responseTimeout,
    Duration tryTimeout,
    int maxTries,
    Duration retryDelay,
    Duration maxRetryDelay,
    long blockUploadThresholdBytes,
    int blockSizeBytes,
    int blockUploadConcurrency,
    int maxConnections,
    int maxListRequests) {

  /** The published account of the Azure storage emulators (Azurite). */
  public static final String EMULATOR_ACCOUNT = "devstoreaccount1";

  /** Azure's limit on the length of a blob name, in characters. */
  public static final int MAX_BLOB_NAME_CHARS = 1024;

  /** The largest block Azure stages (service version 2019-12-12 and later: 4000 MiB). */
  static final long MAX_BLOCK_BYTES = 4000L * 1024 * 1024;

  private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
  private static final Pattern CONTAINER = Pattern.compile("[a-z0-9](?:-?[a-z0-9])+");

  public AzureBlobStoreSettings {
    require(accountName != null && ACCOUNT.matcher(accountName).matches(), "account", accountName);
    endpoint = endpoint == null ? "" : endpoint;
    if (!endpoint.isEmpty()) {
      URI u;
      try {
        u = URI.create(endpoint);
      } catch (IllegalArgumentException e) {
        throw new LoamException(Kind.INVALID, "malformed endpoint endpoint=" + endpoint, e);
      }
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      require(
          (scheme.equals("http") || scheme.equals("https")) && u.getHost() != null,
          "endpoint",
          endpoint);
    }
    require(
        container != null
            && container.length() >= 3
            && container.length() <= 63
            && CONTAINER.matcher(container).matches(),
        "container",
        container);
    prefix = prefix == null ? "" : prefix;
    require(
        prefix.isEmpty()
            || (prefix.endsWith("/")
                && ObjectKeys.isValid(prefix.substring(0, prefix.length() - 1))),
        "prefix",
        prefix);
    require(prefix.length() < MAX_BLOB_NAME_CHARS, "prefix", prefix);
    accountKey = accountKey == null ? "" : accountKey;
    sasToken = sasToken == null ? "" : sasToken;
    connectionString = connectionString == null ? "" : connectionString;
    require(positive(connectTimeout), "connectTimeout", connectTimeout);
    require(positive(responseTimeout), "responseTimeout", responseTimeout);
    // The SDK counts the per-try timeout in whole seconds.
    require(
        tryTimeout != null && tryTimeout.compareTo(Duration.ofSeconds(1)) >= 0,
        "tryTimeout",
        tryTimeout);
    require(maxTries >= 1 && maxTries <= 10, "maxTries", maxTries);
    require(positive(retryDelay), "retryDelay", retryDelay);
    require(
        positive(maxRetryDelay) && maxRetryDelay.compareTo(retryDelay) >= 0,
        "maxRetryDelay",
        maxRetryDelay);
    require(
        blockSizeBytes >= 1024 && blockSizeBytes <= MAX_BLOCK_BYTES,
        "blockSizeBytes",
        blockSizeBytes);
    require(blockUploadThresholdBytes >= 0, "blockUploadThresholdBytes", blockUploadThresholdBytes);
    require(
        blockUploadConcurrency >= 1 && blockUploadConcurrency <= 64,
        "blockUploadConcurrency",
        blockUploadConcurrency);
    require(maxConnections >= 1 && maxConnections <= 1024, "maxConnections", maxConnections);
    require(maxListRequests >= 1 && maxListRequests <= 100, "maxListRequests", maxListRequests);
  }

  /** The defaults for {@code container} of {@code accountName}: no prefix, the default chain. */
  public static AzureBlobStoreSettings of(String accountName, String container) {
    return builder(accountName, container).build();
  }

  /**
   * A builder for {@code container} of {@code accountName} holding the {@linkplain #of defaults}.
   */
  public static Builder builder(String accountName, String container) {
    return new Builder(accountName, container);
  }

  /** A builder holding these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The blob service URL the store talks to. */
  public String effectiveEndpoint() {
    return endpoint.isEmpty() ? "https://" + accountName + ".blob.core.windows.net" : endpoint;
  }

  public AzureBlobStoreSettings withEndpoint(String url) {
    return toBuilder().endpoint(url).build();
  }

  public AzureBlobStoreSettings withPrefix(String p) {
    return toBuilder().prefix(p).build();
  }

  public AzureBlobStoreSettings withCreateContainer(boolean create) {
    return toBuilder().createContainer(create).build();
  }

  /** These settings with a shared key ({@code key}), a SAS token and a connection string. */
  public AzureBlobStoreSettings withCredentials(String key, String sas, String connection) {
    return toBuilder().accountKey(key).sasToken(sas).connectionString(connection).build();
  }

  public AzureBlobStoreSettings withTimeouts(Duration connect, Duration response, Duration oneTry) {
    return toBuilder().connectTimeout(connect).responseTimeout(response).tryTimeout(oneTry).build();
  }

  public AzureBlobStoreSettings withRetries(int tries, Duration delay, Duration maxDelay) {
    return toBuilder().maxTries(tries).retryDelay(delay).maxRetryDelay(maxDelay).build();
  }

  public AzureBlobStoreSettings withBlockUpload(
      long thresholdBytes, int blockBytes, int concurrency) {
    return toBuilder()
        .blockUploadThresholdBytes(thresholdBytes)
        .blockSizeBytes(blockBytes)
        .blockUploadConcurrency(concurrency)
        .build();
  }

  public AzureBlobStoreSettings withLimits(int connections, int listRequests) {
    return toBuilder().maxConnections(connections).maxListRequests(listRequests).build();
  }

  /** Which credential the store will use, without the secret itself. */
  public String credentialKind() {
    if (!connectionString.isEmpty()) {
      return "connection-string";
    }
    if (!sasToken.isEmpty()) {
      return "sas";
    }
    if (!accountKey.isEmpty()) {
      return "account-key";
    }
    return accountName.equals(EMULATOR_ACCOUNT) ? "emulator-key" : "default-chain";
  }

  /** Every setting except the secrets, which show as {@code ***} when set. */
  @Override
  public String toString() {
    return "AzureBlobStoreSettings[account="
        + accountName
        + ", endpoint="
        + effectiveEndpoint()
        + ", container="
        + container
        + ", prefix="
        + prefix
        + ", createContainer="
        + createContainer
        + ", credential="
        + credentialKind()
        + ", accountKey="
        + mask(accountKey)
        + ", sasToken="
        + mask(sasToken)
        + ", connectionString="
        + mask(connectionString)
        + ", connectTimeout="
        + connectTimeout
        + ", responseTimeout="
        + responseTimeout
        + ", tryTimeout="
        + tryTimeout
        + ", maxTries="
        + maxTries
        + ", retryDelay="
        + retryDelay
        + ", maxRetryDelay="
        + maxRetryDelay
        + ", blockUploadThresholdBytes="
        + blockUploadThresholdBytes
        + ", blockSizeBytes="
        + blockSizeBytes
        + ", blockUploadConcurrency="
        + blockUploadConcurrency
        + ", maxConnections="
        + maxConnections
        + ", maxListRequests="
        + maxListRequests
        + "]";
  }

  private static String mask(String secret) {
    return secret.isEmpty() ? "" : "***";
  }

  private static boolean positive(Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }

  private static void require(boolean ok, String name, Object value) {
    if (!ok) {
      throw new LoamException(Kind.INVALID, "invalid Azure store setting " + name + "=" + value);
    }
  }

  /**
   * Builds {@link AzureBlobStoreSettings}; starts from the defaults, validates in {@link #build}.
   */
  public static final class Builder {
    private final String accountName;
    private String endpoint = "";
    private final String container;
    private String prefix = "";
    private boolean createContainer;
    private String accountKey = "";
    private String sasToken = "";
    private String connectionString = "";
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration responseTimeout = Duration.ofSeconds(30);
    private Duration tryTimeout = Duration.ofSeconds(60);
    private int maxTries = 3;
    private Duration retryDelay = Duration.ofMillis(200);
    private Duration maxRetryDelay = Duration.ofSeconds(5);
    private long blockUploadThresholdBytes = 16L * 1024 * 1024;
    private int blockSizeBytes = 8 * 1024 * 1024;
    private int blockUploadConcurrency = 4;
    private int maxConnections = 32;
    private int maxListRequests = 8;

    private Builder(String accountName, String container) {
      this.accountName = accountName;
      this.container = container;
    }

    private Builder(AzureBlobStoreSettings s) {
      this.accountName = s.accountName;
      this.endpoint = s.endpoint;
      this.container = s.container;
      this.prefix = s.prefix;
      this.createContainer = s.createContainer;
      this.accountKey = s.accountKey;
      this.sasToken = s.sasToken;
      this.connectionString = s.connectionString;
      this.connectTimeout = s.connectTimeout;
      this.responseTimeout = s.responseTimeout;
      this.tryTimeout = s.tryTimeout;
      this.maxTries = s.maxTries;
      this.retryDelay = s.retryDelay;
      this.maxRetryDelay = s.maxRetryDelay;
      this.blockUploadThresholdBytes = s.blockUploadThresholdBytes;
      this.blockSizeBytes = s.blockSizeBytes;
      this.blockUploadConcurrency = s.blockUploadConcurrency;
      this.maxConnections = s.maxConnections;
      this.maxListRequests = s.maxListRequests;
    }

    public Builder endpoint(String v) {
      this.endpoint = v;
      return this;
    }

    public Builder prefix(String v) {
      this.prefix = v;
      return this;
    }

    public Builder createContainer(boolean v) {
      this.createContainer = v;
      return this;
    }

    public Builder accountKey(String v) {
      this.accountKey = v;
      return this;
    }

    public Builder sasToken(String v) {
      this.sasToken = v;
      return this;
    }

    public Builder connectionString(String v) {
      this.connectionString = v;
      return this;
    }

    public Builder connectTimeout(Duration v) {
      this.connectTimeout = v;
      return this;
    }

    public Builder responseTimeout(Duration v) {
      this.responseTimeout = v;
      return this;
    }

    public Builder tryTimeout(Duration v) {
      this.tryTimeout = v;
      return this;
    }

    public Builder maxTries(int v) {
      this.maxTries = v;
      return this;
    }

    public Builder retryDelay(Duration v) {
      this.retryDelay = v;
      return this;
    }

    public Builder maxRetryDelay(Duration v) {
      this.maxRetryDelay = v;
      return this;
    }

    public Builder blockUploadThresholdBytes(long v) {
      this.blockUploadThresholdBytes = v;
      return this;
    }

    public Builder blockSizeBytes(int v) {
      this.blockSizeBytes = v;
      return this;
    }

    public Builder blockUploadConcurrency(int v) {
      this.blockUploadConcurrency = v;
      return this;
    }

    public Builder maxConnections(int v) {
      this.maxConnections = v;
      return this;
    }

    public Builder maxListRequests(int v) {
      this.maxListRequests = v;
      return this;
    }

    /** The settings; INVALID naming the first setting out of bounds. */
    public AzureBlobStoreSettings build() {
      return new AzureBlobStoreSettings(
          accountName,
          endpoint,
          container,
          prefix,
          createContainer,
          accountKey,
          sasToken,
          connectionString,
          connectTimeout,
          responseTimeout,
          tryTimeout,
          maxTries,
          retryDelay,
          maxRetryDelay,
          blockUploadThresholdBytes,
          blockSizeBytes,
          blockUploadConcurrency,
          maxConnections,
          maxListRequests);
    }
  }
}
