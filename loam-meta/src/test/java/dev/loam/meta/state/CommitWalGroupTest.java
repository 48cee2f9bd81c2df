package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * CommitWalGroup (metastore-commands.md tag 35): a group leaves exactly the state and answers its
 * members leave when applied one CommitWal at a time, in order; retries dedupe per member; the
 * stale-commit window applies per member; a malformed group changes nothing.
 */
class CommitWalGroupTest {
  private static final long START = 1_780_000_000_000L;
  private static final Origin REG = new Origin("n1", 1, START);

  private static MetaStateMachine fresh() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    m.apply(1, new RegisterNode(REG, "h:1", 2, "az1"));
    m.apply(2, new CreateStream(REG, "default", "s", StreamConfig.standard(3)));
    return m;
  }

  /** Random commits of one node: plain and idempotent batches, retries, stale and unknown. */
  private static List<CommitWal> commits(long seed, int n) {
    Random rnd = new Random(seed);
    List<CommitWal> out = new ArrayList<>();
    int[] nextSeq = new int[2];
    long now = START + 1_000;
    for (int i = 0; i < n; i++) {
      now += rnd.nextInt(50);
      if (!out.isEmpty() && rnd.nextInt(8) == 0) {
        // A retry of an earlier object with the same key (dedupe by object path).
        CommitWal old = out.get(rnd.nextInt(out.size()));
        out.add(
            new CommitWal(
                origin(now),
                old.objectKey(),
                old.objectTimeMillis(),
                old.objectSize(),
                old.chunks()));
        continue;
      }
      long objectTime = rnd.nextInt(10) == 0 ? now - 16 * 60_000L : now - rnd.nextInt(20);
      List<ChunkCommit> chunks = new ArrayList<>();
      long offset = 0;
      int nChunks = 1 + rnd.nextInt(3);
      for (int c = 0; c < nChunks; c++) {
        int partition = rnd.nextInt(10) == 0 ? 7 : c; // partition 7 does not exist
        List<BatchCommit> batches = new ArrayList<>();
        for (int b = 0; b < 1 + rnd.nextInt(3); b++) {
          int records = 1 + rnd.nextInt(5);
          long pid = rnd.nextBoolean() ? -1 : rnd.nextInt(2);
          int seq = -1;
          if (pid >= 0) {
            int p = (int) pid;
            // Mostly in order, sometimes a repeat (DUPLICATE) or a gap (OUT_OF_ORDER).
            seq = rnd.nextInt(6) == 0 ? Math.max(0, nextSeq[p] - records) : nextSeq[p];
            if (rnd.nextInt(12) == 0) {
              seq += 3;
            }
            nextSeq[p] = seq + records;
          }
          batches.add(
              new BatchCommit(offset, 100, records, now, pid, (short) (pid >= 0 ? 0 : -1), seq));
          offset += 100;
        }
        chunks.add(new ChunkCommit(1L, partition, batches));
      }
      out.add(
          new CommitWal(origin(now), "wal/express/n1/o" + i + ".wal", objectTime, offset, chunks));
    }
    return out;
  }

  private static Origin origin(long stamp) {
    return new Origin("n1", 1, stamp);
  }

  /** Splits the commits into consecutive groups of random sizes, no key twice in one group. */
  private static List<List<CommitWal>> groups(List<CommitWal> commits, long seed) {
    Random rnd = new Random(seed ^ 0x5DEECE66DL);
    List<List<CommitWal>> out = new ArrayList<>();
    List<CommitWal> cur = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    int size = 1 + rnd.nextInt(5);
    for (CommitWal c : commits) {
      if (cur.size() == size || keys.contains(c.objectKey())) {
        out.add(cur);
        cur = new ArrayList<>();
        keys.clear();
        size = 1 + rnd.nextInt(5);
      }
      cur.add(c);
      keys.add(c.objectKey());
    }
    if (!cur.isEmpty()) {
      out.add(cur);
    }
    return out;
  }

  @Property(tries = 200)
  void aGroupLeavesTheStateAndAnswersOfItsMembersAppliedOneByOne(@ForAll long seed) {
    List<CommitWal> all = commits(seed, 30);
    MetaStateMachine single = fresh();
    MetaStateMachine grouped = fresh();
    long index = 2;
    for (List<CommitWal> members : groups(all, seed)) {
      // The group's origin is its newest stamp, as a writer stamps it when it proposes.
      Origin o = members.get(members.size() - 1).origin();
      List<CommitWal> stamped =
          members.stream()
              .map(
                  c ->
                      new CommitWal(
                          o, c.objectKey(), c.objectTimeMillis(), c.objectSize(), c.chunks()))
              .toList();
      List<Outcome> expected = new ArrayList<>();
      for (CommitWal c : stamped) {
        expected.add(single.apply(++index, c));
      }
      Outcome got = grouped.apply(index, new CommitWalGroup(o, stamped));
      assertThat(got).isEqualTo(new Outcome.WalGroupCommitted(expected));
      assertThat(grouped.snapshot()).isEqualTo(single.snapshot());
    }
  }

  @Example
  void aRetriedGroupReturnsEachMembersFirstOffsetsAndAppendsNothing() {
    MetaStateMachine m = fresh();
    List<CommitWal> members =
        commits(7, 3).stream()
            .map(
                c ->
                    new CommitWal(
                        origin(START + 2_000),
                        c.objectKey(),
                        START + 1_900,
                        c.objectSize(),
                        c.chunks()))
            .toList();
    CommitWalGroup g = new CommitWalGroup(origin(START + 2_000), members);
    Outcome.WalGroupCommitted first = (Outcome.WalGroupCommitted) m.apply(3, g);
    byte[] before = m.snapshot();
    Outcome.WalGroupCommitted again = (Outcome.WalGroupCommitted) m.apply(4, g);
    assertThat(again.members()).hasSize(3);
    for (int i = 0; i < 3; i++) {
      Outcome.WalCommitted a = (Outcome.WalCommitted) first.members().get(i);
      Outcome.WalCommitted b = (Outcome.WalCommitted) again.members().get(i);
      assertThat(a.deduplicated()).isFalse();
      assertThat(b.deduplicated()).isTrue();
      assertThat(b.chunks()).isEqualTo(a.chunks());
    }
    assertThat(m.reader().partition(1L, 0).orElseThrow().highWatermark())
        .isEqualTo(highWatermark(before));
  }

  private static long highWatermark(byte[] snapshot) {
    return MetaStateMachine.restore(snapshot, MetaSettings.defaults())
        .reader()
        .partition(1L, 0)
        .orElseThrow()
        .highWatermark();
  }

  @Example
  void aStaleMemberIsRefusedAloneWhileTheOthersCommit() {
    MetaStateMachine m = fresh();
    long now = START + 20 * 60_000L;
    Origin o = origin(now);
    CommitWal fresh1 = oneBatch(o, "wal/express/n1/a.wal", now - 5, 0);
    CommitWal stale = oneBatch(o, "wal/express/n1/b.wal", now - 16 * 60_000L, 0);
    CommitWal fresh2 = oneBatch(o, "wal/express/n1/c.wal", now - 1, 0);
    Outcome.WalGroupCommitted g =
        (Outcome.WalGroupCommitted)
            m.apply(3, new CommitWalGroup(o, List.of(fresh1, stale, fresh2)));
    assertThat(g.members().get(0)).isInstanceOf(Outcome.WalCommitted.class);
    assertThat(((Outcome.Rejected) g.members().get(1)).reason())
        .isEqualTo(RejectReason.STALE_COMMIT);
    Outcome.WalCommitted last = (Outcome.WalCommitted) g.members().get(2);
    assertThat(last.chunks().get(0).get(0).status()).isEqualTo(BatchStatus.APPENDED);
    // Offsets follow member order: the third member lands right after the first.
    assertThat(last.chunks().get(0).get(0).baseOffset()).isEqualTo(2L);
    assertThat(m.reader().partition(1L, 0).orElseThrow().highWatermark()).isEqualTo(4L);
  }

  @Example
  void aMalformedGroupIsRefusedBeforeAnyMemberApplies() {
    MetaStateMachine m = fresh();
    Origin o = origin(START + 2_000);
    CommitWal a = oneBatch(o, "wal/express/n1/a.wal", START + 1_999, 0);
    byte[] before = m.snapshot();
    assertThat(reason(m.apply(3, new CommitWalGroup(o, List.of()))))
        .isEqualTo(RejectReason.INVALID);
    assertThat(reason(m.apply(4, new CommitWalGroup(o, List.of(a, a)))))
        .isEqualTo(RejectReason.INVALID);
    List<CommitWal> tooMany = new ArrayList<>();
    for (int i = 0; i <= CommitWalGroup.MAX_MEMBERS; i++) {
      tooMany.add(oneBatch(o, "wal/express/n1/m" + i + ".wal", START + 1_999, 0));
    }
    assertThat(reason(m.apply(5, new CommitWalGroup(o, tooMany)))).isEqualTo(RejectReason.INVALID);
    assertThat(m.reader().partition(1L, 0).orElseThrow().highWatermark()).isZero();
    assertThat(m.reader().objectRefs("wal/express/n1/a.wal")).isZero();
    assertThat(highWatermark(before)).isZero();
  }

  @Example
  void aGroupFromAStaleNodeEpochIsRefusedWhole() {
    MetaStateMachine m = fresh();
    Origin zombie = new Origin("n1", 0, START + 2_000);
    CommitWal a = oneBatch(zombie, "wal/express/n1/a.wal", START + 1_999, 0);
    Outcome o = m.apply(3, new CommitWalGroup(zombie, List.of(a)));
    assertThat(reason(o)).isEqualTo(RejectReason.STALE_NODE_EPOCH);
    assertThat(m.reader().partition(1L, 0).orElseThrow().highWatermark()).isZero();
  }

  private static RejectReason reason(Outcome o) {
    return ((Outcome.Rejected) o).reason();
  }

  private static CommitWal oneBatch(Origin o, String key, long objectTime, int partition) {
    return new CommitWal(
        o,
        key,
        objectTime,
        100L,
        List.of(
            new ChunkCommit(
                1L,
                partition,
                List.of(new BatchCommit(0L, 100, 2, objectTime, -1L, (short) -1, -1)))));
  }
}
