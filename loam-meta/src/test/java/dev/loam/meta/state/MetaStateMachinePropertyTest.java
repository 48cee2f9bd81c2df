package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Random command sequences against the state machine: snapshots are exact and deterministic, a
 * restored copy behaves like the original, and offsets stay dense (§3 sequencer).
 */
class MetaStateMachinePropertyTest {
  private static final long START = 1_780_000_000_000L;

  /** Builds a random but plausible command sequence from a seed. */
  static List<Command> commands(long seed, int length) {
    Random rnd = new Random(seed);
    List<Command> out = new ArrayList<>();
    List<CommitWal> commits = new ArrayList<>();
    long now = START;
    out.add(new RegisterNode(new Origin("n1", 1, now), "h:1", 2, "az1"));
    for (int i = 0; i < length; i++) {
      now += rnd.nextInt(8) == 0 ? rnd.nextInt(20 * 60_000) : rnd.nextInt(2_000);
      long epoch = rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(3) : 1;
      String node = rnd.nextInt(20) == 0 ? "n2" : "n1";
      Origin o = new Origin(node, epoch, now);
      String ns = rnd.nextBoolean() ? "default" : "ns" + rnd.nextInt(2);
      String stream = "s" + rnd.nextInt(3);
      int kind = rnd.nextInt(24);
      if (rnd.nextInt(200) == 0) {
        // Rare, so that most sequences keep a snapshot of version 1 to 4 and some reach 5; an id
        // from a small set, so that later proposals of another id are seen to change nothing.
        out.add(new dev.loam.meta.command.InitCluster(o, rnd.nextBoolean() ? "c-A" : "c-B"));
      } else if (rnd.nextInt(40) == 0) {
        // Endpoints come and go (an empty address removes one; a re-registration at a higher
        // epoch clears them), so sequences reach version 6 and fall back from it.
        String[] addresses = {"", "h:1", "h:2"};
        out.add(
            new dev.loam.meta.command.SetNodeEndpoint(
                o, rnd.nextBoolean() ? "kafka" : "grpc", addresses[rnd.nextInt(3)]));
      } else if (rnd.nextInt(80) == 0) {
        // API keys, created (a retry of the same id too) and revoked, rarely, so that most
        // sequences stay below version 7 and some reach it.
        String id = rnd.nextBoolean() ? "aaaaaaaaaaaaaaaa" : "bbbbbbbbbbbbbbb2";
        if (rnd.nextBoolean()) {
          out.add(
              new dev.loam.meta.command.CreateApiKey(
                  o,
                  id,
                  rnd.nextBoolean() ? null : ns,
                  java.util.EnumSet.of(dev.loam.meta.command.ApiKeyRole.PRODUCE),
                  ApiKeyTableTest.secrets((byte) rnd.nextInt(2))));
        } else {
          out.add(new dev.loam.meta.command.RevokeApiKey(o, id));
        }
      } else if (rnd.nextInt(8) == 0) {
        // Consumer groups: the coordinator namespace and streams, generations, commits and
        // deletes; coordinator stream ids are guessed among the latest streams created, so some
        // commands name the group's own stream and apply, and the others are refused.
        String group = rnd.nextInt(4) == 0 ? "g1" : "g0";
        String gns = rnd.nextInt(4) == 0 ? ns : "default";
        int pick = rnd.nextInt(5);
        long created = out.stream().filter(c -> c instanceof CreateStream).count();
        long coordinator = Math.max(1, created - rnd.nextInt(4));
        if (pick == 1) {
          // A generation at every stream id a coordinator stream may have: one of them is it.
          for (long id = 1; id <= created; id++) {
            out.add(
                new dev.loam.meta.command.AdvanceGroupGeneration(
                    o, id, gns, group, 1 + rnd.nextInt(4)));
          }
          continue;
        }
        if (pick == 0) {
          out.add(new CreateNamespace(o, dev.loam.meta.command.GroupInfo.COORDINATOR_NAMESPACE));
          out.add(
              new CreateStream(
                  o,
                  dev.loam.meta.command.GroupInfo.COORDINATOR_NAMESPACE,
                  dev.loam.meta.command.GroupInfo.coordinatorStreamName(gns, group),
                  StreamConfig.standard(1)));
        } else if (pick == 1) {
          out.add(
              new dev.loam.meta.command.AdvanceGroupGeneration(
                  o, coordinator, gns, group, 1 + rnd.nextInt(4)));
        } else if (pick == 4) {
          out.add(
              new dev.loam.meta.command.DeleteGroupOffsets(
                  o,
                  coordinator,
                  gns,
                  group,
                  rnd.nextInt(3) == 0,
                  List.of(
                      new dev.loam.meta.command.GroupPartition(
                          1 + rnd.nextInt(6), rnd.nextInt(3)))));
        } else {
          List<dev.loam.meta.command.GroupOffset> offsets = new ArrayList<>();
          for (int j = 0; j < 1 + rnd.nextInt(3); j++) {
            offsets.add(
                new dev.loam.meta.command.GroupOffset(
                    1 + rnd.nextInt(6), rnd.nextInt(3), rnd.nextInt(50), -1, "m" + rnd.nextInt(2)));
          }
          out.add(
              new dev.loam.meta.command.CommitGroupOffsets(
                  o,
                  coordinator,
                  gns,
                  group,
                  rnd.nextBoolean() ? -1 : 1 + rnd.nextInt(4),
                  offsets));
        }
      } else if (kind == 20) {
        out.add(new dev.loam.meta.command.AllocateProducerIds(o, 1 + rnd.nextInt(3)));
      } else if (kind == 21) {
        out.add(
            new dev.loam.meta.command.AcquireConsumerLease(
                o,
                1 + rnd.nextInt(6),
                rnd.nextInt(3),
                "c" + rnd.nextInt(2),
                "h" + rnd.nextInt(2),
                1 + rnd.nextInt(60_000)));
      } else if (kind >= 22) {
        out.add(
            new dev.loam.meta.command.CommitConsumerOffset(
                o,
                1 + rnd.nextInt(6),
                rnd.nextInt(3),
                "c" + rnd.nextInt(2),
                1 + rnd.nextInt(3),
                rnd.nextInt(20)));
      } else if (kind == 0) {
        out.add(new RegisterNode(o, "h:" + rnd.nextInt(3), 1 + rnd.nextInt(3), "az"));
      } else if (kind == 1) {
        out.add(new CreateNamespace(o, ns));
      } else if (kind == 2) {
        out.add(new DeleteNamespace(o, ns));
      } else if (kind <= 5) {
        out.add(new CreateStream(o, ns, stream, StreamConfig.standard(1 + rnd.nextInt(3))));
      } else if (kind == 6) {
        out.add(new DeleteStream(o, ns, stream));
      } else if (kind == 7 && !commits.isEmpty()) {
        CommitWal prev = commits.get(rnd.nextInt(commits.size()));
        out.add(
            new CommitWal(
                o, prev.objectKey(), prev.objectTimeMillis(), prev.objectSize(), prev.chunks()));
      } else {
        List<ChunkCommit> chunks = new ArrayList<>();
        long pos = 0;
        int nChunks = 1 + rnd.nextInt(3);
        for (int c = 0; c < nChunks; c++) {
          List<BatchCommit> batches = new ArrayList<>();
          int nBatches = 1 + rnd.nextInt(4);
          for (int b = 0; b < nBatches; b++) {
            pos += rnd.nextInt(3) == 0 ? rnd.nextInt(50) : 0; // sometimes a gap
            int len = 61 + rnd.nextInt(100);
            int records = 1 + rnd.nextInt(3);
            long pid = rnd.nextInt(3) == 0 ? -1 : rnd.nextInt(3);
            short pepoch = (short) (pid < 0 ? -1 : rnd.nextInt(10) == 0 ? rnd.nextInt(3) : 0);
            int seq = pid < 0 ? -1 : rnd.nextInt(12);
            batches.add(
                new BatchCommit(pos, len, records, now - rnd.nextInt(10_000), pid, pepoch, seq));
            pos += len;
          }
          chunks.add(new ChunkCommit(1 + rnd.nextInt(6), rnd.nextInt(3), batches));
        }
        long objectTime = rnd.nextInt(10) == 0 ? now - 16 * 60_000 : now - rnd.nextInt(5_000);
        CommitWal c =
            new CommitWal(
                o, "wal/standard/n1/" + i + ".wal", objectTime, pos + rnd.nextInt(10), chunks);
        commits.add(c);
        out.add(c);
      }
    }
    return out;
  }

  @Property(tries = 200)
  void snapshotRestoreIsExactAndRestoredCopyBehavesTheSame(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 300) int length,
      @ForAll @IntRange(min = 0, max = 100) int splitPercent) {
    MetaSettings settings = MetaSettings.defaults();
    List<Command> cmds = commands(seed, length);
    int split = cmds.size() * splitPercent / 100;
    MetaStateMachine original = new MetaStateMachine(settings);
    long index = 0;
    for (int i = 0; i < split; i++) {
      original.apply(++index, cmds.get(i));
    }
    byte[] snap = original.snapshot();
    // Version 7 exactly when an API key exists (and no group), else 6 exactly when some node has
    // an endpoint, else 5 exactly when the cluster id is set: the oldest version that holds the
    // state.
    boolean hasKeys = !original.reader().apiKeys().isEmpty();
    boolean hasEndpoints =
        original.reader().nodes().stream().anyMatch(n -> !n.endpoints().isEmpty());
    boolean hasId = original.reader().clusterId().isPresent();
    Statistics.label("cluster id set").collect(hasId);
    Statistics.label("endpoints").collect(hasEndpoints);
    Statistics.label("api keys").collect(hasKeys);
    // Version 8 exactly when a consumer group has a record, above all of them.
    boolean hasGroups =
        original.reader().namespaces().stream()
            .anyMatch(n -> !original.reader().groups(n).isEmpty());
    Statistics.label("groups").collect(hasGroups);
    assertThat(SnapshotV3Test.version(snap) == 8).isEqualTo(hasGroups);
    assertThat(SnapshotV3Test.version(snap) == 7).isEqualTo(hasKeys && !hasGroups);
    assertThat(SnapshotV3Test.version(snap) == 6).isEqualTo(hasEndpoints && !hasKeys && !hasGroups);
    assertThat(SnapshotV3Test.version(snap) == 5)
        .isEqualTo(hasId && !hasEndpoints && !hasKeys && !hasGroups);
    for (String n : original.reader().namespaces()) {
      assertThat(copy(snap, settings).reader().groups(n)).isEqualTo(original.reader().groups(n));
    }
    assertThat(copy(snap, settings).reader().apiKeys()).isEqualTo(original.reader().apiKeys());
    assertThat(copy(snap, settings).reader().nodes()).isEqualTo(original.reader().nodes());
    MetaStateMachine copy = MetaStateMachine.restore(snap, settings);
    assertThat(copy.snapshot()).isEqualTo(snap);
    assertThat(copy.reader().clusterId()).isEqualTo(original.reader().clusterId());
    assertThat(copy.appliedIndex()).isEqualTo(original.appliedIndex());
    for (int i = split; i < cmds.size(); i++) {
      index += 1 + (i % 3); // indexes need only increase
      Outcome a = original.apply(index, cmds.get(i));
      Outcome b = copy.apply(index, cmds.get(i));
      assertThat(b).isEqualTo(a);
    }
    assertThat(copy.snapshot()).isEqualTo(original.snapshot());
    assertThat(MetaStateMachine.restore(original.snapshot(), settings).snapshot())
        .isEqualTo(original.snapshot());
  }

  @Property(tries = 200)
  void offsetsAreDenseAndIncreasing(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 400) int length) {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    Map<String, Long> lastEnd = new HashMap<>();
    Map<String, Outcome.WalCommitted> firstOutcome = new HashMap<>();
    long index = 0;
    for (Command c : commands(seed, length)) {
      Outcome o = m.apply(++index, c);
      if (!(c instanceof CommitWal cw) || !(o instanceof Outcome.WalCommitted w)) {
        continue;
      }
      if (w.deduplicated()) {
        assertThat(w.chunks()).isEqualTo(firstOutcome.get(cw.objectKey()).chunks());
        continue;
      }
      firstOutcome.put(cw.objectKey(), w);
      for (int ci = 0; ci < cw.chunks().size(); ci++) {
        ChunkCommit chunk = cw.chunks().get(ci);
        String key = chunk.streamId() + "/" + chunk.partition();
        for (int bi = 0; bi < chunk.batches().size(); bi++) {
          BatchResult r = w.chunks().get(ci).get(bi);
          if (r.status() == BatchStatus.APPENDED) {
            long expected = lastEnd.getOrDefault(key, 0L);
            assertThat(r.baseOffset()).isEqualTo(expected);
            lastEnd.put(key, expected + chunk.batches().get(bi).recordCount());
          }
        }
      }
    }
    MetaReader r = m.reader();
    Statistics.label("records appended")
        .collect(lastEnd.values().stream().mapToLong(v -> v).sum() > 0);
    for (String ns : r.namespaces()) {
      for (StreamInfo s : r.streams(ns)) {
        for (int p = 0; p < s.config().partitions(); p++) {
          long hw = r.partition(s.id(), p).orElseThrow().highWatermark();
          List<IndexEntry> entries = r.indexEntries(s.id(), p, 0, Integer.MAX_VALUE);
          long next = 0;
          for (IndexEntry e : entries) {
            assertThat(e.baseOffset()).isEqualTo(next);
            next = e.endOffset();
          }
          assertThat(next).isEqualTo(hw);
          assertThat(hw).isEqualTo(lastEnd.getOrDefault(s.id() + "/" + p, 0L));
          // Every offset below the high watermark is found by the index search.
          for (long off = 0; off < hw; off++) {
            IndexEntry e = r.indexEntries(s.id(), p, off, 1).get(0);
            assertThat(off).isBetween(e.baseOffset(), e.endOffset() - 1);
          }
        }
      }
    }
  }

  @Property(tries = 100)
  void damagedSnapshotsAreCorruption(
      @ForAll long seed, @ForAll @IntRange(min = 0, max = 1 << 20) int position) {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    long index = 0;
    for (Command c : commands(seed, 50)) {
      m.apply(++index, c);
    }
    byte[] snap = m.snapshot();
    byte[] damaged = snap.clone();
    damaged[position % snap.length] ^= 0x10;
    assertThatThrownBy(() -> MetaStateMachine.restore(damaged, MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class);
    byte[] cut = Arrays.copyOf(snap, (position % snap.length));
    assertThatThrownBy(() -> MetaStateMachine.restore(cut, MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class);
  }

  private static MetaStateMachine copy(byte[] snap, MetaSettings settings) {
    return MetaStateMachine.restore(snap, settings);
  }

  @Example
  void applyIndexMustIncrease() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    m.apply(5, new RegisterNode(new Origin("n", 1, 1), "a", 1, "z"));
    assertThatThrownBy(() -> m.apply(5, new CreateNamespace(new Origin("n", 1, 1), "x")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Example
  void sequenceArithmeticWrapsLikeKafka() {
    assertThat(MetaStateMachine.lastSequence(Integer.MAX_VALUE, 1)).isEqualTo(Integer.MAX_VALUE);
    assertThat(MetaStateMachine.lastSequence(Integer.MAX_VALUE, 2)).isZero();
    assertThat(MetaStateMachine.nextSequence(Integer.MAX_VALUE)).isZero();
    assertThat(MetaStateMachine.validName("a".repeat(249))).isTrue();
    assertThat(MetaStateMachine.validName("a".repeat(250))).isFalse();
  }
}
