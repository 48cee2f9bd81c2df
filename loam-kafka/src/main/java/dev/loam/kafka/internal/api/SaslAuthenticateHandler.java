package dev.loam.kafka.internal.api;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;

/**
 * SaslAuthenticate (v0 to v2): one message of the SASL exchange the handshake started, answered
 * with the server's next message; the last success names the session's lifetime (v1 and later) and
 * a failure SASL_AUTHENTICATION_FAILED, after which the connection closes ({@code Session}).
 */
final class SaslAuthenticateHandler implements ApiHandler {
  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    byte[] token = ((SaslAuthenticateRequest) request.body()).data().authBytes();
    return request.session().authenticate(token).thenApply(Optional::of);
  }
}
