package dev.loam.client.internal;

import dev.loam.client.LoamClientException;
import dev.loam.client.NotOwnerException;
import dev.loam.client.OutcomeUnknownException;
import dev.loam.client.QuotaExceededException;
import dev.loam.client.RedirectLimitException;
import dev.loam.client.UnavailableException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one API call: picks a node from the {@link NodeDirectory}, follows owner redirects
 * (bounded), and retries on another node within {@code maxAttempts} when that is safe. Whether it
 * is safe is the call's {@link Safety}: a request whose repetition cannot apply it twice (reads,
 * idempotent produce with the same sequence, lease renewals, commits) is retried after any failure;
 * any other only when it certainly never reached a node (the TCP connect failed). A mutating call
 * that may have reached a node and got no answer fails with {@link OutcomeUnknownException}.
 */
public final class Transport {
  private static final Logger LOG = LoggerFactory.getLogger(Transport.class);

  /** Whether sending a request twice can apply it twice. */
  public enum Safety {
    /** Repeating it is harmless: retried after any failure. */
    SAFE,
    /** Repeating it may apply it again (or answer confusingly): retried only if never sent. */
    UNSAFE
  }

  /**
   * One call.
   *
   * @param pathAndQuery starting with {@code /}
   * @param body null for none
   * @param mutating it changes state (a failure after sending is an unknown outcome)
   * @param extraTimeout added to the request timeout (a long-poll's wait)
   * @param followRedirects follow 307 to the owner
   */
  public record Call(
      String method,
      String pathAndQuery,
      byte[] body,
      Safety safety,
      boolean mutating,
      Duration extraTimeout,
      boolean followRedirects) {}

  /** A 2xx answer and the base URL of the node that gave it. */
  public record Answer(int status, HttpHeaders headers, byte[] body, String node) {}

  /** A request that got no HTTP answer from {@code node}. */
  private static final class NoAnswer extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String node;
    final boolean maybeSent;

    NoAnswer(String node, boolean maybeSent, Throwable cause) {
      super(cause.toString(), cause, false, false);
      this.node = node;
      this.maybeSent = maybeSent;
    }
  }

  private final Settings settings;
  private final HttpClient http;
  private final NodeDirectory directory;
  private final Executor executor;

  public Transport(Settings settings, HttpClient http, NodeDirectory directory, Executor executor) {
    this.settings = settings;
    this.http = http;
    this.directory = directory;
    this.executor = executor;
  }

  public NodeDirectory directory() {
    return directory;
  }

  /** Sends {@code c}; the future fails only with a {@link LoamClientException}. */
  public CompletableFuture<Answer> send(Call c) {
    return directory.ready().thenCompose(v -> attempt(c, 1, new HashSet<>(), false));
  }

  private CompletableFuture<Answer> attempt(Call c, int n, Set<String> tried, boolean maybeSent) {
    String base = directory.pick(tried);
    tried.add(base);
    return hop(c, base, base + c.pathAndQuery(), new ArrayList<>())
        .handle(
            (answer, t) -> {
              if (t == null) {
                return CompletableFuture.completedFuture(answer);
              }
              return retryOrFail(c, n, tried, maybeSent, unwrap(t));
            })
        .thenCompose(f -> f);
  }

  private CompletableFuture<Answer> retryOrFail(
      Call c, int n, Set<String> tried, boolean maybeSentBefore, Throwable t) {
    boolean canRetry = n < settings.maxAttempts();
    if (t instanceof NoAnswer na) {
      directory.markFailed(na.node);
      boolean maybeSent = maybeSentBefore || na.maybeSent;
      if (canRetry && (c.safety() == Safety.SAFE || !na.maybeSent)) {
        LOG.debug("no answer, retrying on another node attempt={} node={}", n, na.node, t);
        return later(n, Duration.ZERO, () -> attempt(c, n + 1, tried, maybeSent));
      }
      String what =
          " method=" + c.method() + " path=" + c.pathAndQuery() + " attempts=" + n + " node=";
      if (c.mutating() && maybeSent) {
        return CompletableFuture.failedFuture(
            new OutcomeUnknownException(
                0,
                "no answer after the request was sent; it may or may not have been applied"
                    + what
                    + na.node,
                na.node,
                na.getCause()));
      }
      return CompletableFuture.failedFuture(
          new UnavailableException(
              "connection_failed",
              0,
              "no node answered" + what + na.node + " cause=" + na.getCause(),
              na.node,
              Duration.ZERO,
              na.getCause()));
    }
    if (!(t instanceof LoamClientException e)) {
      return CompletableFuture.failedFuture(
          new LoamClientException("client_error", 0, "unexpected client failure: " + t, null, t));
    }
    boolean transientAnswer =
        (e instanceof UnavailableException && !(e instanceof QuotaExceededException))
            || e instanceof OutcomeUnknownException
            || e instanceof RedirectLimitException;
    if (e.code().equals("shutting_down")) {
      // The node is stopping: later calls should not pick it either.
      e.node().ifPresent(directory::markFailed);
    }
    if (transientAnswer && canRetry && c.safety() == Safety.SAFE) {
      Duration wait =
          e instanceof UnavailableException u
              ? min(u.retryAfter(), settings.maxRetryBackoff())
              : Duration.ZERO;
      LOG.debug("transient answer, retrying attempt={} code={}", n, e.code());
      return later(n, wait, () -> attempt(c, n + 1, tried, maybeSentBefore));
    }
    if (transientAnswer
        && c.mutating()
        && maybeSentBefore
        && !(e instanceof OutcomeUnknownException)) {
      // An earlier attempt may have been applied; this answer only says this one was not.
      return CompletableFuture.failedFuture(
          new OutcomeUnknownException(
              e.status(),
              "an earlier attempt got no answer and the last was refused; the call may or may not"
                  + " have been applied: "
                  + e.getMessage(),
              e.node().orElse(null),
              e));
    }
    return CompletableFuture.failedFuture(e);
  }

  private CompletableFuture<Answer> later(
      int n, Duration atLeast, java.util.function.Supplier<CompletableFuture<Answer>> next) {
    long backoff =
        Math.min(
            settings.retryBackoff().toMillis() << Math.min(n - 1, 20),
            settings.maxRetryBackoff().toMillis());
    long wait = Math.max(backoff, atLeast.toMillis());
    return CompletableFuture.supplyAsync(
            () -> null, CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS, executor))
        .thenCompose(v -> next.get());
  }

  /** Sends to {@code url}; follows a 307 to the owner within the hop limit. */
  private CompletableFuture<Answer> hop(Call c, String base, String url, List<String> hops) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(settings.requestTimeout().plus(c.extraTimeout()));
    if (c.body() != null) {
      b.header("content-type", "application/json");
      b.method(c.method(), HttpRequest.BodyPublishers.ofByteArray(c.body()));
    } else {
      b.method(c.method(), HttpRequest.BodyPublishers.noBody());
    }
    return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofByteArray())
        .handle(
            (resp, t) -> {
              if (t != null) {
                Throwable cause = unwrap(t);
                boolean neverSent =
                    cause instanceof ConnectException
                        || cause instanceof HttpConnectTimeoutException;
                throw new NoAnswer(base, !neverSent, cause);
              }
              return resp;
            })
        .thenCompose(resp -> answer(c, base, url, hops, resp));
  }

  private CompletableFuture<Answer> answer(
      Call c, String base, String url, List<String> hops, HttpResponse<byte[]> resp) {
    int status = resp.statusCode();
    if (status >= 200 && status < 300) {
      return CompletableFuture.completedFuture(
          new Answer(status, resp.headers(), resp.body(), base));
    }
    LoamClientException e = Problems.toException(status, resp.headers(), resp.body(), base);
    if (status == 307 && e instanceof NotOwnerException && c.followRedirects()) {
      String location = resp.headers().firstValue("Location").orElse("");
      List<String> visited = new ArrayList<>(hops);
      visited.add(url);
      if (location.isEmpty()) {
        return CompletableFuture.failedFuture(e);
      }
      URI target = URI.create(url).resolve(location);
      String next = target.toString();
      boolean loop = visited.contains(next);
      if (loop || hops.size() >= settings.maxRedirects()) {
        visited.add(next);
        return CompletableFuture.failedFuture(
            new RedirectLimitException(
                (loop ? "owner redirects loop" : "owner redirects exceed the limit")
                    + " maxRedirects="
                    + settings.maxRedirects()
                    + " hops="
                    + visited,
                visited));
      }
      String nextBase = target.getScheme() + "://" + target.getRawAuthority();
      return hop(c, nextBase, next, visited);
    }
    return CompletableFuture.failedFuture(e);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
