package dev.loam.storage.azure;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loam.error.LoamException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Error mapping against a local HTTP stub (com.sun.net.httpserver) that answers what Azurite never
 * does: 503 ServerBusy, 500, hung responses, and sequences such as "500, then 409" that show why
 * write failures look at every attempt, not only the last.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AzureErrorMappingIT {
  /** One scripted answer; {@code null} status means: never answer (hang). */
  private record Answer(Integer status, String code) {}

  private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
  private volatile Answer otherwise = new Answer(503, "ServerBusy");
  private final AtomicInteger requests = new AtomicInteger();
  private final CountDownLatch release = new CountDownLatch(1);
  private HttpServer server;
  private ExecutorService serverThreads;
  private ExecutorService callbacks;
  private AzureBlobObjectStore store;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    serverThreads = Executors.newCachedThreadPool();
    server.setExecutor(serverThreads);
    server.createContext("/", this::handle);
    server.start();
    callbacks = Executors.newFixedThreadPool(2);
    store = AzureBlobObjectStore.open(settings(server.getAddress().getPort()), callbacks);
  }

  /**
   * Generous timeouts: the first request of a JVM loads much of the SDK, which on a busy 2-core
   * machine can take seconds. Only the hung-response case uses short ones.
   */
  private static AzureBlobStoreSettings settings(int port) {
    return AzureBlobStoreSettings.of(Azurite.ACCOUNT, "stub")
        .withEndpoint("http://127.0.0.1:" + port + "/" + Azurite.ACCOUNT)
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20))
        .withRetries(2, Duration.ofMillis(10), Duration.ofMillis(20));
  }

  @AfterEach
  void stop() {
    release.countDown();
    store.close();
    server.stop(0);
    serverThreads.shutdownNow();
    callbacks.shutdownNow();
  }

  private void handle(HttpExchange ex) throws IOException {
    requests.incrementAndGet();
    try (InputStream in = ex.getRequestBody()) {
      in.readAllBytes();
    }
    Answer a = script.poll();
    if (a == null) {
      a = otherwise;
    }
    if (a.status() == null) {
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ex.close();
      return;
    }
    ex.getResponseHeaders().add("x-ms-error-code", a.code());
    ex.getResponseHeaders().add("x-ms-request-id", "stub");
    ex.getResponseHeaders().add("Content-Type", "application/xml");
    if (ex.getRequestMethod().equals("HEAD")) {
      ex.sendResponseHeaders(a.status(), -1);
    } else {
      byte[] body =
          ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>"
                  + a.code()
                  + "</Code><Message>stub</Message></Error>")
              .getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(a.status(), body.length);
      ex.getResponseBody().write(body);
    }
    ex.close();
  }

  private static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void throttlingIsUnavailableForReadsAndWritesAfterBoundedRetries() {
    otherwise = new Answer(503, "ServerBusy");
    Throwable create = failure(store.create("k", new byte[] {1}));
    assertThat(create).isInstanceOf(StoreUnavailableException.class);
    assertThat(create.getMessage()).contains("status=503", "ServerBusy", "key=k");
    assertThat(((LoamException) create).isRetriable()).isTrue();
    assertThat(requests.get()).as("maxTries=2").isEqualTo(2);
    assertThat(failure(store.get("k"))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.list("", "", 10))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.delete(List.of("a", "b"))))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void internalErrorIsUnavailableForReadsAndOutcomeUnknownForWrites() {
    otherwise = new Answer(500, "InternalError");
    assertThat(failure(store.get("k"))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.getTail("k", 8))).isInstanceOf(StoreUnavailableException.class);
    assertThat(failure(store.head("k"))).isInstanceOf(StoreUnavailableException.class);
    // Azure documents that a 500 write may have completed.
    assertThat(failure(store.put("k", new byte[] {1})))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(failure(store.create("k", new byte[] {1})))
        .isInstanceOf(StoreOutcomeUnknownException.class);
  }

  @Test
  void aHungResponseIsOutcomeUnknownForWritesAndUnavailableForReads() {
    otherwise = new Answer(null, null);
    AzureBlobStoreSettings quick =
        settings(server.getAddress().getPort())
            .withTimeouts(Duration.ofSeconds(1), Duration.ofMillis(300), Duration.ofSeconds(1));
    try (AzureBlobObjectStore hung = AzureBlobObjectStore.open(quick, callbacks)) {
      Throwable put = failure(hung.put("k", new byte[] {1}));
      assertThat(put).isInstanceOf(StoreOutcomeUnknownException.class);
      assertThat(put.getMessage()).contains("key=k");
      assertThat(failure(hung.create("k", new byte[] {1})))
          .isInstanceOf(StoreOutcomeUnknownException.class);
      assertThat(failure(hung.get("k"))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(hung.get("k", 0, 4))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(hung.head("k"))).isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void aCreateThatFindsTheKeyTakenAfterAnAmbiguousAttemptIsOutcomeUnknown() {
    // The first attempt may have written; the retry's 409 may be this create's own object.
    script.add(new Answer(500, "InternalError"));
    script.add(new Answer(409, "BlobAlreadyExists"));
    Throwable e = failure(store.create("k", new byte[] {1}));
    assertThat(e).isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(e.getMessage()).contains("get and compare", "key=k");
  }

  @Test
  void aCreateThatFindsTheKeyTakenAfterAThrottledAttemptIsExists() {
    // 503 means Azure did not take the request, so the 409 is another writer's object.
    script.add(new Answer(503, "ServerBusy"));
    script.add(new Answer(409, "BlobAlreadyExists"));
    assertThat(failure(store.create("k", new byte[] {1})))
        .isInstanceOf(ObjectExistsException.class);
  }

  @Test
  void statusCodesMapToTheirKinds() {
    script.add(new Answer(409, "BlobAlreadyExists"));
    assertThat(failure(store.create("k", new byte[] {1})))
        .isInstanceOf(ObjectExistsException.class);
    script.add(new Answer(412, "ConditionNotMet"));
    assertThat(failure(store.create("k", new byte[] {1})))
        .isInstanceOf(ObjectExistsException.class);
    script.add(new Answer(404, "BlobNotFound"));
    assertThat(failure(store.get("k"))).isInstanceOf(ObjectNotFoundException.class);
    script.add(new Answer(404, "BlobNotFound"));
    assertThat(store.head("k").join()).isEmpty();
    script.add(new Answer(416, "InvalidRange"));
    assertThat(failure(store.get("k", 10, 1))).isInstanceOf(InvalidRangeException.class);
    script.add(new Answer(404, "ContainerNotFound"));
    Throwable missingContainer = failure(store.get("k"));
    assertThat(missingContainer).isInstanceOf(StoreUnavailableException.class);
    assertThat(missingContainer.getMessage()).contains("container does not exist");
    script.add(new Answer(403, "AuthenticationFailed"));
    Throwable auth = failure(store.put("k", new byte[] {1}));
    assertThat(auth).isInstanceOf(StoreUnavailableException.class);
    assertThat(auth.getMessage()).contains("not authorized").doesNotContain("Eby8vdM02");
  }

  @Test
  void aRefusedConnectionIsUnavailableEvenForWrites() {
    int port = server.getAddress().getPort();
    server.stop(0);
    try (AzureBlobObjectStore dead = AzureBlobObjectStore.open(settings(port), callbacks)) {
      // Nothing was sent, so nothing can have been written.
      assertThat(failure(dead.create("k", new byte[] {1})))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(dead.get("k"))).isInstanceOf(StoreUnavailableException.class);
    }
  }
}
