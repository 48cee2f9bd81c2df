package dev.loam.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.client.internal.NodeDirectory;
import dev.loam.client.internal.Settings;
import dev.loam.client.internal.Transport;
import dev.loam.client.internal.Transport.Call;
import dev.loam.client.internal.Transport.Safety;
import dev.loam.client.internal.Wire;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A remote client of a Loam cluster over the native HTTP API (docs/reference/client.md), for
 * applications that do not embed a node. It finds the cluster's live nodes, talks to one in its own
 * zone (stream-engine.txt §3), fails over to another node when one stops answering, follows owner
 * redirects, retries what is safe to retry, and makes reads see its own writes on any node.
 *
 * <p>Every operation is asynchronous; its future fails only with a {@link LoamClientException}
 * subclass. {@link #join} waits and rethrows that exception unwrapped. Thread-safe; create one per
 * application and {@link #close()} it.
 */
public final class LoamClient implements AutoCloseable {
  /** The system property naming the client's zone when the builder sets none. */
  public static final String ZONE_PROPERTY = "loam.zone";

  /** The environment variable naming the client's zone when neither builder nor property does. */
  public static final String ZONE_ENV = "LOAM_ZONE";

  private final Shared shared;
  private final boolean followRedirects;

  /** What the views of one client share: connections, node directory, the session token. */
  private static final class Shared {
    final Settings settings;
    final ExecutorService executor;
    final HttpClient http;
    final NodeDirectory directory;
    final Transport transport;
    final AtomicLong sessionToken = new AtomicLong(-1);

    Shared(Settings settings) {
      this.settings = settings;
      this.executor = Executors.newCachedThreadPool(daemonThreads());
      this.http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .followRedirects(HttpClient.Redirect.NEVER)
              .connectTimeout(settings.connectTimeout())
              .executor(executor)
              .build();
      this.directory = new NodeDirectory(settings, http);
      this.transport = new Transport(settings, http, directory, executor);
    }
  }

  private LoamClient(Shared shared, boolean followRedirects) {
    this.shared = shared;
    this.followRedirects = followRedirects;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * A view of this client that follows owner redirects or not (then owner-bound calls at a
   * non-owner fail with {@link NotOwnerException}). It shares connections, node list and session
   * token with this client; closing either closes both.
   */
  public LoamClient withFollowRedirects(boolean follow) {
    return new LoamClient(shared, follow);
  }

  /** The zone this client prefers; empty if it has none. */
  public String zone() {
    return shared.settings.zone();
  }

  /** The highest consistency token this client saw from a produce; -1 before the first. */
  public long sessionToken() {
    return shared.sessionToken.get();
  }

  /** The node the client currently sends to, once it picked one. */
  public String currentNode() {
    return shared.directory.current();
  }

  /** Refreshes the node list now; the future never fails (old lists stay if no node answers). */
  public CompletableFuture<List<NodeInfo>> refreshNodes() {
    return shared.directory.refresh().thenApply(v -> shared.directory.nodes());
  }

  /** {@code GET /v1/cluster/nodes[?zone=]}: the live nodes (of {@code zone} if not null). */
  public CompletableFuture<List<NodeInfo>> nodes(String zone) {
    String q = zone == null ? "" : "?zone=" + URLEncoder.encode(zone, StandardCharsets.UTF_8);
    return call("GET", "/v1/cluster/nodes" + q, null, Safety.SAFE, false, Wire::nodes);
  }

  // ------------------------------------------------------------------ namespaces and streams

  /** Creates a namespace. Not retried once sent (a retry of an applied create is a conflict). */
  public CompletableFuture<Void> createNamespace(String namespace) {
    ObjectNode b = Wire.object().put("name", namespace);
    return call("POST", "/v1/namespaces", b, Safety.UNSAFE, true, o -> null);
  }

  /** Creates a stream; {@link ConflictException} if it exists. */
  public CompletableFuture<StreamInfo> createStream(String namespace, StreamSpec spec) {
    ObjectNode b = Wire.object();
    b.put("name", spec.name());
    b.put("partitions", spec.partitions());
    b.put("class", spec.durabilityClass());
    b.put("retention_ms", spec.retentionMs());
    b.put("retention_bytes", spec.retentionBytes());
    b.put("cleanup_policy", spec.cleanupPolicy());
    return call("POST", streams(namespace), b, Safety.UNSAFE, true, Wire::streamInfo);
  }

  /** The stream's configuration, bounds and owner as the answering node sees them. */
  public CompletableFuture<StreamInfo> describeStream(String namespace, String stream) {
    return call("GET", stream(namespace, stream), null, Safety.SAFE, false, Wire::streamInfo);
  }

  public CompletableFuture<List<StreamInfo>> listStreams(String namespace) {
    return call(
        "GET",
        streams(namespace),
        null,
        Safety.SAFE,
        false,
        o -> {
          List<StreamInfo> out = new ArrayList<>();
          o.path("streams").forEach(s -> out.add(Wire.streamInfo(s)));
          return List.copyOf(out);
        });
  }

  /**
   * Changes retention and cleanup policy (a merge patch: null leaves a value as it is).
   * Owner-bound; repeating it is harmless, so it is retried.
   */
  public CompletableFuture<StreamInfo> updateStream(
      String namespace, String stream, Long retentionMs, Long retentionBytes, String cleanup) {
    ObjectNode b = Wire.object();
    if (retentionMs != null) {
      b.put("retention_ms", retentionMs);
    }
    if (retentionBytes != null) {
      b.put("retention_bytes", retentionBytes);
    }
    if (cleanup != null) {
      b.put("cleanup_policy", cleanup);
    }
    return call("PATCH", stream(namespace, stream), b, Safety.SAFE, true, Wire::streamInfo);
  }

  /**
   * Grows a stream to {@code totalPartitions} partitions (the new total, as Kafka's
   * CreatePartitions). Owner-bound; not retried once sent (a retry of an applied change is a 400).
   */
  public CompletableFuture<StreamInfo> addPartitions(
      String namespace, String stream, int totalPartitions) {
    return call(
        "POST",
        stream(namespace, stream) + "/partitions",
        Wire.object().put("count", totalPartitions),
        Safety.UNSAFE,
        true,
        Wire::streamInfo);
  }

  /** Deletes a stream (owner-bound). Not retried once sent (a retry would be a 404). */
  public CompletableFuture<Void> deleteStream(String namespace, String stream) {
    return call("DELETE", stream(namespace, stream), null, Safety.UNSAFE, true, o -> null);
  }

  // ------------------------------------------------------------------ produce and fetch

  /**
   * Appends records without an idempotent producer: a connection lost after sending is an {@link
   * OutcomeUnknownException}, never retried (it could append twice). Use {@link
   * #idempotentProducer()} to have lost answers retried safely.
   */
  public CompletableFuture<ProduceResult> produce(
      String namespace, String stream, List<ProduceRecord> records) {
    ObjectNode b = Wire.produceBody(records, -1);
    return call(
        "POST", stream(namespace, stream) + "/records", b, Safety.UNSAFE, true, this::produced);
  }

  /** A new idempotent producer on this client (its id is allocated on the first send). */
  public IdempotentProducer idempotentProducer() {
    return new IdempotentProducer(this);
  }

  /** Allocates a producer id ({@code POST /v1/producers}); a retry only wastes one id. */
  CompletableFuture<long[]> allocateProducer() {
    return call(
        "POST",
        "/v1/producers",
        Wire.object(),
        Safety.SAFE,
        true,
        o -> new long[] {o.path("producer_id").asLong(), o.path("producer_epoch").asLong()});
  }

  /** One idempotent produce; the same body goes to every attempt, so a retry is deduplicated. */
  CompletableFuture<ProduceResult> produceIdempotent(
      String namespace,
      String stream,
      int partition,
      List<ProduceRecord> records,
      long producerId,
      long epoch,
      long sequence) {
    ObjectNode b = Wire.produceBody(records, partition);
    b.put("producer_id", producerId);
    b.put("producer_epoch", epoch);
    b.put("sequence", sequence);
    return call(
        "POST", stream(namespace, stream) + "/records", b, Safety.SAFE, true, this::produced);
  }

  private ProduceResult produced(JsonNode o) {
    ProduceResult r = Wire.produceResult(o);
    shared.sessionToken.accumulateAndGet(r.token(), Math::max);
    return r;
  }

  /**
   * Reads a partition from {@code offset}. With {@link FetchOptions#maxWait()} it long-polls at the
   * high watermark; unless the options name a token, it carries the client's session token, so it
   * sees every record this client produced, whichever node answers.
   */
  public CompletableFuture<FetchResult> fetch(
      String namespace, String stream, int partition, long offset, FetchOptions options) {
    StringBuilder q = new StringBuilder("?encoding=base64&offset=").append(offset);
    if (options.maxBytes() > 0) {
      q.append("&max_bytes=").append(options.maxBytes());
    }
    if (!options.maxWait().isZero()) {
      q.append("&max_wait_ms=").append(options.maxWait().toMillis());
    }
    long token =
        options.minToken().isPresent()
            ? options.minToken().getAsLong()
            : shared.settings.readYourWrites() ? shared.sessionToken.get() : -1;
    if (token >= 0) {
      q.append("&min_token=").append(token);
    }
    return call(
        new Call(
            "GET",
            partition(namespace, stream, partition) + "/records" + q,
            null,
            Safety.SAFE,
            false,
            options.maxWait(),
            followRedirects),
        Wire::fetchResult);
  }

  /** The offset {@code spec} names in a partition. */
  public CompletableFuture<Long> offset(
      String namespace, String stream, int partition, OffsetSpec spec) {
    String q;
    if (spec instanceof OffsetSpec.Timestamp t) {
      q = "?timestamp=" + t.millis();
    } else if (spec instanceof OffsetSpec.Latest) {
      q = "?spec=latest";
    } else {
      q = "?spec=earliest";
    }
    return call(
        "GET",
        partition(namespace, stream, partition) + "/offsets" + q,
        null,
        Safety.SAFE,
        false,
        o -> o.path("offset").asLong());
  }

  // ------------------------------------------------------------------ named consumers

  /**
   * Takes or renews the lease of {@code holder} on a consumer's partition (owner-bound). Renewing
   * is the same call, so it is retried.
   */
  public CompletableFuture<ConsumerState> leaseConsumer(
      String namespace,
      String consumer,
      String stream,
      int partition,
      String holder,
      Duration lease) {
    ObjectNode b = Wire.object().put("holder", holder).put("lease_ms", lease.toMillis());
    return call(
        "POST",
        consumer(namespace, consumer, stream, partition) + "/lease",
        b,
        Safety.SAFE,
        true,
        Wire::consumerState);
  }

  /** Commits the next offset to read under lease {@code generation} (owner-bound; retried). */
  public CompletableFuture<ConsumerState> commitOffset(
      String namespace,
      String consumer,
      String stream,
      int partition,
      long generation,
      long offset) {
    ObjectNode b = Wire.object().put("generation", generation).put("offset", offset);
    return call(
        "POST",
        consumer(namespace, consumer, stream, partition) + "/offset",
        b,
        Safety.SAFE,
        true,
        Wire::consumerState);
  }

  /** The consumer's state for a partition, with its committed offset (served by any node). */
  public CompletableFuture<ConsumerState> consumerState(
      String namespace, String consumer, String stream, int partition) {
    return call(
        "GET",
        consumer(namespace, consumer, stream, partition),
        null,
        Safety.SAFE,
        false,
        Wire::consumerState);
  }

  // ------------------------------------------------------------------ admin

  /** Moves a stream to node {@code to} (owner-bound; not retried once sent). */
  public CompletableFuture<StreamOwner> transferStream(String namespace, String stream, String to) {
    return call(
        "POST",
        "/v1/admin/streams/"
            + Wire.segment(namespace)
            + "/"
            + Wire.segment(stream)
            + "/transfer?to="
            + URLEncoder.encode(to, StandardCharsets.UTF_8),
        null,
        Safety.UNSAFE,
        true,
        Wire::owner);
  }

  /** Sets a node's placement weight (future placements only). */
  public CompletableFuture<NodeInfo> setSlots(String nodeId, int slots) {
    return call(
        "PUT",
        "/v1/admin/nodes/" + Wire.segment(nodeId) + "/slots",
        Wire.object().put("slots", slots),
        Safety.SAFE,
        true,
        Wire::node);
  }

  // ------------------------------------------------------------------ plumbing

  private <T> CompletableFuture<T> call(
      String method,
      String path,
      ObjectNode body,
      Safety safety,
      boolean mutating,
      Function<JsonNode, T> decode) {
    return call(
        new Call(
            method,
            path,
            body == null ? null : Wire.bytes(body),
            safety,
            mutating,
            Duration.ZERO,
            followRedirects),
        decode);
  }

  private <T> CompletableFuture<T> call(Call c, Function<JsonNode, T> decode) {
    return shared
        .transport
        .send(c)
        .thenApply(
            a -> decode.apply(a.status() == 204 ? Wire.object() : Wire.read(a.body(), a.node())));
  }

  private static String streams(String ns) {
    return "/v1/namespaces/" + Wire.segment(ns) + "/streams";
  }

  private static String stream(String ns, String s) {
    return streams(ns) + "/" + Wire.segment(s);
  }

  private static String partition(String ns, String s, int p) {
    return stream(ns, s) + "/partitions/" + p;
  }

  private static String consumer(String ns, String c, String s, int p) {
    return "/v1/namespaces/"
        + Wire.segment(ns)
        + "/consumers/"
        + Wire.segment(c)
        + "/streams/"
        + Wire.segment(s)
        + "/partitions/"
        + p;
  }

  /**
   * Waits for {@code f} and returns its value, rethrowing its {@link LoamClientException} as is
   * (not wrapped): the blocking form of any operation.
   */
  public static <T> T join(CompletableFuture<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LoamClientException("interrupted", 0, "interrupted while waiting", null, e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      while (c instanceof CompletionException && c.getCause() != null) {
        c = c.getCause();
      }
      if (c instanceof LoamClientException l) {
        throw l;
      }
      throw new LoamClientException("client_error", 0, "call failed: " + c, null, c);
    }
  }

  /** Stops the client's threads; calls in flight fail. */
  @Override
  public void close() {
    shared.executor.shutdownNow();
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "loam-client-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Configures a {@link LoamClient}; only the bootstrap URLs are required. */
  public static final class Builder {
    private List<String> bootstrap = List.of();
    private String zone;
    private boolean followRedirects = true;
    private int maxRedirects = 3;
    private int maxAttempts = 8;
    private Duration retryBackoff = Duration.ofMillis(50);
    private Duration maxRetryBackoff = Duration.ofSeconds(1);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration refreshInterval = Duration.ofSeconds(30);
    private Duration nodeBackoff = Duration.ofSeconds(10);
    private boolean readYourWrites = true;

    private Builder() {}

    /** Base URLs ({@code http://host:port}) of one or more nodes, used to discover the rest. */
    public Builder bootstrap(String... urls) {
      return bootstrap(Arrays.asList(urls));
    }

    public Builder bootstrap(List<String> urls) {
      this.bootstrap = List.copyOf(urls);
      return this;
    }

    /**
     * The client's availability zone. Without it the client reads the system property {@value
     * #ZONE_PROPERTY}, then the environment variable {@value #ZONE_ENV}; none means no preference.
     */
    public Builder zone(String zone) {
      this.zone = Objects.requireNonNull(zone, "zone");
      return this;
    }

    /** Follow 307 answers to a stream's owner (default); false surfaces NotOwnerException. */
    public Builder followRedirects(boolean follow) {
      this.followRedirects = follow;
      return this;
    }

    /** Redirect hops followed per attempt (default 3). */
    public Builder maxRedirects(int n) {
      this.maxRedirects = n;
      return this;
    }

    /** Attempts per call (default 8), on different nodes where possible. */
    public Builder maxAttempts(int n) {
      this.maxAttempts = n;
      return this;
    }

    /** Wait before the second attempt (default 50 ms), doubling up to {@code max} (1 s). */
    public Builder retryBackoff(Duration initial, Duration max) {
      this.retryBackoff = initial;
      this.maxRetryBackoff = max;
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    /** How long an answer may take (default 30 s); a long-poll adds its wait. */
    public Builder requestTimeout(Duration d) {
      this.requestTimeout = d;
      return this;
    }

    /** How often the node list is refreshed while the client is used (default 30 s). */
    public Builder refreshInterval(Duration d) {
      this.refreshInterval = d;
      return this;
    }

    /** How long a node that did not answer is skipped (default 10 s). */
    public Builder nodeBackoff(Duration d) {
      this.nodeBackoff = d;
      return this;
    }

    /** Fetches carry the session token (default true). */
    public Builder readYourWrites(boolean on) {
      this.readYourWrites = on;
      return this;
    }

    /** Builds the client; no I/O happens until the first call. */
    public LoamClient build() {
      String z = zone;
      if (z == null) {
        z = System.getProperty(ZONE_PROPERTY);
      }
      if (z == null) {
        z = System.getenv(ZONE_ENV);
      }
      Settings s =
          new Settings(
              bootstrap,
              z == null ? "" : z.trim(),
              followRedirects,
              maxRedirects,
              maxAttempts,
              retryBackoff,
              maxRetryBackoff,
              connectTimeout,
              requestTimeout,
              refreshInterval,
              nodeBackoff,
              readYourWrites);
      return new LoamClient(new Shared(s), followRedirects);
    }
  }
}
