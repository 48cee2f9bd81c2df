package dev.loam.kafka.internal.api;

import dev.loam.api.Log;
import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdRequest;

/**
 * InitProducerId for idempotent producers: a fresh producer id from {@link
 * Log#allocateProducerId()} (never handed out before in the cluster) with epoch 0, so the
 * sequencer's dedupe applies to the producer's batches unchanged. A request that names its current
 * id and epoch (a client bumping its epoch after an unknown-outcome failure) also gets a fresh id
 * with epoch 0: a new id is a stronger fence than a higher epoch and needs no state. A
 * transactional id is refused with INVALID_REQUEST: Loam has no transactions.
 */
public final class InitProducerIdHandler implements ApiHandler {
  private final Log log;

  public InitProducerIdHandler(Log log) {
    this.log = log;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    InitProducerIdRequest req = (InitProducerIdRequest) request.body();
    if (req.data().transactionalId() != null) {
      return ApiHandler.answer(
          new InitProducerIdResponseData()
              .setErrorCode(Errors.INVALID_REQUEST.code())
              .setProducerId(-1)
              .setProducerEpoch((short) -1));
    }
    return log.allocateProducerId()
        .handle(
            (id, e) -> {
              InitProducerIdResponseData r = new InitProducerIdResponseData().setThrottleTimeMs(0);
              if (e != null) {
                return Optional.of(
                    r.setErrorCode(ErrorMapping.of(e, ErrorMapping.Context.ADMIN).code())
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1));
              }
              return Optional.of(
                  r.setErrorCode(Errors.NONE.code())
                      .setProducerId(id.producerId())
                      .setProducerEpoch(id.producerEpoch()));
            });
  }
}
