package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a host application meets first, on a node started as the README starts one (its own threads,
 * its own data directory): creating what exists, messages, and the error messages of refused admin
 * calls.
 */
class HostApiTest {
  @TempDir Path dir;
  LoamNode node;
  Log log;

  @BeforeEach
  void start() {
    node = LoamNode.builder().nodeId("node-1").dataDir(dir).start();
    log = node.log();
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void theReadmeSetUpRunsTwiceOnOneDirectory() throws Exception {
    assertThat(await(log.createNamespaceIfAbsent("shop"))).isTrue();
    StreamDescription first =
        await(log.createStreamIfAbsent("shop", "orders", StreamSpec.standard(3)));
    await(log.append("shop", "orders", List.of(AppendRecord.of("k", "v"))));
    node.close();

    node = LoamNode.builder().nodeId("node-1").dataDir(dir).start();
    log = node.log();
    assertThat(await(log.createNamespaceIfAbsent("shop"))).isFalse();
    StreamDescription again =
        await(log.createStreamIfAbsent("shop", "orders", StreamSpec.standard(3)));
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(again.spec()).isEqualTo(first.spec());
    long records =
        again.partitions().stream()
            .mapToLong(StreamDescription.PartitionBounds::highWatermark)
            .sum();
    assertThat(records).isEqualTo(1);
  }

  @Test
  void ifAbsentStillRefusesWhatIsInvalidOrMissing() {
    assertThat(failure(log.createNamespaceIfAbsent("Bad Name!")).kind()).isEqualTo(Kind.INVALID);
    assertThat(failure(log.createStreamIfAbsent("nowhere", "s", StreamSpec.standard(1))).kind())
        .isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void refusalsNameEachIdentifierOnce() throws Exception {
    await(log.createNamespace("shop"));
    LoamException ns = failure(log.createNamespace("shop"));
    assertThat(ns.kind()).isEqualTo(Kind.CONFLICT);
    assertThat(ns.getMessage()).isEqualTo("namespace exists namespace=shop");

    await(log.createStream("shop", "orders", StreamSpec.standard(1)));
    LoamException s = failure(log.createStream("shop", "orders", StreamSpec.standard(1)));
    assertThat(s.getMessage()).isEqualTo("stream exists namespace=shop stream=orders");

    LoamException missing = failure(log.deleteNamespace("gone"));
    assertThat(missing.getMessage()).isEqualTo("no such namespace namespace=gone");
  }

  @Test
  void streamSpecTakesTheApiDurabilityClass() throws Exception {
    await(log.createNamespace("ns"));
    StreamDescription d =
        await(log.createStream("ns", "s", StreamSpec.standard(1).withClass(Durability.STANDARD)));
    assertThat(d.spec().durabilityClass()).isEqualTo(Durability.STANDARD);
    LoamException q =
        failure(log.createStream("ns", "q", StreamSpec.standard(1).withClass(Durability.QUORUM)));
    assertThat(q.kind()).isEqualTo(Kind.INVALID);
    // One node without a journal port cannot place a journal: refused before anything is created.
    assertThat(q.getMessage()).contains("3 live nodes with a journal port");
    assertThat(failure(log.describeStream("ns", "q")).kind()).isEqualTo(Kind.NOT_FOUND);
    assertThat(Durability.fromWireName("express")).isEqualTo(Durability.EXPRESS);
    assertThatThrownBy(() -> Durability.fromWireName("gold"))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("class=gold");
  }

  @Test
  void joinInsideACallbackFailsAtOnceAndCloseIsQuick() throws Exception {
    await(log.createNamespace("ns"));
    await(log.createStream("ns", "s", StreamSpec.standard(1)));
    CompletableFuture<Throwable> seen = new CompletableFuture<>();
    CompletableFuture<String> thread = new CompletableFuture<>();
    log.append("ns", "s", List.of(AppendRecord.of("a", "1")))
        .thenAccept(
            ack -> {
              thread.complete(Thread.currentThread().getName());
              try {
                log.append("ns", "s", List.of(AppendRecord.of("b", "2"))).join();
                seen.complete(null);
              } catch (Throwable t) {
                seen.complete(t);
              }
            });
    Throwable t = seen.get(10, TimeUnit.SECONDS);
    assertThat(t)
        .isInstanceOf(BlockingOnLoamThreadException.class)
        .hasMessageContaining("join()")
        .hasMessageContaining("thenCompose");
    assertThat(((LoamException) t).kind()).isEqualTo(Kind.INVALID);
    assertThat(thread.get(1, TimeUnit.SECONDS)).startsWith("loam-node-1-callbacks");

    // The node is not stuck: composing works from the same kind of callback, and close is prompt.
    AppendResult composed =
        log.append("ns", "s", List.of(AppendRecord.of("c", "3")))
            .thenCompose(a -> log.append("ns", "s", List.of(AppendRecord.of("d", "4"))))
            .get(10, TimeUnit.SECONDS);
    assertThat(composed.positions()).hasSize(1);
    long start = System.nanoTime();
    node.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aDoneFutureMayBeJoinedInsideACallback() throws Exception {
    CompletableFuture<List<String>> names = new CompletableFuture<>();
    CompletableFuture<List<String>> done = log.listNamespaces();
    log.createNamespace("ns").thenRun(() -> names.complete(done.join()));
    assertThat(names.get(10, TimeUnit.SECONDS)).contains("default");
  }

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  static LoamException failure(CompletableFuture<?> f) {
    try {
      f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LoamException.class);
      return (LoamException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError("unexpected " + e, e);
    }
    throw new AssertionError("expected the future to fail");
  }

  static List<String> values(List<FetchedRecord> records) {
    List<String> out = new ArrayList<>();
    records.forEach(r -> out.add(r.valueAsString()));
    return out;
  }
}
