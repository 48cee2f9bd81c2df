package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The chaos tests' HTTP calls to the nodes of a {@link ProcessCluster}: one request with a timeout,
 * and whether a failed call may have reached the node (which decides whether its outcome is
 * unknown).
 */
final class ChaosHttp {
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** An HTTP answer. */
  record Answer(int status, String body, String location) {}

  /** No answer: {@code notSent} when the connection was never made (nothing reached the node). */
  static final class CallFailed extends Exception {
    final boolean notSent;

    CallFailed(boolean notSent, Throwable cause) {
      super(cause.toString(), cause);
      this.notSent = notSent;
    }
  }

  private final ProcessCluster cluster;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  ChaosHttp(ProcessCluster cluster) {
    this.cluster = cluster;
  }

  Answer call(int node, String method, String pathAndQuery, String body) throws CallFailed {
    return callUrl(cluster.httpUrl(node) + pathAndQuery, method, body);
  }

  /** Follows up to three 307s by hand (an owner-bound request sent to a non-owner). */
  Answer ownerBound(int node, String method, String path, String body) throws CallFailed {
    Answer a = call(node, method, path, body);
    for (int hop = 0; hop < 3 && a.status() == 307 && a.location() != null; hop++) {
      a = callUrl(a.location(), method, body);
    }
    return a;
  }

  private Answer callUrl(String url, String method, String body) throws CallFailed {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_TIMEOUT);
    if (body != null) {
      r.header("content-type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      r.method(method, HttpRequest.BodyPublishers.noBody());
    }
    try {
      HttpResponse<String> resp = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(
          resp.statusCode(), resp.body(), resp.headers().firstValue("location").orElse(null));
    } catch (HttpConnectTimeoutException | ConnectException e) {
      throw new CallFailed(true, e);
    } catch (IOException e) {
      throw new CallFailed(false, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CallFailed(true, e);
    }
  }

  /** Waits up to 30 s until {@code GET path} on {@code node} answers {@code status}. */
  void awaitStatus(int node, String path, int status) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        if (call(node, "GET", path, null).status() == status) {
          return;
        }
      } catch (CallFailed e) {
        // Again.
      }
      assertThat(System.nanoTime())
          .as("GET %s on node %d answers %d", path, node, status)
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }
}
