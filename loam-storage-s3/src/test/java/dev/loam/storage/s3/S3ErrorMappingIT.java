package dev.loam.storage.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * The error mapping (S3Errors) against a local HTTP stub that answers what real S3 answers under
 * throttling, faults and hangs, which no emulator produces on demand. Also checks that SDK retries
 * are bounded by {@code maxAttempts}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class S3ErrorMappingIT {
  /** One scripted answer; {@code status < 0} means: read the request, then never answer. */
  record Reply(int status, String body) {}

  private HttpServer server;
  private ExecutorService serverThreads;
  private ExecutorService completions;
  private final ConcurrentLinkedQueue<Reply> script = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<HttpExchange> hung = new ConcurrentLinkedQueue<>();
  private final AtomicInteger requests = new AtomicInteger();
  private volatile Reply fallback = new Reply(500, error("InternalError"));

  @BeforeEach
  void startStub() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    serverThreads = Executors.newFixedThreadPool(4);
    server.setExecutor(serverThreads);
    server.createContext(
        "/",
        ex -> {
          requests.incrementAndGet();
          ex.getRequestBody().readAllBytes();
          Reply r = Optional.ofNullable(script.poll()).orElse(fallback);
          if (r.status() < 0) {
            hung.add(ex);
            return;
          }
          byte[] body = r.body().getBytes(UTF_8);
          boolean noBody = ex.getRequestMethod().equals("HEAD") || body.length == 0;
          ex.getResponseHeaders().add("Content-Type", "application/xml");
          ex.sendResponseHeaders(r.status(), noBody ? -1 : body.length);
          if (!noBody) {
            ex.getResponseBody().write(body);
          }
          ex.close();
        });
    server.start();
    completions = Executors.newFixedThreadPool(2);
  }

  @AfterEach
  void stopStub() {
    hung.forEach(HttpExchange::close);
    server.stop(0);
    serverThreads.shutdownNow();
    completions.shutdownNow();
  }

  /**
   * A store whose attempts wait long enough that a loaded machine never times out a request the
   * stub answers (a timed-out attempt would not reach the stub and would skew request counts).
   */
  private S3ObjectStore store(int maxAttempts) {
    return store(maxAttempts, Duration.ofSeconds(10), Duration.ofSeconds(30));
  }

  /**
   * A store for scripts with hung answers: short attempts, so a hang costs little time, yet long
   * enough that a loaded build machine answers the scripted replies in time (at 1.5 s a clean build
   * once saw the stub serve a retry before the attempt it timed out, so the retry got the hang).
   */
  private S3ObjectStore storeForHangs(int maxAttempts) {
    return store(maxAttempts, Duration.ofSeconds(3), Duration.ofSeconds(20));
  }

  private S3ObjectStore store(int maxAttempts, Duration attempt, Duration call) {
    S3StoreSettings s =
        S3StoreSettings.defaults("stub-bucket")
            .withEndpoint(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "us-east-1", true)
            .withCredentials("id", "secret")
            .withRetries(maxAttempts)
            .withTimeouts(Duration.ofSeconds(2), attempt, call);
    return new S3ObjectStore(s, completions);
  }

  static String error(String code) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
        + code
        + "</Code><Message>scripted</Message><RequestId>r1</RequestId></Error>";
  }

  static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      return c instanceof CompletionException && c.getCause() != null ? c.getCause() : c;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("expected a failed future");
  }

  @Test
  void slowDownIsUnavailableAfterExactlyMaxAttempts() {
    fallback = new Reply(503, error("SlowDown"));
    try (S3ObjectStore s = store(3)) {
      Throwable put = failure(s.put("k", new byte[] {1}));
      assertThat(put).isInstanceOf(StoreUnavailableException.class);
      assertThat(put.getMessage()).contains("503", "SlowDown", "key=k");
      assertThat(requests.get()).isEqualTo(3);
      requests.set(0);
      assertThat(failure(s.get("k"))).isInstanceOf(StoreUnavailableException.class);
      assertThat(requests.get()).isEqualTo(3);
    }
  }

  @Test
  void internalErrorIsUnavailableForReadsAndWrites() {
    try (S3ObjectStore s = store(1)) {
      assertThat(failure(s.create("k", new byte[] {1})))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.put("k", new byte[] {1}))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.get("k", 0, 10))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.head("k"))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.list("", "", 10))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.delete(List.of("k")))).isInstanceOf(StoreUnavailableException.class);
      assertThat(requests.get()).isEqualTo(6);
    }
  }

  @Test
  void aHungWriteIsOutcomeUnknownAndAHungReadIsUnavailable() {
    fallback = new Reply(-1, "");
    try (S3ObjectStore s = storeForHangs(1)) {
      assertThat(failure(s.put("k", new byte[] {1})))
          .isInstanceOf(StoreOutcomeUnknownException.class)
          .hasMessageContaining("key=k");
      assertThat(failure(s.create("k", new byte[] {1})))
          .isInstanceOf(StoreOutcomeUnknownException.class);
      assertThat(failure(s.get("k"))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.getTail("k", 4))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.head("k"))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.delete(List.of("k")))).isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void preconditionFailedIsExistsUnlessAnEarlierAttemptGotNoAnswer() {
    try (S3ObjectStore s = storeForHangs(2)) {
      script.add(new Reply(412, error("PreconditionFailed")));
      assertThat(failure(s.create("k", bytes("mine")))).isInstanceOf(ObjectExistsException.class);
      // A 500 is an answer: that attempt changed nothing, so the retry's 412 is someone else's.
      script.add(new Reply(500, error("InternalError")));
      script.add(new Reply(412, error("PreconditionFailed")));
      assertThat(failure(s.create("k", bytes("mine")))).isInstanceOf(ObjectExistsException.class);
      // No answer to attempt 1, 412 on attempt 2: the store reads the object to decide.
      script.add(new Reply(-1, ""));
      script.add(new Reply(412, error("PreconditionFailed")));
      script.add(new Reply(200, "theirs"));
      assertThat(failure(s.create("k", bytes("mine")))).isInstanceOf(ObjectExistsException.class);
      script.add(new Reply(-1, ""));
      script.add(new Reply(412, error("PreconditionFailed")));
      script.add(new Reply(200, "mine"));
      s.create("k", bytes("mine")).join(); // our own first attempt wrote it
      script.add(new Reply(-1, ""));
      script.add(new Reply(412, error("PreconditionFailed")));
      script.add(new Reply(500, error("InternalError")));
      script.add(new Reply(500, error("InternalError")));
      assertThat(failure(s.create("k", bytes("mine"))))
          .isInstanceOf(StoreOutcomeUnknownException.class)
          .hasMessageContaining("no answer");
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void conditionalConflictIsUnavailableNotFoundAndRangeAreMapped() {
    try (S3ObjectStore s = store(1)) {
      script.add(new Reply(409, error("ConditionalRequestConflict")));
      assertThat(failure(s.create("k", new byte[] {1})))
          .isInstanceOf(StoreUnavailableException.class);
      script.add(new Reply(404, error("NoSuchKey")));
      assertThat(failure(s.get("k"))).isInstanceOf(ObjectNotFoundException.class);
      script.add(new Reply(404, ""));
      assertThat(s.head("k").join()).isEmpty();
      script.add(new Reply(416, error("InvalidRange")));
      assertThat(failure(s.get("k", 5, 1))).isInstanceOf(InvalidRangeException.class);
      script.add(new Reply(404, error("NoSuchBucket")));
      assertThat(failure(s.get("k"))).isInstanceOf(StoreUnavailableException.class);
      script.add(new Reply(403, error("AccessDenied")));
      assertThat(failure(s.put("k", new byte[] {1})))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("AccessDenied");
    }
  }

  @Test
  void perKeyDeleteErrorsAreValuesAndNoSuchKeyCountsAsDeleted() {
    script.add(
        new Reply(
            200,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                + "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<Error><Key>k1</Key><Code>NoSuchKey</Code><Message>gone</Message></Error>"
                + "<Error><Key>k2</Key><Code>InternalError</Code><Message>boom</Message></Error>"
                + "</DeleteResult>"));
    try (S3ObjectStore s = store(1)) {
      List<DeleteFailure> failures = s.delete(List.of("k1", "k2", "k3", "bad//key")).join();
      assertThat(failures)
          .extracting(DeleteFailure::key)
          .containsExactlyInAnyOrder("bad//key", "k2");
      assertThat(
              failures.stream().filter(f -> f.key().equals("k2")).findFirst().orElseThrow().error())
          .isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void aRefusedConnectionIsUnavailableEvenForWrites() throws IOException {
    int port = Emulator.freePort(); // nothing listens there
    S3StoreSettings s =
        S3StoreSettings.defaults("stub-bucket")
            .withEndpoint(URI.create("http://127.0.0.1:" + port), "us-east-1", true)
            .withCredentials("id", "secret")
            .withRetries(2);
    try (S3ObjectStore store = new S3ObjectStore(s, completions)) {
      assertThat(failure(store.create("k", new byte[] {1})))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(store.put("k", new byte[] {1})))
          .isInstanceOf(StoreUnavailableException.class);
    }
  }
}
