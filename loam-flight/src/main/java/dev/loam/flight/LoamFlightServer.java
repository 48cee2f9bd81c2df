package dev.loam.flight;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.flight.internal.FlightAccess;
import dev.loam.flight.internal.LoamFlightService;
import dev.loam.http.Authentication;
import dev.loam.tls.ReloadingTls;
import dev.loam.tls.TlsSettings;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * An Arrow Flight endpoint for a node's arrow streams (docs/reference/arrow.md "Arrow Flight"):
 * ListFlights, GetFlightInfo, GetSchema and DoGet over gRPC, authenticated with API keys like the
 * other listeners ({@code authorization: Bearer <id>.<secret>} call metadata; a key needs a role in
 * the stream's namespace), in plaintext or, with {@link Builder#tls}, TLS only. Start with {@link
 * #builder()}; close to stop.
 */
public final class LoamFlightServer implements AutoCloseable {
  private final Server server;
  private final ExecutorService executor;
  private final BufferAllocator allocator;

  private LoamFlightServer(Server server, ExecutorService executor, BufferAllocator allocator) {
    this.server = server;
    this.executor = executor;
    this.allocator = allocator;
  }

  /** A builder: the node is required; port 0 picks a free one. */
  public static Builder builder() {
    return new Builder();
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
      server.shutdownNow();
    }
    executor.shutdownNow();
    allocator.close();
  }

  /** Builds and starts a {@link LoamFlightServer}. */
  public static final class Builder {
    private Log log;
    private String host = "127.0.0.1";
    private int port;
    private Authentication authentication = Authentication.WHEN_KEYS_EXIST;
    private int threads = 4;
    private TlsSettings tls;

    private Builder() {}

    /** The node whose arrow streams are served. */
    public Builder node(LoamNode node) {
      this.log = node.log();
      return this;
    }

    /** The address to bind (default 127.0.0.1). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port to bind; 0 picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      this.port = port;
      return this;
    }

    /** When calls need an API key (default: once any key exists, as the HTTP API). */
    public Builder authentication(Authentication a) {
      this.authentication = Objects.requireNonNull(a, "authentication");
      return this;
    }

    /**
     * Serve TLS only, with the same certificate rules as the other listeners ({@link TlsSettings}:
     * PEM chain and key, reloaded when the files change; with a client CA, clients must present a
     * certificate it signed). Clients connect with {@code Location.forGrpcTls}.
     */
    public Builder tls(TlsSettings tls) {
      this.tls = Objects.requireNonNull(tls, "tls");
      return this;
    }

    /** Threads serving calls (DoGet holds one while it streams). */
    public Builder threads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1: " + threads);
      }
      this.threads = threads;
      return this;
    }

    /**
     * Binds and starts the server.
     *
     * @throws UncheckedIOException if the port cannot be bound
     */
    public LoamFlightServer start() {
      Objects.requireNonNull(log, "node");
      BufferAllocator allocator = new RootAllocator();
      ExecutorService executor =
          Executors.newFixedThreadPool(
              threads,
              r -> {
                Thread t = new Thread(r, "loam-flight");
                t.setDaemon(true);
                return t;
              });
      LoamFlightService service = new LoamFlightService(log, new FlightAccess(), allocator);
      InetSocketAddress addr = new InetSocketAddress(host, port);
      NettyServerBuilder nb;
      if (tls == null) {
        nb = NettyServerBuilder.forAddress(addr);
      } else {
        ReloadingTls material;
        try {
          material = ReloadingTls.open(tls);
        } catch (RuntimeException e) {
          executor.shutdownNow();
          allocator.close();
          throw e;
        }
        TlsServerCredentials.Builder creds =
            TlsServerCredentials.newBuilder().keyManager(material.keyManager());
        material
            .trustManager()
            .ifPresent(
                tm -> creds.trustManager(tm).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE));
        nb = NettyServerBuilder.forAddress(addr, creds.build());
      }
      Server server =
          nb.executor(executor)
              .addService(
                  ServerInterceptors.intercept(
                      service, FlightAccess.interceptor(log, authentication)))
              .build();
      try {
        server.start();
      } catch (IOException e) {
        executor.shutdownNow();
        allocator.close();
        throw new UncheckedIOException("flight listener could not bind " + host + ":" + port, e);
      }
      return new LoamFlightServer(server, executor, allocator);
    }
  }
}
