package dev.loam.storage.azure;

import com.azure.core.exception.HttpResponseException;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelinePosition;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.storage.blob.models.BlobStorageException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * The one place where Azure SDK failures become {@link ObjectStoreException}s.
 *
 * <p>Writes need more than the last error: the SDK retries inside one call, so the last error is
 * not the whole story. A create whose first attempt timed out and whose retry found the key taken
 * may have found its own write; reporting "exists" there would tell Loam that another writer won.
 * {@link Attempts} records, per write, how many attempts went out and whether any of them ended
 * ambiguously (no response, or a 500/504 that Azure documents as "may have completed"). Every write
 * failure after an ambiguous attempt is outcome unknown.
 */
final class AzureFailures {
  private AzureFailures() {}

  /** The operation that failed; decides what a timeout or a 404 means. */
  enum Op {
    CREATE(true),
    PUT(true),
    /** A failure while staging blocks: nothing is visible until the commit. */
    STAGE(false),
    GET(false),
    HEAD(false),
    LIST(false),
    DELETE(false),
    CONTAINER(false);

    final boolean visibleWrite;

    Op(boolean visibleWrite) {
      this.visibleWrite = visibleWrite;
    }
  }

  /**
   * What happened to the attempts of one write, filled in by {@link #policy()}. Travels in the
   * request's context under {@link #KEY}.
   */
  static final class Attempts {
    static final String KEY = "loam-azure-attempts";
    final AtomicInteger count = new AtomicInteger();
    final AtomicBoolean ambiguous = new AtomicBoolean();

    @Override
    public String toString() {
      return "attempts=" + count.get() + (ambiguous.get() ? " (one ambiguous)" : "");
    }
  }

  /**
   * A per-attempt pipeline policy (it runs after the SDK's retry policy, so once per attempt) that
   * records each attempt of a write carrying {@link Attempts} in its context.
   */
  static HttpPipelinePolicy policy() {
    return new HttpPipelinePolicy() {
      @Override
      public Mono<HttpResponse> process(HttpPipelineCallContext ctx, HttpPipelineNextPolicy next) {
        Object data = ctx.getData(Attempts.KEY).orElse(null);
        if (!(data instanceof Attempts attempts)) {
          return next.process();
        }
        attempts.count.incrementAndGet();
        return next.process()
            .doOnNext(
                r -> {
                  if (ambiguousStatus(r.getStatusCode())) {
                    attempts.ambiguous.set(true);
                  }
                })
            .doOnError(
                e -> {
                  if (!nothingSent(e)) {
                    attempts.ambiguous.set(true);
                  }
                })
            // The retry policy's per-try timeout cancels the attempt: no answer, so ambiguous.
            .doOnCancel(() -> attempts.ambiguous.set(true));
      }

      @Override
      public HttpPipelinePosition getPipelinePosition() {
        return HttpPipelinePosition.PER_RETRY;
      }
    };
  }

  /**
   * Maps {@code failure} of {@code op}. {@code id} is the message's identifier suffix (for example
   * {@code ", key=wal/1"}); {@code attempts} is the write's record, or null. A failure that is not
   * an I/O or service error (a bug) is returned unchanged.
   */
  static Throwable map(Throwable failure, Op op, String id, Attempts attempts, boolean closed) {
    Throwable t = unwrap(failure);
    if (t instanceof ObjectStoreException) {
      return t;
    }
    boolean ambiguousWrite = op.visibleWrite && attempts != null && attempts.ambiguous.get();
    HttpResponseException http = find(t, HttpResponseException.class);
    if (http != null && http.getResponse() != null) {
      int status = http.getResponse().getStatusCode();
      String code = errorCode(http);
      String what = " status=" + status + " code=" + code + id;
      if (op == Op.CREATE && (status == 409 || status == 412)) {
        if (ambiguousWrite) {
          return new StoreOutcomeUnknownException(
              "create found the key taken after an attempt with no clear answer; it may be this"
                  + " create's own write (get and compare) "
                  + attempts
                  + what,
              t);
        }
        return new ObjectExistsException("object already exists" + what, t);
      }
      if (ambiguousWrite) {
        return new StoreOutcomeUnknownException(
            "write failed after an attempt with no clear answer " + attempts + what, t);
      }
      if (op.visibleWrite && (ambiguousStatus(status) || "OperationTimedOut".equals(code))) {
        return new StoreOutcomeUnknownException(
            "write failed with a status that does not say whether it happened" + what, t);
      }
      if (status == 404 && !"ContainerNotFound".equals(code)) {
        return new ObjectNotFoundException("object not found" + what, t);
      }
      if (status == 416) {
        return new InvalidRangeException("range outside the object" + what, t);
      }
      if (status == 404) {
        return new StoreUnavailableException("the container does not exist" + what, t);
      }
      if (status == 401 || status == 403) {
        return new StoreUnavailableException(
            "not authorized; check the store's credentials" + what, t);
      }
      if (status == 408 || status == 429 || status >= 500) {
        return new StoreUnavailableException("Azure is unavailable or throttling" + what, t);
      }
      return new StoreUnavailableException("unexpected Azure response" + what, t);
    }
    if (isTransport(t)) {
      String what = " error=" + t.getClass().getSimpleName() + id;
      if (op.visibleWrite && (ambiguousWrite || !nothingSent(t))) {
        return new StoreOutcomeUnknownException(
            "write timed out or lost its connection; it may or may not have happened"
                + (attempts == null ? "" : " " + attempts)
                + what,
            t);
      }
      return new StoreUnavailableException(
          (closed ? "store closed" : "Azure unreachable or timed out") + what, t);
    }
    if (isCredentialFailure(t)) {
      return new StoreUnavailableException(
          "could not get a credential for Azure error=" + t.getClass().getSimpleName() + id, t);
    }
    if (closed) {
      return new StoreUnavailableException("store closed" + id, t);
    }
    return t;
  }

  /** 500 and 504: Azure may have applied the request before failing it. */
  static boolean ambiguousStatus(int status) {
    return status == 500 || status == 504;
  }

  private static String errorCode(HttpResponseException e) {
    if (e instanceof BlobStorageException b && b.getErrorCode() != null) {
      return b.getErrorCode().toString();
    }
    String header = e.getResponse().getHeaderValue("x-ms-error-code");
    return header == null ? "none" : header;
  }

  /** A connection that was never made: the request did not leave this process. */
  private static boolean nothingSent(Throwable t) {
    return find(t, ConnectException.class) != null || find(t, UnknownHostException.class) != null;
  }

  private static boolean isTransport(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IOException
          || c instanceof UncheckedIOException
          || c instanceof TimeoutException
          || c.getClass().getName().startsWith("io.netty.")
          || c.getClass().getName().startsWith("reactor.netty.")) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }

  private static boolean isCredentialFailure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getClass().getName().startsWith("com.azure.core.exception.ClientAuthentication")
          || c.getClass().getName().startsWith("com.azure.identity.")) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    int depth = 0;
    for (Throwable c = t; c != null && depth < 16; c = c.getCause(), depth++) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  private static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException
            || c instanceof ExecutionException
            || c.getClass().getName().startsWith("reactor.core.Exceptions$"))
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
