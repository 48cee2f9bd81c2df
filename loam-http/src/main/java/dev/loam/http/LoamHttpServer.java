package dev.loam.http;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeHealth;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.Api;
import dev.loam.http.internal.BodyAggregator;
import dev.loam.http.internal.HttpMetrics;
import dev.loam.http.internal.IngestQuotas;
import dev.loam.http.internal.RequestHandler;
import dev.loam.tls.NettyServerTls;
import dev.loam.tls.ReloadingTls;
import dev.loam.tls.TlsSettings;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The native HTTP API of a Loam node (docs/reference/http-api.md), on Netty. A fixed, small set of
 * event-loop threads serves every connection: handlers call the asynchronous {@link Log} API and
 * write the response when its future completes, so a long-poll is a pending future and ten thousand
 * waiting consumers cost memory, not threads.
 *
 * <pre>{@code
 * try (LoamHttpServer http = LoamHttpServer.builder().node(node).port(8080).start()) {
 *   System.out.println("serving on port " + http.port());
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close} stops accepting, lets in-flight produce requests finish (bounded
 * by the close timeout, and by one second once the node reports that its metastore cannot commit; a
 * produce it stops waiting for is answered 504 {@code outcome_unknown}), answers waiting fetches
 * with 503 and closes every connection. It does not close the node.
 */
public final class LoamHttpServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final Channel serverChannel;
  private final ChannelGroup channels;
  private final HttpMetrics metrics;
  private final Authentication authentication;
  private final Set<RequestHandler.Exchange> inFlight = ConcurrentHashMap.newKeySet();
  private final Duration closeTimeout;
  private final LoamNode node;
  private volatile boolean closing;
  private final Optional<ReloadingTls> tls;

  private LoamHttpServer(Builder b, Log log) {
    this.metrics = new HttpMetrics(b.node);
    this.closeTimeout = b.closeTimeout;
    this.node = b.node;
    this.authentication = b.effectiveAuthentication();
    Api api =
        new Api(
            log,
            b.node,
            metrics,
            new Api.Limits(
                b.maxRequestBytes,
                b.maxLongPolls,
                b.maxFetchBytes,
                Math.min(b.maxFetchBytes, 1 << 20),
                b.maxFetchWait.toMillis(),
                b.requestTimeout.toMillis()),
            new IngestQuotas(b.ingestQuota, b.ingestQuotaOverrides, b.quotaClock),
            authentication);
    api.cloudEventsDedupWindow(b.cloudEventsDedupWindow);
    RequestHandler.ServerState state =
        new RequestHandler.ServerState() {
          @Override
          public Api api() {
            return api;
          }

          @Override
          public HttpMetrics metrics() {
            return metrics;
          }

          @Override
          public boolean closing() {
            return closing;
          }

          @Override
          public void track(RequestHandler.Exchange e) {
            inFlight.add(e);
          }

          @Override
          public void untrack(RequestHandler.Exchange e) {
            inFlight.remove(e);
          }
        };
    // Before the event loops exist: a TLS file that no longer reads fails the start with nothing
    // to shut down.
    this.tls = b.tls.map(ReloadingTls::open);
    SslContext ssl = tls.map(t -> NettyServerTls.serverContext(t, "HTTP server")).orElse(null);
    this.group = new NioEventLoopGroup(b.ioThreads, new DefaultThreadFactory("loam-http", true));
    this.channels = new DefaultChannelGroup("loam-http", GlobalEventExecutor.INSTANCE);
    int maxBody = b.maxRequestBytes;
    try {
      ServerBootstrap boot =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      channels.add(ch);
                      if (ssl != null) {
                        ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc()));
                      }
                      ch.pipeline()
                          .addLast("codec", new HttpServerCodec())
                          .addLast("aggregator", new BodyAggregator(maxBody, metrics))
                          .addLast("api", new RequestHandler(state));
                    }
                  });
      this.serverChannel = boot.bind(b.host, b.port).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot bind the HTTP server host=" + b.host + " port=" + b.port + ": " + e.getMessage(),
          e);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The TLS material in use, when the server speaks HTTPS. */
  public Optional<ReloadingTls> tls() {
    return tls;
  }

  /** The bound port (the ephemeral one when the builder asked for port 0). */
  public int port() {
    return address().getPort();
  }

  /** The bound address. */
  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /** When this server asks for an API key (the builder's setting, or its default for the host). */
  public Authentication authentication() {
    return authentication;
  }

  /** Fetches currently waiting for records or a consistency token. */
  public int longPollsInFlight() {
    return metrics.longPollsInFlight();
  }

  /** Open client connections. */
  public int connections() {
    return metrics.connections();
  }

  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    serverChannel.close().awaitUninterruptibly();
    // Produce requests finish (the node acknowledges or fails them within its flush interval);
    // everything else still waiting (long-polls) is answered 503 now.
    List<RequestHandler.Exchange> pending = List.copyOf(inFlight);
    List<CompletableFuture<Void>> writes =
        pending.stream()
            .filter(RequestHandler.Exchange::isWrite)
            .map(RequestHandler.Exchange::written)
            .toList();
    pending.stream().filter(e -> !e.isWrite()).forEach(RequestHandler.Exchange::abortAsync);
    String stoppedWaiting =
        awaitWrites(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
    if (stoppedWaiting != null) {
      // A produce still waiting may yet be appended: "outcome unknown" is the one true answer.
      pending.stream()
          .filter(RequestHandler.Exchange::isWrite)
          .forEach(e -> e.abortUnknownAsync(stoppedWaiting));
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
          .completeOnTimeout(null, ABORT_WRITE_MILLIS, TimeUnit.MILLISECONDS)
          .join();
    }
    channels.close().awaitUninterruptibly(closeTimeout.toMillis());
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    metrics.registry().close();
  }

  /** How long close() gives the event loops to write the 504s of produce requests it gave up on. */
  private static final long ABORT_WRITE_MILLIS = 1000;

  /** How often close() checks the node's metastore while it waits for produce requests. */
  private static final long CLOSE_CHECK_MILLIS = 100;

  /** How long the node's metastore must stay unable to commit before close() stops waiting. */
  private static final long UNREACHABLE_GRACE_MILLIS = 1000;

  /**
   * Waits for the in-flight produce requests up to the close timeout, and stops once the node has
   * reported for {@value #UNREACHABLE_GRACE_MILLIS} ms that its metastore cannot commit (they could
   * then only wait out their commit budget; a shorter gap is an election). Returns null when they
   * finished, else why it stopped.
   */
  private String awaitWrites(CompletableFuture<Void> writes) {
    long waited = 0;
    long unreachableFor = 0;
    while (true) {
      long slice = Math.min(CLOSE_CHECK_MILLIS, closeTimeout.toMillis() - waited);
      if (slice <= 0) {
        return writes.isDone() ? null : "not answered within closeTimeout=" + closeTimeout;
      }
      try {
        writes.get(slice, TimeUnit.MILLISECONDS);
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      } catch (java.util.concurrent.ExecutionException e) {
        return null;
      } catch (java.util.concurrent.TimeoutException e) {
        waited += slice;
      }
      String reason = null;
      if (node != null) {
        for (NodeHealth.Reason r : node.health().reasons()) {
          if (r.check().equals(NodeHealth.METASTORE)) {
            reason = r.detail();
          }
        }
      }
      unreachableFor = reason == null ? 0 : unreachableFor + slice;
      if (unreachableFor >= UNREACHABLE_GRACE_MILLIS) {
        return "the metastore cannot commit: " + reason;
      }
    }
  }

  /** Configures a server; {@link #start()} binds it. */
  public static final class Builder {
    private LoamNode node;
    private Log log;
    private String host = "127.0.0.1";
    private int port = 8080;
    private int ioThreads = Math.min(4, Math.max(1, Runtime.getRuntime().availableProcessors()));
    private int maxRequestBytes = 16 << 20;
    private int maxLongPolls = 10_000;
    private int maxFetchBytes = 8 << 20;
    private Duration maxFetchWait = Duration.ofSeconds(30);
    private Duration requestTimeout = Duration.ofSeconds(90);
    private Duration closeTimeout = Duration.ofSeconds(30);
    private IngestQuota ingestQuota = IngestQuota.unlimited();
    private Duration cloudEventsDedupWindow = Duration.ofHours(1);
    private final Map<String, IngestQuota> ingestQuotaOverrides = new LinkedHashMap<>();
    private LongSupplier quotaClock = System::nanoTime;
    private Optional<TlsSettings> tls = Optional.empty();
    private Authentication authentication;

    private Builder() {}

    /**
     * When requests need an API key (docs/security.md). The default depends on the host: {@link
     * Authentication#WHEN_KEYS_EXIST} on a loopback address (open until the first key exists), and
     * {@link Authentication#REQUIRED} on any other, so that a server reachable from the network is
     * never open by default.
     */
    public Builder authentication(Authentication a) {
      this.authentication = Objects.requireNonNull(a, "authentication");
      return this;
    }

    /** The mode set, or the host's default. */
    Authentication effectiveAuthentication() {
      if (authentication != null) {
        return authentication;
      }
      return isLoopback(host) ? Authentication.WHEN_KEYS_EXIST : Authentication.REQUIRED;
    }

    /** Serves this node's log; health reports its id and epoch and metrics its writer counters. */
    public Builder node(LoamNode n) {
      this.node = Objects.requireNonNull(n, "node");
      this.log = n.log();
      return this;
    }

    /** Serves a bare log (no node identity or writer counters in health and metrics). */
    public Builder log(Log l) {
      this.log = Objects.requireNonNull(l, "log");
      return this;
    }

    /** The address to bind (default 127.0.0.1; "0.0.0.0" for every interface). */
    public Builder host(String h) {
      this.host = Objects.requireNonNull(h, "host");
      return this;
    }

    /** The port to bind (default 8080); 0 picks an ephemeral port, see {@link #port()}. */
    public Builder port(int p) {
      this.port = p;
      return this;
    }

    /** Event-loop threads serving every connection (default min(4, cores)). */
    public Builder ioThreads(int n) {
      this.ioThreads = n;
      return this;
    }

    /** Largest request body accepted; larger ones are answered 413 (default 16 MiB). */
    public Builder maxRequestBytes(int n) {
      this.maxRequestBytes = n;
      return this;
    }

    /** Fetches that may wait at once; more are answered 503 (default 10,000). */
    public Builder maxLongPolls(int n) {
      this.maxLongPolls = n;
      return this;
    }

    /** Largest {@code max_bytes} a fetch may ask for (default 8 MiB; default asked 1 MiB). */
    public Builder maxFetchBytes(int n) {
      this.maxFetchBytes = n;
      return this;
    }

    /** Longest {@code max_wait_ms} a fetch may ask for (default 30 s). */
    public Builder maxFetchWait(Duration d) {
      this.maxFetchWait = Objects.requireNonNull(d, "maxFetchWait");
      return this;
    }

    /**
     * How long a request may take beyond its own wait before the server answers 503 (reads) or 504
     * (produce: outcome unknown). Default 90 s, above the writer's 60 s commit budget.
     */
    public Builder requestTimeout(Duration d) {
      this.requestTimeout = Objects.requireNonNull(d, "requestTimeout");
      return this;
    }

    /** How long {@link #close} waits for in-flight produce requests (default 30 s). */
    public Builder closeTimeout(Duration d) {
      this.closeTimeout = Objects.requireNonNull(d, "closeTimeout");
      return this;
    }

    /**
     * How long CloudEvents ingest answers a retried source + id as a duplicate with its first
     * offset (default 1 h, 1 s to 24 h; docs/reference/cloudevents.md "Deduplication").
     */
    public Builder cloudEventsDedupWindow(Duration window) {
      if (window.compareTo(Duration.ofSeconds(1)) < 0
          || window.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            "the CloudEvents dedup window is 1 s to 24 h, got window=" + window);
      }
      this.cloudEventsDedupWindow = window;
      return this;
    }

    /**
     * The ingest-bytes quota of every namespace on the produce route (default unlimited): a token
     * bucket per namespace; a produce over it is answered 429 {@code quota_exceeded} with {@code
     * Retry-After} and nothing is appended. Enforced by this server only: per node, not
     * cluster-wide.
     */
    public Builder ingestQuota(IngestQuota q) {
      this.ingestQuota = Objects.requireNonNull(q, "ingestQuota");
      return this;
    }

    /** Overrides the ingest quota of one namespace ({@link IngestQuota#unlimited()} exempts it). */
    public Builder ingestQuota(String namespace, IngestQuota q) {
      ingestQuotaOverrides.put(
          Objects.requireNonNull(namespace, "namespace"), Objects.requireNonNull(q, "ingestQuota"));
      return this;
    }

    /** Overrides the ingest quota of each namespace in the map (added to earlier overrides). */
    public Builder ingestQuotas(Map<String, IngestQuota> overrides) {
      overrides.forEach(this::ingestQuota);
      return this;
    }

    /**
     * The monotonic nanosecond clock the quota buckets refill by (default {@link System#nanoTime});
     * tests advance a fake one.
     */
    Builder quotaClock(LongSupplier nanoClock) {
      this.quotaClock = Objects.requireNonNull(nanoClock, "quotaClock");
      return this;
    }

    /**
     * Serves HTTPS only (default plain HTTP): the certificate and key of {@code t}, with its client
     * CA also requiring every client to present a certificate issued by it. Replaced files are used
     * by later connections (see {@link ReloadingTls}).
     */
    public Builder tls(TlsSettings t) {
      this.tls = Optional.of(Objects.requireNonNull(t, "tls"));
      return this;
    }

    /** Binds and starts serving. INVALID for bad settings, UNAVAILABLE if the port is taken. */
    public LoamHttpServer start() {
      if (log == null) {
        throw new LoamException(Kind.INVALID, "give the server a node or a log");
      }
      require(port >= 0 && port <= 65535, "port", port);
      require(ioThreads >= 1 && ioThreads <= 256, "ioThreads", ioThreads);
      require(maxRequestBytes >= 1024, "maxRequestBytes", maxRequestBytes);
      require(maxLongPolls >= 1, "maxLongPolls", maxLongPolls);
      require(maxFetchBytes >= 1, "maxFetchBytes", maxFetchBytes);
      require(!maxFetchWait.isNegative(), "maxFetchWait", maxFetchWait);
      require(
          !requestTimeout.isNegative() && !requestTimeout.isZero(),
          "requestTimeout",
          requestTimeout);
      require(!closeTimeout.isNegative(), "closeTimeout", closeTimeout);
      return new LoamHttpServer(this, log);
    }

    /**
     * Whether {@code host} names only loopback addresses ({@code 127.0.0.1}, {@code ::1}, {@code
     * localhost}); a wildcard or any other address is not, nor a name that does not resolve.
     */
    public static boolean isLoopback(String host) {
      try {
        java.net.InetAddress[] all = java.net.InetAddress.getAllByName(host);
        for (java.net.InetAddress a : all) {
          if (!a.isLoopbackAddress()) {
            return false;
          }
        }
        return all.length > 0;
      } catch (java.net.UnknownHostException e) {
        return false;
      }
    }

    private static void require(boolean ok, String name, Object value) {
      if (!ok) {
        throw new LoamException(Kind.INVALID, "invalid HTTP server setting " + name + "=" + value);
      }
    }
  }
}
