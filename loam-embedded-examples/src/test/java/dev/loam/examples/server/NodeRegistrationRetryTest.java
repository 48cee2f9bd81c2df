package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.LoamNode;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.testing.ForwardingMetastore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam node} retries a registration the metastore answers "unavailable" or "outcome unknown"
 * (found by the chaos test: a node restarted during a leader change exited), and only those.
 */
class NodeRegistrationRetryTest {
  @TempDir Path dir;
  private ExecutorService exec;
  private EmbeddedMetastore meta;
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

  @BeforeEach
  void open() {
    exec = Executors.newFixedThreadPool(2);
    meta =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            exec);
  }

  @AfterEach
  void close() {
    meta.close();
    exec.shutdownNow();
  }

  /** Fails the next RegisterNode proposals as scripted; everything else passes through. */
  private static final class RegistrationFaults extends ForwardingMetastore {
    enum Fault {
      UNAVAILABLE,
      APPLIED_ANSWER_LOST,
      FENCED
    }

    private final Deque<Fault> script;

    RegistrationFaults(Metastore delegate, Deque<Fault> script) {
      super(delegate);
      this.script = script;
    }

    @Override
    public CompletableFuture<Applied> propose(Command command) {
      Fault f;
      synchronized (script) {
        f = command instanceof RegisterNode ? script.poll() : null;
      }
      if (f == null) {
        return delegate.propose(command);
      }
      return switch (f) {
        case UNAVAILABLE ->
            CompletableFuture.failedFuture(
                new LoamException(Kind.UNAVAILABLE, "injected: no leader"));
        case FENCED ->
            CompletableFuture.failedFuture(new LoamException(Kind.FENCED, "injected: fenced"));
        case APPLIED_ANSWER_LOST ->
            delegate
                .propose(command)
                .thenApply(
                    a -> {
                      throw new LoamException(Kind.OUTCOME_UNKNOWN, "injected: answer lost");
                    });
      };
    }
  }

  private LoamNode.Builder builder(RegistrationFaults.Fault... faults) {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir.resolve("n1"))
        .metastore(new RegistrationFaults(meta, new ArrayDeque<>(java.util.List.of(faults))));
  }

  @Test
  void unavailableAndLostAnswersAreRetriedWithAHigherEpoch() {
    long started = System.nanoTime();
    try (LoamNode node =
        LoamNodeMain.startNodeRetrying(
            builder(
                RegistrationFaults.Fault.APPLIED_ANSWER_LOST, RegistrationFaults.Fault.UNAVAILABLE),
            "n1",
            started,
            Duration.ofSeconds(30),
            out)) {
      String log = printed.toString(StandardCharsets.UTF_8);
      assertThat(log.split("registration not confirmed", -1)).hasSize(3);
      assertThat(log).contains("injected: answer lost").contains("injected: no leader");
      // The lost registration landed; the node runs under a later epoch, the one registered now.
      NodeInfo registered = meta.read(r -> r.node("n1")).orElseThrow();
      assertThat(registered.epoch()).isEqualTo(node.epoch());
      assertThat(node.log().listNodes(java.util.Optional.empty()).join()).isNotEmpty();
    }
  }

  @Test
  void aFencedRegistrationIsNotRetried() {
    assertThatThrownBy(
            () ->
                LoamNodeMain.startNodeRetrying(
                    builder(RegistrationFaults.Fault.FENCED),
                    "n1",
                    System.nanoTime(),
                    Duration.ofSeconds(30),
                    out))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("could not register node=n1")
        .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.FENCED));
    assertThat(printed.toString(StandardCharsets.UTF_8)).doesNotContain("retrying");
  }

  @Test
  void retriesEndAtTheStartTimeout() {
    RegistrationFaults.Fault[] always = new RegistrationFaults.Fault[50];
    java.util.Arrays.fill(always, RegistrationFaults.Fault.UNAVAILABLE);
    long started = System.nanoTime();
    assertThatThrownBy(
            () ->
                LoamNodeMain.startNodeRetrying(
                    builder(always), "n1", started, Duration.ofSeconds(2), out))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("could not register node=n1");
    long tookMillis = (System.nanoTime() - started) / 1_000_000;
    assertThat(tookMillis).isBetween(2_000L, 20_000L);
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("retrying");
  }
}
