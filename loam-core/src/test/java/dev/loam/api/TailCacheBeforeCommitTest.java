package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.Applied;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.testing.ForwardingMetastore;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetch woken by a commit is served from the tail cache even when it runs before the writer has
 * heard the commit's answer (the metastore applies, and wakes long-polls, first). Before the fix
 * the batches entered the cache only after the answer, so such a fetch GOT the object it had just
 * written: at 5000 records/s with a 5 ms flush most consumer reads went to the store.
 */
class TailCacheBeforeCommitTest {
  @TempDir Path dir;

  /** Forwards everything; holds back the answers of CommitWal proposals until released. */
  static final class HeldAnswers extends ForwardingMetastore {
    final List<Runnable> held = new CopyOnWriteArrayList<>();

    HeldAnswers(Metastore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Applied> propose(Command command) {
      CompletableFuture<Applied> applied = delegate.propose(command);
      if (!(command instanceof CommitWal) && !(command instanceof CommitWalGroup)) {
        return applied;
      }
      CompletableFuture<Applied> answer = new CompletableFuture<>();
      held.add(
          () ->
              applied.whenComplete(
                  (a, e) -> {
                    if (e != null) {
                      answer.completeExceptionally(e);
                    } else {
                      answer.complete(a);
                    }
                  }));
      return answer;
    }

    void release() {
      held.forEach(Runnable::run);
      held.clear();
    }
  }

  @Test
  void aFetchWokenByTheCommitIsServedFromTheTailCache() throws Exception {
    try (TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      HeldAnswers meta = new HeldAnswers(cluster.embeddedMeta);
      LoamNode n = cluster.start("n1", TestCluster.FAST, cluster.memoryStore, meta);
      n.log().createNamespace("ns").join();
      n.log().createStream("ns", "s", StreamSpec.standard(1)).join();
      CompletableFuture<FetchResult> poll =
          n.log().fetch("ns", "s", 0, 0, 1 << 20, Duration.ofSeconds(20));
      CompletableFuture<AppendResult> append =
          n.log().append("ns", "s", List.of(AppendRecord.of("k", "v")));

      FetchResult fetched = poll.get(20, TimeUnit.SECONDS);
      assertThat(fetched.records()).hasSize(1);
      assertThat(new String(fetched.records().get(0).value(), StandardCharsets.UTF_8))
          .isEqualTo("v");
      assertThat(append).as("the writer has not heard the answer yet").isNotDone();
      assertThat(n.readStats().objectGets()).as("no GET of the object just written").isZero();
      assertThat(n.readStats().tailHits()).isPositive();

      meta.release();
      assertThat(append.get(20, TimeUnit.SECONDS).positions()).hasSize(1);
    }
  }
}
