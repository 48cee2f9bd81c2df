package dev.loam.grpc;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.grpc.internal.AdminServiceImpl;
import dev.loam.grpc.internal.Calls;
import dev.loam.grpc.internal.CloudEventsServiceImpl;
import dev.loam.grpc.internal.ClusterServiceImpl;
import dev.loam.grpc.internal.ConsumerServiceImpl;
import dev.loam.grpc.internal.StreamServiceImpl;
import dev.loam.grpc.internal.WriterServiceImpl;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.CloudEventsServiceGrpc;
import dev.loam.grpc.v1.ClusterServiceGrpc;
import dev.loam.grpc.v1.ConsumerServiceGrpc;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.http.internal.IngestQuotas;
import dev.loam.tls.ReloadingTls;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code loam.v1} gRPC API of a Loam node (docs/reference/grpc.md), on grpc-java with its Netty
 * transport: {@code AdminService}, {@code StreamService} (with the flow-controlled {@code
 * Subscribe}), {@code ConsumerService}, {@code ClusterService} and {@code CloudEventsService}
 * (CloudEvents ingest with an answer per event), plus the standard health and reflection services,
 * all served through the node's asynchronous {@link Log} API.
 *
 * <pre>{@code
 * try (LoamGrpcServer grpc = LoamGrpcServer.start(node, GrpcSettings.builder().port(50051).build())) {
 *   // clients connect to 127.0.0.1:50051
 * }
 * }</pre>
 *
 * <p>Once bound, the server publishes its {@code host:port} in the node registry as the endpoint
 * {@value GrpcSettings#ENDPOINT}: other nodes name it in their {@code not_owner} answers.
 *
 * <p>Thread-safe. {@link #close()} stops the listener (open subscriptions end UNAVAILABLE, and
 * clients resume them elsewhere); it does not close the node.
 */
public final class LoamGrpcServer implements AutoCloseable {
  private final Log log;
  private final Calls calls;
  private final Server server;
  private final ExecutorService executor;
  private final ScheduledExecutorService scheduler;
  private final HealthStatusManager health;
  private final String advertised;
  private volatile boolean closed;

  private LoamGrpcServer(LoamNode node, GrpcSettings settings) {
    this.log = node.log();
    ReloadingTls tls = settings.tls().map(ReloadingTls::open).orElse(null);
    this.executor = Executors.newFixedThreadPool(settings.threads(), daemon("loam-grpc"));
    this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("loam-grpc-retry"));
    IngestQuotas quotas =
        new IngestQuotas(settings.ingestQuota(), settings.ingestQuotaOverrides(), System::nanoTime);
    this.calls = new Calls(log, settings, quotas, executor, scheduler);
    this.health = new HealthStatusManager();
    InetSocketAddress addr = new InetSocketAddress(settings.host(), settings.port());
    NettyServerBuilder b;
    if (tls == null) {
      b = NettyServerBuilder.forAddress(addr);
    } else {
      TlsServerCredentials.Builder creds =
          TlsServerCredentials.newBuilder().keyManager(tls.keyManager());
      tls.trustManager()
          .ifPresent(
              tm -> creds.trustManager(tm).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE));
      b = NettyServerBuilder.forAddress(addr, creds.build());
    }
    b.maxInboundMessageSize(settings.maxRequestBytes())
        .executor(executor)
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(
            io.grpc.protobuf.services.ProtoReflectionService.newInstance()); // v1alpha clients
    for (BindableService s :
        List.of(
            new AdminServiceImpl(calls),
            new StreamServiceImpl(calls),
            new ConsumerServiceImpl(calls),
            new WriterServiceImpl(calls),
            new ClusterServiceImpl(calls),
            new CloudEventsServiceImpl(calls, settings.cloudEventsDedupWindow()))) {
      b.addService(ServerInterceptors.intercept(s, Calls.authorizationInterceptor()));
    }
    for (BindableService s : settings.extraServices()) {
      b.addService(ServerInterceptors.intercept(s, Calls.authorizationInterceptor()));
    }
    Server s = b.build();
    try {
      this.server = s.start();
    } catch (IOException | RuntimeException e) {
      s.shutdownNow();
      executor.shutdownNow();
      scheduler.shutdownNow();
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot bind the gRPC listener host="
              + settings.host()
              + " port="
              + settings.port()
              + ": "
              + e.getMessage(),
          e);
    }
    health.setStatus("", ServingStatus.SERVING);
    for (String name :
        List.of(
            AdminServiceGrpc.SERVICE_NAME,
            StreamServiceGrpc.SERVICE_NAME,
            ConsumerServiceGrpc.SERVICE_NAME,
            ClusterServiceGrpc.SERVICE_NAME,
            CloudEventsServiceGrpc.SERVICE_NAME)) {
      health.setStatus(name, ServingStatus.SERVING);
    }
    this.advertised = settings.host() + ":" + server.getPort();
    advertise(advertised);
  }

  /**
   * Starts a server on a running node: binds and serves. Throws INVALID for a missing node or
   * settings, UNAVAILABLE naming the port when it cannot be bound.
   */
  public static LoamGrpcServer start(LoamNode node, GrpcSettings settings) {
    if (node == null) {
      throw new LoamException(Kind.INVALID, "a running LoamNode is required");
    }
    Objects.requireNonNull(settings, "settings");
    return new LoamGrpcServer(node, settings);
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  /** The {@code host:port} this server advertised. */
  public String address() {
    return advertised;
  }

  /** Counters since start. */
  public GrpcStats stats() {
    long[] c = calls.counters();
    return new GrpcStats(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
  }

  /** Best effort: the registry is for discovery; the server serves whether or not it is there. */
  private void advertise(String address) {
    try {
      log.advertiseEndpoint(GrpcSettings.ENDPOINT, address).get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // The node may be stopping, or the metastore slow: clients are configured with the address.
    }
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.enterTerminalState();
    advertise("");
    server.shutdown();
    try {
      // Unary calls in flight finish; subscriptions never do, so they are cut after a moment.
      if (!server.awaitTermination(1, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(3, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
    scheduler.shutdownNow();
    executor.shutdownNow();
  }
}
