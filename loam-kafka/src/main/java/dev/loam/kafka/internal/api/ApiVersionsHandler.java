package dev.loam.kafka.internal.api;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions: the served APIs and their ranges ({@link SupportedApis}), nothing else, so a client
 * that needs an API Loam lacks fails at once with an unsupported-version error instead of hanging.
 * No features are advertised (Loam has no finalized Kafka features).
 */
public final class ApiVersionsHandler implements ApiHandler {
  private final Supplier<SupportedApis> supported;

  public ApiVersionsHandler(Supplier<SupportedApis> supported) {
    this.supported = supported;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    return ApiHandler.answer(
        new ApiVersionsResponseData()
            .setErrorCode(Errors.NONE.code())
            .setApiKeys(supported.get().asApiVersions())
            .setThrottleTimeMs(0));
  }
}
