package dev.loam.core.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.Durability;
import dev.loam.api.JournalMove;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's move of a quorum partition ({@code Log.moveJournalPartition}) and its typed
 * refusals, on four nodes that advertise a journal endpoint but run no journal server: the
 * metastore places two journals, and a begun move stays marked (no source leader carries it out),
 * so a second move meets it every time.
 */
class QuorumMovesTest {
  @TempDir Path dir;
  ExecutorService ex;
  EmbeddedMetastore ms;
  final List<LoamNode> nodes = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    ex = Executors.newFixedThreadPool(2);
    InstantSource clock = InstantSource.system();
    ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex);
    InMemoryObjectStore store = new InMemoryObjectStore(clock);
    String[] zones = {"z1", "z2", "z3", "z1"};
    for (int i = 1; i <= 4; i++) {
      LoamNode n =
          LoamNode.builder()
              .nodeId("n" + i)
              .objectStore(store)
              .metastore(ms)
              .settings(NodeSettings.defaults().withIdentity("http://n" + i, zones[i - 1], 1))
              .start();
      nodes.add(n);
      get(n.log().advertiseEndpoint("journal", "127.0.0.1:" + (9300 + i)));
    }
    get(log().createNamespace("ns"));
    get(log().createStream("ns", "q", StreamSpec.standard(2).withClass(Durability.QUORUM)));
    get(log().createStream("ns", "plain", StreamSpec.standard(1)));
  }

  @AfterEach
  void stop() throws Exception {
    nodes.forEach(LoamNode::close);
    ms.close();
    ex.shutdownNow();
    ex.awaitTermination(10, TimeUnit.SECONDS);
  }

  private dev.loam.api.Log log() {
    return nodes.get(0).log();
  }

  @Test
  void aMoveIsMarkedAndShownInTheDescription() throws Exception {
    Map<String, List<String>> journals = ms.read(r -> r.journals());
    assertThat(journals).containsOnlyKeys("quorum-1", "quorum-2");
    StreamDescription d = get(log().describeStream("ns", "q"));
    String from = d.partitions().get(0).journal();
    assertThat(from).isIn("quorum-1", "quorum-2");
    assertThat(d.partitions().get(0).movingToJournal()).isEmpty();
    String to = from.equals("quorum-1") ? "quorum-2" : "quorum-1";

    // Any node may begin it, journal replica or not.
    JournalMove m = get(nodes.get(3).log().moveJournalPartition("ns", "q", 0, to));
    assertThat(m).isEqualTo(new JournalMove("ns", "q", 0, from, to, journals.get(to)));
    long id = d.id();
    assertThat(moveTarget(id, 0)).contains(to);
    StreamDescription moving = get(log().describeStream("ns", "q"));
    assertThat(moving.partitions().get(0).journal()).isEqualTo(from);
    assertThat(moving.partitions().get(0).movingToJournal()).isEqualTo(to);
    assertThat(moving.partitions().get(1).movingToJournal()).isEmpty();
    // A standard stream's partitions are on no journal.
    assertThat(get(log().describeStream("ns", "plain")).partitions().get(0).journal()).isEmpty();

    // The same move again, or to anywhere else, meets the one under way.
    assertFails(
        log().moveJournalPartition("ns", "q", 0, to),
        Kind.CONFLICT,
        "a move of the partition is under way stream=ns/q partition=0 from=" + from + " to=" + to);
    assertFails(
        log().moveJournalPartition("ns", "q", 0, from),
        Kind.CONFLICT,
        "a move of the partition is under way");
  }

  @Test
  void eachMistakeHasItsOwnError() throws Exception {
    String from = get(log().describeStream("ns", "q")).partitions().get(1).journal();
    String to = from.equals("quorum-1") ? "quorum-2" : "quorum-1";
    assertFails(log().moveJournalPartition("ns", "nope", 0, to), Kind.NOT_FOUND, "nope");
    assertFails(log().moveJournalPartition("other", "q", 0, to), Kind.NOT_FOUND, "other");
    assertFails(
        log().moveJournalPartition("ns", "q", 2, to),
        Kind.INVALID,
        "partition out of range stream=ns/q partition=2 partitions=2");
    assertFails(
        log().moveJournalPartition("ns", "q", -1, to), Kind.INVALID, "partition out of range");
    assertFails(
        log().moveJournalPartition("ns", "plain", 0, to),
        Kind.INVALID,
        "only a quorum stream's partitions live on journals stream=ns/plain partition=0"
            + " class=standard");
    assertFails(
        log().moveJournalPartition("ns", "q", 1, "quorum-9"),
        Kind.NOT_FOUND,
        "no such journal journal=quorum-9 stream=ns/q partition=1 journals=[quorum-1, quorum-2]");
    assertFails(
        log().moveJournalPartition("ns", "q", 1, from),
        Kind.INVALID,
        "the partition is on the target journal already stream=ns/q partition=1 journal=" + from);
    assertFails(log().moveJournalPartition("ns", "q", 1, ""), Kind.INVALID, "target journal");
    assertFails(log().moveJournalPartition("ns", "q", 1, null), Kind.INVALID, "target journal");
    // None of them began anything.
    long id = get(log().describeStream("ns", "q")).id();
    assertThat(moveTarget(id, 1)).isEmpty();
  }

  private static void assertFails(CompletableFuture<?> f, Kind kind, String message) {
    assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(LoamException.class, e -> assertThat(e.kind()).isEqualTo(kind))
        .hasMessageContaining(message);
  }

  private java.util.Optional<String> moveTarget(long streamId, int partition) {
    return ms.read(r -> r.journalMoveTarget(streamId, partition));
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }
}
