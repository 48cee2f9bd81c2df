package dev.loam.kafka.internal.api;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Serves one Kafka API (or a family of them). Handlers never block: they call the asynchronous Log
 * API and complete with the response body, or with empty when the request gets no response (Produce
 * with acks=0). A failed future (or a throw) becomes the API's error response for every topic of
 * the request ({@link Dispatcher}).
 */
public interface ApiHandler {
  CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request);

  /** A completed future of {@code response}, for handlers that answer at once. */
  static CompletableFuture<Optional<ApiMessage>> answer(ApiMessage response) {
    return CompletableFuture.completedFuture(Optional.of(response));
  }
}
