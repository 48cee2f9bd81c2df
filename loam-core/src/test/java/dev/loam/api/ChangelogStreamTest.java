package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Log#createChangelog} end to end on one embedded node (docs/design/changelog.md): the owner
 * of the compacted source runs the worker by itself, the changelog holds the change records with
 * row kinds and before-images, and after a restart it continues without a gap or a double.
 */
class ChangelogStreamTest {
  @TempDir Path dir;

  private LoamNode open() {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir)
        .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
        .start();
  }

  private static String kind(FetchedRecord r) {
    for (Header h : r.headers()) {
      if (h.key().equals("loam.row_kind")) {
        return new String(h.value(), StandardCharsets.US_ASCII);
      }
    }
    return "?";
  }

  /** Waits (long-poll, no sleep) until partition 0 of the changelog holds {@code n} records. */
  private static List<String> awaitChanges(Log log, int n) throws Exception {
    List<String> out = new ArrayList<>();
    long next = 0;
    for (int i = 0; i < 200 && out.size() < n; i++) {
      FetchResult r = await(log.fetch("ns", "x", 0, next, 1 << 20, Duration.ofMillis(200)));
      for (FetchedRecord rec : r.records()) {
        out.add(kind(rec) + " " + rec.keyAsString() + "=" + rec.valueAsString());
      }
      next = r.nextOffset();
    }
    return out;
  }

  @Test
  void theOwnerRunsTheWorkerAndARestartNeitherLosesNorDoubles() throws Exception {
    try (LoamNode node = open()) {
      Log log = node.log();
      await(log.createNamespace("ns"));
      await(log.createStream("ns", "s", new StreamSpec(1, Durability.STANDARD, -1, -1, true)));
      StreamDescription x = await(log.createChangelog("ns", "x", "s", ChangelogMode.FULL));
      assertThat(x.spec().partitions()).isEqualTo(1);
      assertThat(x.spec().compacted()).isFalse();
      // Idempotent: a second call confirms the link.
      assertThat(await(log.createChangelog("ns", "x", "s", ChangelogMode.FULL)).id())
          .isEqualTo(x.id());
      await(
          log.append(
              "ns",
              "s",
              List.of(
                  AppendRecord.of("a", "1").toPartition(0),
                  AppendRecord.of("b", "1").toPartition(0),
                  AppendRecord.of("a", "2").toPartition(0),
                  AppendRecord.of("b", null).toPartition(0))));
      assertThat(awaitChanges(log, 5))
          .containsExactly("+I a=1", "+I b=1", "-U a=1", "+U a=2", "-D b=1");
    }
    try (LoamNode again = open()) {
      Log log = again.log();
      await(log.append("ns", "s", List.of(AppendRecord.of("a", "3").toPartition(0))));
      assertThat(awaitChanges(log, 7))
          .containsExactly("+I a=1", "+I b=1", "-U a=1", "+U a=2", "-D b=1", "-U a=2", "+U a=3");
      // Nothing more arrives: the restart re-ran from sourceUpto and appended only the new change.
      FetchResult tail = await(log.fetch("ns", "x", 0, 7, 1 << 20, Duration.ofMillis(300)));
      assertThat(tail.records()).isEmpty();
    }
  }

  @Test
  void onlyACompactedStreamHasAChangelog() throws Exception {
    try (LoamNode node = open()) {
      Log log = node.log();
      await(log.createNamespace("ns"));
      await(log.createStream("ns", "plain", StreamSpec.standard(1)));
      var e = failure(log.createChangelog("ns", "x", "plain", ChangelogMode.UPSERT));
      assertThat(e.kind()).isEqualTo(Kind.INVALID);
      assertThat(e.getMessage()).contains("compacted", "stream=ns/plain");
      assertThat(failure(log.createChangelog("ns", "x", "absent", ChangelogMode.UPSERT)).kind())
          .isEqualTo(Kind.NOT_FOUND);
    }
  }
}
