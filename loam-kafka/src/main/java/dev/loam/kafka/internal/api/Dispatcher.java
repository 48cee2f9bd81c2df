package dev.loam.kafka.internal.api;

import dev.loam.kafka.internal.errors.ErrorMapping;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a parsed request to its {@link ApiHandler} and contains every failure: a handler that
 * throws or fails its future answers the API's own error response (Kafka's {@code
 * getErrorResponse}: the mapped error code on every topic and partition of the request), so no
 * exception reaches the connection. A request whose connection lacks the role its API needs is
 * answered with the API's authorization error instead ({@link Authorization}).
 */
public final class Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

  private final Map<ApiKeys, ApiHandler> handlers;
  private final SupportedApis supported;
  private final AutoCloseable resources;

  /** Serves exactly the APIs of {@code handlers}; ApiVersions advertises those. */
  public Dispatcher(Map<ApiKeys, ApiHandler> handlers) {
    this(handlers, () -> {});
  }

  /** As {@link #Dispatcher(Map)}, with what the handlers hold open, closed by {@link #close}. */
  public Dispatcher(Map<ApiKeys, ApiHandler> handlers, AutoCloseable resources) {
    this.handlers = new EnumMap<>(handlers);
    this.supported = new SupportedApis(this.handlers.keySet());
    this.resources = resources;
  }

  /** Closes what the handlers hold open (the clients that forward admin requests to owners). */
  public void close() {
    try {
      resources.close();
    } catch (Exception e) {
      LOG.warn("closing the Kafka gateway's handlers failed", e);
    }
  }

  /** The served APIs and their version ranges. */
  public SupportedApis supported() {
    return supported;
  }

  /**
   * The response of {@code request}; empty when it gets none. A handler's failure becomes the API's
   * error response. Fails only with {@link UnanswerableRequestException}, when not even an error
   * response can be built from the request (Kafka's error-response builders assume well-formed
   * requests): the connection then closes, as for a malformed frame.
   */
  public CompletableFuture<Optional<ApiMessage>> dispatch(ClientRequest request) {
    ApiHandler h = handlers.get(request.header().apiKey());
    CompletableFuture<Optional<ApiMessage>> f;
    try {
      Optional<ApiMessage> refused = Authorization.refusal(request);
      if (refused.isPresent()) {
        f =
            CompletableFuture.completedFuture(
                refused.get() == Authorization.ABSENT ? Optional.empty() : refused);
      } else {
        f = h.handle(request);
      }
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    return f.handle(
        (r, t) -> {
          if (t == null) {
            return r;
          }
          try {
            return Optional.of(errorResponse(request, t));
          } catch (RuntimeException e) {
            e.addSuppressed(t);
            throw new UnanswerableRequestException(request, e);
          }
        });
  }

  /** A request that failed in a way no response of its API can express. */
  public static final class UnanswerableRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnanswerableRequestException(ClientRequest request, Throwable cause) {
      super(
          "no response can be built api="
              + request.header().apiKey()
              + " version="
              + request.version()
              + ": "
              + cause,
          cause);
    }
  }

  static ApiMessage errorResponse(ClientRequest request, Throwable failure) {
    Errors e = ErrorMapping.of(failure, ErrorMapping.Context.DATA);
    if (e == Errors.UNKNOWN_SERVER_ERROR) {
      LOG.warn(
          "request failed api={} clientId={}",
          request.header().apiKey(),
          request.clientId(),
          ErrorMapping.unwrap(failure));
    }
    AbstractResponse r =
        request.body().getErrorResponse(0, e.exception(ErrorMapping.message(failure)));
    return r.data();
  }
}
