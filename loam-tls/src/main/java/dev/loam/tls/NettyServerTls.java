package dev.loam.tls;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import javax.net.ssl.SSLException;

/**
 * The Netty server context of a listener over a {@link ReloadingTls}: each handshake asks its key
 * and trust managers for the certificate and the client check, so replaced files reach new
 * connections without a new context. With a client CA, clients must present a certificate ({@link
 * ClientAuth#REQUIRE}).
 *
 * <p>Needs Netty's {@code netty-handler} on the class path (an optional dependency of this module:
 * the listeners that use it bring it).
 */
public final class NettyServerTls {
  private NettyServerTls() {}

  /**
   * @param listener names the listener in errors ({@code HTTP server}, {@code Kafka listener})
   * @throws LoamException INVALID if Netty refuses the configuration
   */
  public static SslContext serverContext(ReloadingTls tls, String listener) {
    try {
      SslContextBuilder b = SslContextBuilder.forServer(tls.keyManager());
      tls.trustManager().ifPresent(tm -> b.trustManager(tm).clientAuth(ClientAuth.REQUIRE));
      return b.build();
    } catch (SSLException e) {
      throw new LoamException(
          Kind.INVALID,
          "cannot set up TLS for the "
              + listener
              + ": "
              + e.getMessage()
              + " certificate="
              + tls.settings().certificateChain(),
          e);
    }
  }
}
