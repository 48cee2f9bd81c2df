package dev.loam.meta.ratis;

import dev.loam.tls.ReloadingTls;
import java.util.Optional;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Where a replica's Raft port listens and how its connections are secured: the gRPC server binds
 * only the host of the replica's own address (Ratis binds every interface when given no host), and
 * with {@link RatisSettings#peerTls()} the server, the replica's proposal client and its admin
 * client all speak mutual TLS with the same key and trust managers.
 */
final class RatisTransport {
  private final Parameters parameters = new Parameters();
  private final Optional<ReloadingTls> tls;

  private RatisTransport(Optional<ReloadingTls> tls) {
    this.tls = tls;
    // One configuration for the server, the client and the admin channel: Ratis uses the general
    // TLS configuration for each one not given its own.
    tls.ifPresent(
        t ->
            GrpcConfigKeys.TLS.setConf(
                parameters,
                new GrpcTlsConfig(t.keyManager(), t.trustManager().orElseThrow(), true)));
  }

  /**
   * Reads the peer TLS files if any.
   *
   * @throws dev.loam.error.LoamException INVALID if they no longer read
   */
  static RatisTransport of(RatisSettings settings) {
    return new RatisTransport(settings.peerTls().map(ReloadingTls::open));
  }

  /** Binds the server to the replica's own host and port. */
  void configureServer(RaftProperties p, RatisSettings settings) {
    GrpcConfigKeys.Server.setHost(p, settings.bindHost());
    GrpcConfigKeys.Server.setPort(p, settings.bindPort());
  }

  /** What the Raft server and every Raft client of this replica are built with. */
  Parameters parameters() {
    return parameters;
  }

  boolean secured() {
    return tls.isPresent();
  }
}
