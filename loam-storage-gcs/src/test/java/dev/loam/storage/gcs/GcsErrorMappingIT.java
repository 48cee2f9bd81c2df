package dev.loam.storage.gcs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.storage.gcs.GcsTestServer.FaultKind;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How GCS failures reach callers: the test server injects 5xx/429 answers and hung responses, and
 * each case checks the failure kind (docs/reference/storage-gcs.md, "Error mapping") and what
 * really happened to the object.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GcsErrorMappingIT {
  GcsTestServer server;
  String bucket;
  ObjectStore store;

  @BeforeEach
  void open() {
    server = TestServers.server();
    bucket = TestServers.freshBucket();
    // Two attempts, 500 ms per attempt: a hang costs about a second.
    store =
        GcsObjectStore.open(
            TestServers.settings(bucket, "pre/")
                .withTimeouts(
                    Duration.ofSeconds(2), Duration.ofMillis(500), 2, Duration.ofSeconds(10)),
            TestServers.context());
  }

  @AfterEach
  void close() {
    server.clearFaults();
    server.releaseHangs();
    store.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected the future to fail");
  }

  @Test
  void a503BeyondTheRetryBudgetIsUnavailableForReads() throws Exception {
    await(store.create("k", b("v")));
    server.failNext(2, 503);
    Throwable t = failure(store.get("k"));
    assertThat(t).isInstanceOf(StoreUnavailableException.class);
    assertThat(((LoamException) t).kind()).isEqualTo(LoamException.Kind.UNAVAILABLE);
    assertThat(t.getMessage()).contains("503").contains("key=k");
    server.failNext(2, 503);
    assertThat(failure(store.head("k"))).isInstanceOf(StoreUnavailableException.class);
    server.failNext(2, 429);
    assertThat(failure(store.list("", "", 10))).isInstanceOf(StoreUnavailableException.class);
    assertThat(await(store.get("k"))).isEqualTo(b("v"));
  }

  @Test
  void oneTransientFailureIsRetriedByTheClientForIdempotentCalls() throws Exception {
    server.failNext(1, 503);
    await(store.create("k", b("v"))); // ifGenerationMatch=0 makes the upload idempotent
    server.failNext(1, 500);
    assertThat(await(store.get("k"))).isEqualTo(b("v"));
    long before = server.requestCount();
    server.failNext(1, 503);
    assertThat(await(store.list("", "", 10)).objects()).hasSize(1);
    assertThat(server.requestCount() - before).isEqualTo(2);
  }

  @Test
  void aPlainOverwriteIsNotRetriedAndA500LeavesTheObjectAsItWas() throws Exception {
    await(store.put("k", b("old")));
    server.failNext(1, 500);
    assertThat(failure(store.put("k", b("new")))).isInstanceOf(StoreUnavailableException.class);
    assertThat(await(store.get("k"))).isEqualTo(b("old"));
  }

  @Test
  void aPutWhoseResponseHangsHasAnUnknownOutcome() throws Exception {
    server.hangNext(1, true); // applied, then no answer
    Throwable t = failure(store.put("k", b("maybe")));
    assertThat(t).isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(((LoamException) t).kind()).isEqualTo(LoamException.Kind.OUTCOME_UNKNOWN);
    assertThat(t.getMessage()).contains("key=k");
    // It did happen: exactly why "unknown" is the honest answer.
    assertThat(await(store.get("k"))).isEqualTo(b("maybe"));
  }

  @Test
  void aCreateThatTimesOutOnEveryAttemptHasAnUnknownOutcomeAndCanBeRetried() throws Exception {
    server.hangNext(2, false); // both attempts hang before acting
    assertThat(failure(store.create("k", b("v")))).isInstanceOf(StoreOutcomeUnknownException.class);
    server.releaseHangs();
    // The SPI recipe: retry the create; it either writes or fails with exists.
    await(store.create("k", b("v")));
    assertThat(await(store.get("k"))).isEqualTo(b("v"));
  }

  @Test
  void aCreateWhoseFirstAnswerWasLostEndsInExistsAndTheBytesCompareEqual() throws Exception {
    // Attempt 1 is applied but its answer lost; the client's retry then meets its own object.
    server.hangNext(1, true);
    assertThat(failure(store.create("k", b("mine")))).isInstanceOf(ObjectExistsException.class);
    assertThat(await(store.get("k"))).isEqualTo(b("mine"));
  }

  @Test
  void aReadThatHangsIsUnavailable() throws Exception {
    await(store.create("k", b("v")));
    server.hangNext(2, false);
    assertThat(failure(store.get("k", 0, 1))).isInstanceOf(StoreUnavailableException.class);
    server.hangNext(2, false);
    assertThat(failure(store.head("k"))).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void aFailedPartOfABatchDeleteIsAPerKeyValue() throws Exception {
    for (String k : List.of("a", "b", "c")) {
      await(store.create(k, b(k)));
    }
    server.faultNext(1, FaultKind.STATUS, 503, line -> line.endsWith("/o/pre%2Fb"));
    List<DeleteFailure> failures = await(store.delete(List.of("a", "b", "c")));
    assertThat(failures).hasSize(1);
    assertThat(failures.get(0).key()).isEqualTo("b");
    assertThat(failures.get(0).error()).isInstanceOf(StoreUnavailableException.class);
    assertThat(await(store.head("a"))).isEmpty();
    assertThat(await(store.head("b"))).isPresent();
    assertThat(await(store.head("c"))).isEmpty();
  }

  @Test
  void aFailedBatchRequestFailsTheWholeDelete() throws Exception {
    await(store.create("a", b("a")));
    server.failNext(1, 503);
    assertThat(failure(store.delete(List.of("a")))).isInstanceOf(StoreUnavailableException.class);
    assertThat(await(store.head("a"))).isPresent();
  }

  @Test
  void aMissingBucketIsUnavailableForWritesAndNotFoundForReads() throws Exception {
    try (ObjectStore s =
        GcsObjectStore.open(TestServers.settings("no-such-bucket", ""), TestServers.context())) {
      assertThat(failure(s.put("k", b("v"))))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("bucket");
      assertThat(failure(s.get("k"))).isInstanceOf(ObjectNotFoundException.class);
      assertThat(failure(s.list("", "", 1))).isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void aRefusedConnectionIsUnavailableEvenForWrites() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    GcsStoreSettings settings =
        GcsStoreSettings.defaults("b-refused", "")
            .withHost("http://127.0.0.1:" + port)
            .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, Duration.ofSeconds(5));
    try (ObjectStore s = GcsObjectStore.open(settings, TestServers.context())) {
      // Nothing was sent, so nothing can have happened.
      assertThat(failure(s.create("k", b("v")))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.put("k", b("v")))).isInstanceOf(StoreUnavailableException.class);
      assertThat(failure(s.get("k"))).isInstanceOf(StoreUnavailableException.class);
    }
  }
}
