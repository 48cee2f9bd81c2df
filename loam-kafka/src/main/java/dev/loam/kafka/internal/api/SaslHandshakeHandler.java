package dev.loam.kafka.internal.api;

import dev.loam.kafka.internal.cluster.OwnerForwarding;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.SaslHandshakeRequest;

/**
 * SaslHandshake (v0, v1): the client names a SASL mechanism; the answer lists the mechanisms
 * offered and, for one not offered, UNSUPPORTED_SASL_MECHANISM (then the connection closes). After
 * v1 the exchange follows in SaslAuthenticate requests ({@link SaslAuthenticateHandler}); after v0
 * it travels as bare size-prefixed tokens, which the connection hands to the session directly.
 */
final class SaslHandshakeHandler implements ApiHandler {
  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    String mechanism = ((SaslHandshakeRequest) request.body()).data().mechanism();
    return ApiHandler.answer(
        new SaslHandshakeResponseData()
            .setErrorCode(
                request
                    .session()
                    .handshake(
                        mechanism,
                        request.version() == 0,
                        OwnerForwarding.isForwarded(request.clientId()))
                    .code())
            .setMechanisms(request.session().mechanisms()));
  }
}
