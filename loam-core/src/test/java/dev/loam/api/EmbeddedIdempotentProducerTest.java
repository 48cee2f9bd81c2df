package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link IdempotentProducer} on a real embedded node: numbering, order, resends, breaking. */
class EmbeddedIdempotentProducerTest {
  @TempDir Path dir;
  LoamNode node;
  Log log;

  @BeforeEach
  void start() throws Exception {
    node =
        LoamNode.builder()
            .nodeId("node-1")
            .dataDir(dir)
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
            .start();
    log = node.log();
    log.createNamespace("ns").get(10, TimeUnit.SECONDS);
    log.createStream("ns", "s", StreamSpec.standard(2)).get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void numbersEachPartitionsRecordsSoThatTheSequencerRecognisesARetry() throws Exception {
    IdempotentProducer producer = log.idempotentProducer();
    assertThat(producer.producerId()).isEmpty();
    AppendResult a = await(producer.append("ns", "s", 0, records("a1", "a2")));
    AppendResult b = await(producer.append("ns", "s", 0, records("b1")));
    AppendResult other = await(producer.append("ns", "s", 1, records("c1")));
    assertThat(offsets(a)).containsExactly(0L, 1L);
    assertThat(offsets(b)).containsExactly(2L);
    assertThat(other.positions().get(0).partition()).isEqualTo(1);
    long pid = producer.producerId().orElseThrow();

    // The first append again, by hand with the identity the producer gave it: a duplicate.
    AppendResult retry =
        await(
            log.append(
                "ns",
                "s",
                records("a1", "a2").stream().map(r -> r.toPartition(0)).toList(),
                new ProducerIdentity(pid, (short) 0, 0)));
    assertThat(retry.duplicate()).isTrue();
    assertThat(offsets(retry)).containsExactly(0L, 1L);
    // Partition 0's next sequence is 3 (two records, then one), partition 1's is 1.
    AppendResult next =
        await(
            log.append(
                "ns",
                "s",
                List.of(AppendRecord.of("k", "d1").toPartition(0)),
                new ProducerIdentity(pid, (short) 0, 3)));
    assertThat(next.duplicate()).isFalse();
    assertThat(offsets(next)).containsExactly(3L);
  }

  @Test
  void appendsSentWithoutWaitingLandInCallOrder() throws Exception {
    IdempotentProducer producer = log.idempotentProducer();
    List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sent.add(producer.append("ns", "s", 1, records("r" + i)));
    }
    for (int i = 0; i < 50; i++) {
      assertThat(offsets(await(sent.get(i)))).containsExactly((long) i);
    }
    FetchResult page = await(log.fetch("ns", "s", 1, 0, 1 << 20, Duration.ZERO));
    assertThat(page.records()).hasSize(50);
    assertThat(page.records().get(49).valueAsString()).isEqualTo("r49");
  }

  @Test
  void aRecordForAnotherPartitionIsRefusedInvalid() {
    IdempotentProducer producer = log.idempotentProducer();
    LoamException e =
        failure(producer.append("ns", "s", 0, List.of(AppendRecord.of("k", "v").toPartition(1))));
    assertThat(e.kind()).isEqualTo(Kind.INVALID);
    assertThat(e.getMessage()).contains("records[0].partition=1", "partition=0");
    assertThat(failure(producer.append("ns", "s", 0, List.of())).kind()).isEqualTo(Kind.INVALID);
  }

  @Test
  void aLostAnswerIsResentWithTheSameIdentityAndAnsweredWithTheFirstOffsets() throws Exception {
    AtomicInteger lose = new AtomicInteger(1);
    Log lossy = losingAnswers(log, lose);
    IdempotentProducer producer = lossy.idempotentProducer();
    AppendResult first = await(producer.append("ns", "s", 0, records("x")));
    assertThat(first.duplicate()).isTrue();
    assertThat(offsets(first)).containsExactly(0L);
    AppendResult second = await(producer.append("ns", "s", 0, records("y")));
    assertThat(offsets(second)).containsExactly(1L);
    FetchResult page = await(log.fetch("ns", "s", 0, 0, 1 << 20, Duration.ZERO));
    assertThat(page.records()).extracting(FetchedRecord::valueAsString).containsExactly("x", "y");
  }

  @Test
  void anOutcomeStillUnknownAfterTheResendsBreaksThePartitionOnly() throws Exception {
    AtomicInteger lose = new AtomicInteger(IdempotentProducer.UNKNOWN_RETRIES + 1);
    Log lossy = losingAnswers(log, lose);
    IdempotentProducer producer = lossy.idempotentProducer();
    assertThat(failure(producer.append("ns", "s", 0, records("x"))))
        .isInstanceOf(CommitUnknownException.class);
    LoamException broken = failure(producer.append("ns", "s", 0, records("y")));
    assertThat(broken).isInstanceOf(ProducerBrokenException.class);
    assertThat(broken.kind()).isEqualTo(Kind.FENCED);
    assertThat(broken.getMessage()).contains("stream=ns/s", "partition=0", "take a new producer");
    // The other partition is unaffected.
    assertThat(offsets(await(producer.append("ns", "s", 1, records("z"))))).containsExactly(0L);
  }

  /**
   * {@code log} whose idempotent appends, while {@code lose} is positive, really append but then
   * report their answer lost ({@link CommitUnknownException}), as a commit timeout does.
   */
  private static Log losingAnswers(Log log, AtomicInteger lose) {
    InvocationHandler h =
        (proxy, m, args) -> {
          if (m.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, m, args);
          }
          Object r;
          try {
            r = m.invoke(log, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (m.getName().equals("append") && args.length == 4 && lose.getAndDecrement() > 0) {
            return ((CompletableFuture<?>) r)
                .thenCompose(
                    x ->
                        CompletableFuture.failedFuture(
                            new CommitUnknownException("answer lost (test)", null)));
          }
          return r;
        };
    return (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class}, h);
  }

  private static List<AppendRecord> records(String... values) {
    List<AppendRecord> out = new ArrayList<>();
    for (String v : values) {
      out.add(AppendRecord.of("k", v));
    }
    return out;
  }

  private static List<Long> offsets(AppendResult r) {
    return r.positions().stream().map(AppendResult.RecordPosition::offset).toList();
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
}
