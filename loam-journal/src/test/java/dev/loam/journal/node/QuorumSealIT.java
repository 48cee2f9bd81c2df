package dev.loam.journal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.OffsetSpec;
import dev.loam.api.StreamSpec;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.journal.state.JournalState;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sealing on nodes (docs/design/quorum.md "Sealing"): a quorum stream written well past its
 * journal's bound on unsealed bytes keeps taking appends, because each leader's seal agent writes
 * the committed tail into segments, commits them into the metastore's offset index and only then
 * seals the journal; the stream reads back completely and in order from every replica, the old part
 * from the segments through the ordinary read path; a node restarted after the journal purged its
 * log catches up from a snapshot. Commits that fail before or after being applied leave orphans at
 * worst, never a hole, and a deposed leader's seal is refused by both the index and the journal.
 */
class QuorumSealIT {
  /** The journals' bound on unsealed bytes: the smallest allowed, so a few MiB seal many times. */
  static final long TAIL = 1 << 20;

  static final String VALUE = "v".repeat(10_000);

  @TempDir Path dir;

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  LoamNode node(int i, Metastore ms, InMemoryObjectStore store, int journalPort) {
    String[] zones = {"z1", "z2", "z3"};
    return LoamNode.builder()
        .nodeId("n" + i)
        .objectStore(store)
        .metastore(ms)
        .settings(
            NodeSettings.defaults().withIdentity("http://n" + i, zones[i - 1], 1).toBuilder()
                .maintenanceInterval(Duration.ofMillis(200))
                .build())
        .journalAddress("127.0.0.1:" + journalPort)
        .journalDir(dir.resolve("journal-n" + i))
        .journalMaxUnsealedBytes(TAIL)
        .journalSnapshotEntries(50)
        .start();
  }

  static JournalServer server(LoamNode n) {
    return ((JournalNodeHost) n.quorumHost().orElseThrow()).server();
  }

  static void createStream(List<LoamNode> nodes) throws Exception {
    get(nodes.get(0).log().createNamespace("ns"));
    StreamSpec spec = StreamSpec.standard(1).withClass(Durability.QUORUM);
    JournalNodeHostIT.await(
        () -> {
          try {
            get(nodes.get(0).log().createStream("ns", "q", spec));
            return true;
          } catch (Exception e) {
            return false;
          }
        });
  }

  /** Appends {@code n} records of 10 KB through the nodes in turn; every one must be taken. */
  static void write(List<LoamNode> nodes, int from, int n) throws Exception {
    for (int i = from; i < from + n; i++) {
      var r =
          get(
              nodes
                  .get(i % nodes.size())
                  .log()
                  .append("ns", "q", List.of(AppendRecord.of("k" + i, VALUE + i).toPartition(0))));
      assertThat(r.positions().get(0).offset()).isEqualTo(i);
    }
  }

  /** Reads the partition from 0 to {@code end} through {@code n}'s Log, checking every record. */
  static void readAll(LoamNode n, int end) throws Exception {
    JournalNodeHostIT.await(
        () -> {
          try {
            return get(n.log().fetch("ns", "q", 0, 0, 1, Duration.ZERO)).highWatermark() == end;
          } catch (Exception e) {
            return false;
          }
        });
    long at = 0;
    while (at < end) {
      FetchResult f = get(n.log().fetch("ns", "q", 0, at, 256 << 10, Duration.ZERO));
      assertThat(f.records()).as("records at %d from %s", at, n.nodeId()).isNotEmpty();
      for (FetchedRecord r : f.records()) {
        assertThat(r.offset()).isEqualTo(at);
        assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo(VALUE + at);
        at++;
      }
      assertThat(f.nextOffset()).isEqualTo(at);
      assertThat(f.highWatermark()).isEqualTo(end);
    }
  }

  static long streamId(Metastore ms) {
    return ms.read(r -> r.stream("ns", "q")).orElseThrow().id();
  }

  /** The index entries are dense from 0, each in a segment object the store holds. */
  static List<IndexEntry> denseIndex(Metastore ms, InMemoryObjectStore store) throws Exception {
    long id = streamId(ms);
    // One view: the sealer may commit the next segment between two reads.
    record View(List<IndexEntry> entries, long indexEnd) {}
    View v =
        ms.read(
            r ->
                new View(
                    r.indexEntries(id, 0, 0, 10_000),
                    r.partition(id, 0).orElseThrow().highWatermark()));
    long next = 0;
    Set<String> stored = keys(store);
    for (IndexEntry e : v.entries()) {
      assertThat(e.baseOffset()).as("no hole in the index").isEqualTo(next);
      assertThat(e.objectKey()).startsWith("seg/").endsWith(".seg");
      assertThat(stored).contains(e.objectKey());
      next = e.endOffset();
    }
    assertThat(v.indexEnd()).isEqualTo(next);
    return v.entries();
  }

  static Set<String> keys(InMemoryObjectStore store) throws Exception {
    Set<String> out = new HashSet<>();
    String after = "";
    while (true) {
      var page = get(store.list("seg/", after, 1000));
      for (ObjectInfo o : page.objects()) {
        out.add(o.key());
      }
      if (page.nextStartAfter().isEmpty()) {
        return out;
      }
      after = page.nextStartAfter().get();
    }
  }

  static long sealedOffset(LoamNode n, Metastore ms) {
    return server(n).read("quorum-1", streamId(ms), 0, 0, 1).sealedOffset();
  }

  @Test
  void aStreamWrittenPastManySealsReadsBackFromEveryReplicaAndAfterARestart() throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(2);
    InstantSource clock = InstantSource.system();
    List<LoamNode> nodes = new ArrayList<>();
    int[] ports = new int[4];
    LoamNode plain = null;
    try (EmbeddedMetastore ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex)) {
      InMemoryObjectStore store = new InMemoryObjectStore(clock);
      try {
        for (int i = 1; i <= 3; i++) {
          ports[i] = JournalNodeHostIT.freePort();
          nodes.add(node(i, ms, store, ports[i]));
        }
        // A node with slots but no journal port, first in the placement's order by id: the
        // journal is placed only on nodes that advertise a journal endpoint.
        plain =
            LoamNode.builder()
                .nodeId("n0")
                .objectStore(store)
                .metastore(ms)
                .settings(
                    NodeSettings.defaults().toBuilder()
                        .maintenanceInterval(Duration.ofMillis(200))
                        .build())
                .dataDir(dir.resolve("n0"))
                .start();
        createStream(nodes);
        assertThat(ms.read(r -> r.journalReplicas("quorum-1")).orElseThrow())
            .containsExactlyInAnyOrder("n1", "n2", "n3");
        // 200 records of 10 KB: twice the journal's bound, so without sealing the appends would be
        // refused as soon as 1 MiB is unsealed.
        write(nodes, 0, 200);
        JournalNodeHostIT.await(
            () -> ms.read(r -> r.partition(streamId(ms), 0)).orElseThrow().highWatermark() >= 100);
        List<IndexEntry> index = denseIndex(ms, store);
        assertThat(index.size()).as("several segments").isGreaterThanOrEqualTo(3);
        for (LoamNode n : nodes) {
          JournalNodeHostIT.await(
              () -> server(n).query("quorum-1", JournalState::unsealedBytes) < TAIL);
          assertThat(sealedOffset(n, ms)).isPositive();
          readAll(n, 200);
        }
        LoamNode leader =
            nodes.stream().filter(n -> server(n).isLeader("quorum-1")).findFirst().orElseThrow();
        assertThat(server(leader).logStartIndex("quorum-1")).as("log purged").isPositive();
        assertThat(get(leader.log().listOffset("ns", "q", 0, OffsetSpec.earliest()))).isZero();
        assertThat(get(leader.log().listOffset("ns", "q", 0, OffsetSpec.latest()))).isEqualTo(200);
        // A timestamp lookup finds the oldest records in the segments, and none past the newest.
        assertThat(get(leader.log().listOffset("ns", "q", 0, OffsetSpec.forTimestamp(0)))).isZero();
        assertThat(
                get(
                    leader
                        .log()
                        .listOffset(
                            "ns",
                            "q",
                            0,
                            OffsetSpec.forTimestamp(System.currentTimeMillis() + 3_600_000))))
            .isEqualTo(200);
        assertThat(
                get(leader.log().fetchBatches("ns", "q", 0, 0, 1 << 20, Duration.ZERO))
                    .batches()
                    .remaining())
            .isPositive();

        // A follower down through more seals and purges catches up from a snapshot.
        int down = nodes.indexOf(nodes.stream().filter(n -> n != leader).findFirst().get());
        nodes.get(down).close();
        List<LoamNode> up = new ArrayList<>(nodes);
        up.remove(down);
        write(up, 200, 100);
        JournalNodeHostIT.await(() -> sealedOffset(leader, ms) >= 250);
        long purgedTo = server(leader).logStartIndex("quorum-1");
        LoamNode back = node(down + 1, ms, store, ports[down + 1]);
        nodes.set(down, back);
        JournalNodeHostIT.await(
            () ->
                server(back).hosts("quorum-1")
                    && server(back)
                            .query("quorum-1", s -> s.highWatermark(streamId(ms), 0))
                            .orElse(0)
                        == 300);
        assertThat(purgedTo).isPositive();
        readAll(back, 300);

        // Retention: the stream's owner trims the sealed segments in the offset index by the size
        // rule like any stream's (the unsealed tail is never trimmed); a fetch below the new log
        // start is out of range. The owner, like every stream's, is the node the ownership agent
        // placed the stream on, which need not be a journal replica.
        List<LoamNode> all = new ArrayList<>(nodes);
        all.add(plain);
        boolean updated = false;
        for (LoamNode n : all) {
          try {
            get(
                n.log()
                    .updateStream(
                        "ns", "q", dev.loam.api.StreamUpdate.none().withRetentionBytes(1_000_000)));
            updated = true;
            break;
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(dev.loam.api.NotOwnerException.class);
          }
        }
        assertThat(updated).isTrue();
        JournalNodeHostIT.await(
            () -> ms.read(r -> r.partition(streamId(ms), 0)).orElseThrow().logStartOffset() > 0);
        long logStart = ms.read(r -> r.partition(streamId(ms), 0)).orElseThrow().logStartOffset();
        List<IndexEntry> kept = ms.read(r -> r.indexEntries(streamId(ms), 0, logStart, 10_000));
        assertThat(kept.stream().mapToLong(IndexEntry::byteLength).sum())
            .as("the size rule keeps at least the limit")
            .isGreaterThanOrEqualTo(1_000_000);
        assertThat(get(back.log().listOffset("ns", "q", 0, OffsetSpec.earliest())))
            .isEqualTo(logStart);
        assertThat(
                QuorumStreamLogIT.failure(
                    leader.log().fetch("ns", "q", 0, logStart - 1, 1024, Duration.ZERO)))
            .isInstanceOf(dev.loam.api.OffsetOutOfRangeException.class);
        FetchResult first = get(back.log().fetch("ns", "q", 0, logStart, 1024, Duration.ZERO));
        assertThat(first.records().get(0).offset()).isEqualTo(logStart);
        assertThat(first.logStartOffset()).isEqualTo(logStart);
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
        if (plain != null) {
          plain.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }

  @Test
  void failedCommitsLeaveOrphansNeverAHoleAndADeposedLeadersSealIsRefused() throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(2);
    InstantSource clock = InstantSource.system();
    List<LoamNode> nodes = new ArrayList<>();
    AtomicInteger lostBefore = new AtomicInteger(2);
    AtomicInteger lostAfter = new AtomicInteger(2);
    try (EmbeddedMetastore ms =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            clock,
            ex)) {
      InMemoryObjectStore store = new InMemoryObjectStore(clock);
      try {
        for (int i = 1; i <= 3; i++) {
          nodes.add(
              node(
                  i,
                  new LossyCommitsMetastore(ms, lostBefore, lostAfter),
                  store,
                  JournalNodeHostIT.freePort()));
        }
        createStream(nodes);
        write(nodes, 0, 150);
        assertThat(lostBefore.get()).as("both injected failures happened").isNegative();
        assertThat(lostAfter.get()).isNegative();
        LoamNode leader =
            nodes.stream().filter(n -> server(n).isLeader("quorum-1")).findFirst().orElseThrow();
        // The journal catches up with the index, including the commits whose answer was lost, and
        // the sealer goes idle once what is left is below its threshold (a sixteenth of the bound).
        JournalNodeHostIT.await(
            () ->
                server(leader).query("quorum-1", JournalState::unsealedBytes) < TAIL / 16
                    && sealedOffset(leader, ms)
                        == ms.read(r -> r.partition(streamId(ms), 0))
                            .orElseThrow()
                            .highWatermark());
        List<IndexEntry> index = denseIndex(ms, store);
        assertThat(sealedOffset(leader, ms)).isPositive();
        Set<String> referenced = new HashSet<>();
        index.forEach(e -> referenced.add(e.objectKey()));
        Set<String> orphans = keys(store);
        orphans.removeAll(referenced);
        assertThat(orphans).as("the segments whose commit was never proposed").hasSize(2);
        for (LoamNode n : nodes) {
          readAll(n, 150);
        }

        // The leader is deposed: its seal agent stops, and a seal it would still make of a range
        // the new leader sealed is refused by the index and by the journal.
        JournalNodeHostIT.await(
            () -> server(leader).query("quorum-1", JournalState::unsealedBytes) < TAIL / 2);
        LoamNode next = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        get(server(leader).transferLeadership("quorum-1", next.nodeId(), Duration.ofSeconds(10)));
        JournalNodeHostIT.await(() -> server(next).isLeader("quorum-1"));
        write(nodes, 150, 40);
        JournalNodeHostIT.await(
            () -> sealedOffset(next, ms) > index.get(index.size() - 1).endOffset());
        IndexEntry sealedByNew =
            denseIndex(ms, store).stream()
                .filter(e -> e.baseOffset() >= index.get(index.size() - 1).endOffset())
                .findFirst()
                .orElseThrow();
        Outcome o =
            ms.propose(
                    new CommitJournalSegment(
                        new Origin(leader.nodeId(), leader.epoch(), clock.millis()),
                        "quorum-1",
                        streamId(ms),
                        0,
                        sealedByNew.baseOffset(),
                        sealedByNew.endOffset(),
                        "seg/deposed-" + sealedByNew.baseOffset() + ".seg",
                        clock.millis(),
                        sealedByNew.byteOffset() + sealedByNew.byteLength(),
                        List.of(
                            new dev.loam.meta.command.SwapSegment.SegmentEntry(
                                sealedByNew.recordCount(),
                                sealedByNew.byteOffset(),
                                sealedByNew.byteLength(),
                                sealedByNew.maxTimestamp()))))
                .get(10, TimeUnit.SECONDS)
                .outcome();
        assertThat(((Outcome.Rejected) o).reason()).isEqualTo(Outcome.RejectReason.CONFLICT);
        JournalResult refused =
            get(
                server(leader)
                    .propose(
                        "quorum-1",
                        new JournalEntry.Seal(
                            streamId(ms),
                            0,
                            new SegmentPointer(
                                sealedByNew.baseOffset(),
                                sealedByNew.endOffset(),
                                "seg/deposed-" + sealedByNew.baseOffset() + ".seg"))));
        assertThat(((JournalResult.Rejected) refused).reason())
            .isEqualTo(JournalResult.Reason.BAD_SEAL);
        assertThat(
                get(
                    ((JournalNodeHost) leader.quorumHost().orElseThrow())
                        .sealer("quorum-1")
                        .orElseThrow()
                        .poll()))
            .as("a follower's sealer does nothing")
            .isEmpty();
        for (LoamNode n : nodes) {
          readAll(n, 190);
        }
      } finally {
        for (LoamNode n : nodes) {
          n.close();
        }
      }
    } finally {
      ex.shutdownNow();
    }
  }
}
