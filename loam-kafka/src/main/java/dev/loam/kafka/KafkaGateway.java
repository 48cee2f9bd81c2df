package dev.loam.kafka;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kafka.internal.api.Dispatcher;
import dev.loam.kafka.internal.api.Handlers;
import dev.loam.kafka.internal.cluster.HostPort;
import dev.loam.kafka.internal.cluster.KafkaEndpoints;
import dev.loam.kafka.internal.network.KafkaConnection;
import dev.loam.kafka.internal.security.Authenticator;
import dev.loam.kafka.internal.security.Session;
import dev.loam.tls.NettyServerTls;
import dev.loam.tls.ReloadingTls;
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
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Kafka wire-protocol gateway of a Loam node (docs/reference/kafka.md): unmodified Kafka
 * clients produce, fetch and administer topics, which are the streams of one namespace. Netty
 * serves the connections on a few event-loop threads; every request calls the asynchronous {@link
 * Log} API, so a long-polling fetch is a pending future, not a thread.
 *
 * <pre>{@code
 * try (KafkaGateway kafka = KafkaGateway.start(node, KafkaGatewaySettings.builder().port(9092).build())) {
 *   // bootstrap.servers=127.0.0.1:9092
 * }
 * }</pre>
 *
 * <p>Once bound, the gateway publishes its {@code host:port} in the node registry under the
 * endpoint name {@code kafka}, so every gateway of the cluster can name this node in Metadata.
 *
 * <p>Thread-safe. {@link #close()} stops accepting, withdraws the endpoint and closes every
 * connection (requests still in flight are answered by the node, but their responses are not sent:
 * a client sees a closed connection and retries); it does not close the node.
 */
public final class KafkaGateway implements AutoCloseable {
  private final EventLoopGroup group;
  private final Channel serverChannel;
  private final ChannelGroup channels;
  private static final Duration ADVERTISE_TIMEOUT = Duration.ofSeconds(30);

  private final HostPort advertised;
  private final Log log;
  private volatile boolean closed;
  private final DispatcherHolder holder = new DispatcherHolder();
  private final Authenticator authenticator;

  private KafkaGateway(LoamNode node, KafkaGatewaySettings settings) {
    Log log = node.log();
    this.log = log;
    ensureNamespace(log, settings.namespace());
    Authenticator auth =
        settings.authentication() == KafkaGatewaySettings.Authentication.NONE
            ? null
            : new Authenticator(log, node.nodeId(), settings);
    this.authenticator = auth;
    String listenerNamespace = settings.namespace();
    SslContext ssl =
        settings
            .tls()
            .map(t -> NettyServerTls.serverContext(ReloadingTls.open(t), "Kafka listener"))
            .orElse(null);
    this.group =
        new NioEventLoopGroup(settings.ioThreads(), new DefaultThreadFactory("loam-kafka", true));
    this.channels = new DefaultChannelGroup("loam-kafka", GlobalEventExecutor.INSTANCE);
    DispatcherHolder holder = this.holder;
    int maxFrame = settings.maxRequestBytes();
    int maxInFlight = settings.maxInFlightPerConnection();
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
                      Dispatcher dispatcher = holder.dispatcher;
                      if (dispatcher == null) {
                        // Accepted in the moment between bind and the handlers being ready: the
                        // client sees a closed connection and reconnects.
                        ch.close();
                        return;
                      }
                      channels.add(ch);
                      if (ssl != null) {
                        ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc()));
                      }
                      ch.pipeline()
                          // Kafka frames: a 4-byte big-endian size, then the request. A size above
                          // the limit (or negative) fails the decoder, which closes the connection.
                          .addLast("frames", new LengthFieldBasedFrameDecoder(maxFrame, 0, 4, 0, 4))
                          .addLast(
                              "kafka",
                              new KafkaConnection(
                                  dispatcher,
                                  maxInFlight,
                                  auth == null
                                      ? Session.open(listenerNamespace)
                                      : new Session(auth)));
                    }
                  });
      this.serverChannel =
          boot.bind(settings.host(), settings.port()).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (auth != null) {
        auth.close();
      }
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot bind the Kafka listener host="
              + settings.host()
              + " port="
              + settings.port()
              + ": "
              + e.getMessage(),
          e);
    }
    this.advertised =
        new HostPort(
            settings.effectiveAdvertisedHost(),
            ((InetSocketAddress) serverChannel.localAddress()).getPort());
    holder.dispatcher =
        Handlers.dispatcher(node, settings, new KafkaEndpoints(node.nodeId(), advertised));
    try {
      // Other gateways learn this listener's address from the node registry.
      log.advertiseEndpoint(KafkaEndpoints.ENDPOINT, advertised.toString())
          .get(ADVERTISE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new LoamException(Kind.UNAVAILABLE, "interrupted advertising the Kafka listener");
    } catch (ExecutionException | TimeoutException e) {
      close();
      Throwable c = e instanceof ExecutionException ? e.getCause() : e;
      throw c instanceof LoamException le
          ? le
          : new LoamException(
              Kind.UNAVAILABLE,
              "cannot advertise the Kafka listener address=" + advertised + ": " + c.getMessage(),
              c);
    }
  }

  /** Holds the dispatcher, built once the port is bound (Metadata names the bound port). */
  private static final class DispatcherHolder {
    volatile Dispatcher dispatcher;
  }

  /**
   * Starts a gateway on a running node: creates the namespace if absent, binds the listener and
   * serves. Throws INVALID for a missing node or settings, UNAVAILABLE when the port cannot be
   * bound.
   */
  public static KafkaGateway start(LoamNode node, KafkaGatewaySettings settings) {
    if (node == null) {
      throw new LoamException(Kind.INVALID, "a running LoamNode is required");
    }
    Objects.requireNonNull(settings, "settings");
    return new KafkaGateway(node, settings);
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

  /** The bound port (the ephemeral one when the settings asked for port 0). */
  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /** The {@code host:port} Metadata announces for this node. */
  public String advertisedAddress() {
    return advertised.toString();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    serverChannel.close().awaitUninterruptibly();
    // Best effort: a node that stops without withdrawing leaves the registry when its process
    // does, and its endpoints with it.
    try {
      log.advertiseEndpoint(KafkaEndpoints.ENDPOINT, "").get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The node may be closing too; nothing else to do.
    }
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    Dispatcher d = holder.dispatcher;
    if (d != null) {
      d.close();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    if (authenticator != null) {
      authenticator.close();
    }
  }
}
