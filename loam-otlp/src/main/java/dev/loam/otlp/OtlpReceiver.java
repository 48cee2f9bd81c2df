package dev.loam.otlp;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.otlp.internal.OtlpGrpcService;
import dev.loam.otlp.internal.OtlpHttpHandler;
import dev.loam.otlp.internal.OtlpIngest;
import dev.loam.tls.NettyServerTls;
import dev.loam.tls.ReloadingTls;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
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
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The OTLP logs receiver of a Loam node (docs/reference/otlp.md): OTLP/HTTP {@code POST /v1/logs}
 * on Netty and OTLP/gRPC {@code LogsService/Export} on grpc-java, both writing through the node's
 * asynchronous {@link Log} API, one record per LogRecord. Either listener may be off.
 *
 * <pre>{@code
 * try (OtlpReceiver otlp = OtlpReceiver.start(node, OtlpSettings.defaults())) {
 *   // OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 (http/protobuf) or :4317 (grpc)
 * }
 * }</pre>
 *
 * <p>Once bound, each listener publishes its {@code host:port} in the node registry under the
 * endpoint name {@code otlp-http} or {@code otlp-grpc}.
 *
 * <p>Thread-safe. {@link #close()} stops both listeners (requests in flight are answered by the
 * node but their responses may not be sent: the exporter retries, OTLP being at-least-once); it
 * does not close the node.
 */
public final class OtlpReceiver implements AutoCloseable {
  /** Node-registry endpoint names. */
  public static final String HTTP_ENDPOINT = "otlp-http";

  public static final String GRPC_ENDPOINT = "otlp-grpc";

  private final Log log;
  private final OtlpIngest ingest;
  private final EventLoopGroup group;
  private final ChannelGroup channels;
  private final Channel httpChannel;
  private final Server grpcServer;
  private final ExecutorService grpcExecutor;
  private volatile boolean closed;

  private OtlpReceiver(LoamNode node, OtlpSettings settings) {
    this.log = node.log();
    ensureNamespace(log, settings.defaultNamespace());
    ReloadingTls tls = settings.tls().map(ReloadingTls::open).orElse(null);
    OtlpIngest ingest = new OtlpIngest(log, settings, System::nanoTime);
    this.ingest = ingest;
    this.channels = new DefaultChannelGroup("loam-otlp", GlobalEventExecutor.INSTANCE);
    EventLoopGroup g = null;
    Channel http = null;
    Server grpc = null;
    ExecutorService exec = null;
    try {
      if (settings.httpPort() != OtlpSettings.OFF) {
        g =
            new NioEventLoopGroup(
                settings.ioThreads(), new DefaultThreadFactory("loam-otlp", true));
        http = bindHttp(g, settings, ingest, tls);
      }
      if (settings.grpcPort() != OtlpSettings.OFF) {
        exec =
            Executors.newFixedThreadPool(
                settings.ioThreads(), new DefaultThreadFactory("loam-otlp-grpc", true));
        grpc = startGrpc(settings, ingest, tls, exec);
      }
    } catch (RuntimeException e) {
      if (http != null) {
        http.close().awaitUninterruptibly();
      }
      if (g != null) {
        g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      }
      if (exec != null) {
        exec.shutdownNow();
      }
      throw e;
    }
    this.group = g;
    this.httpChannel = http;
    this.grpcServer = grpc;
    this.grpcExecutor = exec;
    advertise(HTTP_ENDPOINT, http == null ? "" : settings.host() + ":" + httpPort());
    advertise(GRPC_ENDPOINT, grpc == null ? "" : settings.host() + ":" + grpcPort());
  }

  /**
   * Starts a receiver on a running node: creates the default namespace if absent, binds the
   * listeners that are on and serves. Throws INVALID for a missing node or settings, UNAVAILABLE
   * naming the port when one cannot be bound.
   */
  public static OtlpReceiver start(LoamNode node, OtlpSettings settings) {
    if (node == null) {
      throw new LoamException(Kind.INVALID, "a running LoamNode is required");
    }
    Objects.requireNonNull(settings, "settings");
    return new OtlpReceiver(node, settings);
  }

  private Channel bindHttp(
      EventLoopGroup g, OtlpSettings settings, OtlpIngest ingest, ReloadingTls tls) {
    SslContext ssl = tls == null ? null : NettyServerTls.serverContext(tls, "OTLP/HTTP listener");
    int maxBody = settings.maxRequestBytes();
    ChannelGroup all = channels;
    try {
      return new ServerBootstrap()
          .group(g)
          .channel(NioServerSocketChannel.class)
          .option(ChannelOption.SO_BACKLOG, 1024)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(
              new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                  all.add(ch);
                  if (ssl != null) {
                    ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc()));
                  }
                  ch.pipeline()
                      .addLast("http", new HttpServerCodec())
                      // Answers 413 to a body over the limit (by Content-Length before reading).
                      .addLast("aggregate", new HttpObjectAggregator(maxBody))
                      .addLast("otlp", new OtlpHttpHandler(ingest));
                }
              })
          .bind(settings.host(), settings.httpPort())
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot bind the OTLP/HTTP listener host="
              + settings.host()
              + " port="
              + settings.httpPort()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static Server startGrpc(
      OtlpSettings settings, OtlpIngest ingest, ReloadingTls tls, ExecutorService exec) {
    InetSocketAddress addr = new InetSocketAddress(settings.host(), settings.grpcPort());
    NettyServerBuilder b;
    if (tls == null) {
      b = NettyServerBuilder.forAddress(addr);
    } else {
      TlsServerCredentials.Builder creds =
          TlsServerCredentials.newBuilder().keyManager(tls.keyManager());
      tls.trustManager()
          .ifPresent(
              tm -> creds.trustManager(tm).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE));
      ServerCredentials c = creds.build();
      b = NettyServerBuilder.forAddress(addr, c);
    }
    Server s =
        b.maxInboundMessageSize(settings.maxRequestBytes())
            .executor(exec)
            .addService(OtlpGrpcService.definition(ingest, exec))
            .build();
    try {
      return s.start();
    } catch (IOException | RuntimeException e) {
      s.shutdownNow();
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot bind the OTLP/gRPC listener host="
              + settings.host()
              + " port="
              + settings.grpcPort()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static void ensureNamespace(Log log, String namespace) {
    try {
      log.createNamespace(namespace).join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (!(c instanceof LoamException le) || le.kind() != Kind.CONFLICT) {
        throw c instanceof RuntimeException re ? re : e;
      }
    }
  }

  /** Best effort: the registry is for discovery; a receiver serves whether or not it is there. */
  private void advertise(String name, String address) {
    try {
      log.advertiseEndpoint(name, address).get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // The node may be stopping, or the metastore slow: clients are configured with the address.
    }
  }

  /** The bound OTLP/HTTP port; -1 when that listener is off. */
  public int httpPort() {
    return httpChannel == null ? -1 : ((InetSocketAddress) httpChannel.localAddress()).getPort();
  }

  /** The bound OTLP/gRPC port; -1 when that listener is off. */
  public int grpcPort() {
    return grpcServer == null ? -1 : grpcServer.getPort();
  }

  /** Counters since start: exports, records, rejected records, refusals by reason. */
  public OtlpStats stats() {
    return ingest.stats();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (httpChannel != null) {
      httpChannel.close().awaitUninterruptibly();
      advertise(HTTP_ENDPOINT, "");
    }
    if (grpcServer != null) {
      grpcServer.shutdown();
      advertise(GRPC_ENDPOINT, "");
    }
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    if (grpcServer != null) {
      try {
        if (!grpcServer.awaitTermination(2, TimeUnit.SECONDS)) {
          grpcServer.shutdownNow().awaitTermination(3, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        grpcServer.shutdownNow();
      }
      grpcExecutor.shutdownNow();
    }
    if (group != null) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }
}
