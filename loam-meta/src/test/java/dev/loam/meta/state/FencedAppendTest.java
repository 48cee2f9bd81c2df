package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.WriterLease;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Fenced appends (docs/design/changelog.md): only the current, live writer lease appends; a batch
 * appends only if it continues the source's position; an overlapping retry appends only what lies
 * beyond it; retries after unknown outcomes never double; the leases survive a snapshot.
 */
class FencedAppendTest {
  private static final long START = 1_780_000_000_000L;
  private static final String SRC = "changelog-7-0";

  private long index;
  private long now = START;
  private int objects;

  private MetaStateMachine fresh() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    index = 0;
    objects = 0;
    apply(m, new RegisterNode(origin(), "h:1", 2, "az1"));
    apply(m, new CreateStream(origin(), "default", "cl", StreamConfig.standard(2)));
    return m;
  }

  private Origin origin() {
    return new Origin("n1", 1, now);
  }

  private Outcome apply(MetaStateMachine m, dev.loam.meta.command.Command c) {
    return m.apply(++index, c);
  }

  private WriterLease acquire(MetaStateMachine m, String holder, long leaseMillis) {
    Outcome o = apply(m, new AcquireWriterLease(origin(), 1L, 0, SRC, holder, leaseMillis));
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.WriterLeaseGranted.class);
    return ((Outcome.WriterLeaseGranted) o).lease();
  }

  /** A commit of one new object holding one fenced batch per {@code [from, to]} pair. */
  private CommitWal commit(long epoch, long[]... ranges) {
    List<BatchCommit> batches = new ArrayList<>();
    long offset = 0;
    for (long[] r : ranges) {
      int records = (int) Math.max(1, r[1] - r[0] + 1);
      batches.add(
          new BatchCommit(
              offset, 100, records, now, -1, (short) -1, -1, new Fence(SRC, epoch, r[0], r[1])));
      offset += 100;
    }
    return new CommitWal(
        origin(),
        "wal/standard/n1/o" + (objects++) + ".wal",
        now,
        offset,
        List.of(new ChunkCommit(1L, 0, batches)));
  }

  private static List<BatchStatus> statuses(Outcome o) {
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.WalCommitted.class);
    return ((Outcome.WalCommitted) o).chunks().get(0).stream().map(r -> r.status()).toList();
  }

  private static long hw(MetaStateMachine m) {
    return m.reader().partition(1L, 0).orElseThrow().highWatermark();
  }

  private static long upto(MetaStateMachine m) {
    return m.reader().writerLease(1L, 0, SRC).orElseThrow().sourceUpto();
  }

  @Example
  void aFirstLeaseStartsAtEpochOneWithNothingAppended() {
    MetaStateMachine m = fresh();
    WriterLease l = acquire(m, "worker-a", 10_000);
    assertThat(l.epoch()).isEqualTo(1);
    assertThat(l.sourceUpto()).isEqualTo(WriterLease.NOTHING);
    assertThat(l.expiresAtMillis()).isEqualTo(now + 10_000);
  }

  @Example
  void anOverlappingRetryAppendsOnlyWhatLiesBeyondTheSourcePosition() {
    MetaStateMachine m = fresh();
    long e = acquire(m, "worker-a", 10_000).epoch();
    assertThat(statuses(apply(m, commit(e, new long[] {0, 4}, new long[] {5, 9}))))
        .containsExactly(BatchStatus.APPENDED, BatchStatus.APPENDED);
    assertThat(hw(m)).isEqualTo(10);
    // The retry as a new object (its first answer was lost): the first two groups are there.
    Outcome o = apply(m, commit(e, new long[] {0, 4}, new long[] {5, 9}, new long[] {10, 12}));
    assertThat(statuses(o))
        .containsExactly(
            BatchStatus.ALREADY_APPENDED, BatchStatus.ALREADY_APPENDED, BatchStatus.APPENDED);
    assertThat(((Outcome.WalCommitted) o).chunks().get(0).get(2).baseOffset()).isEqualTo(10);
    assertThat(hw(m)).isEqualTo(13);
    assertThat(upto(m)).isEqualTo(12);
    // The index references only what was appended: two entries, offsets 0..9 and 10..12.
    assertThat(m.reader().indexEntries(1L, 0, 0, 10)).hasSize(2);
  }

  @Example
  void aRetryOfTheSameObjectIsDeduplicatedByItsKey() {
    MetaStateMachine m = fresh();
    long e = acquire(m, "worker-a", 10_000).epoch();
    CommitWal c = commit(e, new long[] {0, 2});
    Outcome first = apply(m, c);
    Outcome again = apply(m, c);
    assertThat(((Outcome.WalCommitted) again).deduplicated()).isTrue();
    assertThat(((Outcome.WalCommitted) again).chunks())
        .isEqualTo(((Outcome.WalCommitted) first).chunks());
    assertThat(hw(m)).isEqualTo(3);
  }

  @Example
  void aStaleWriterCannotAppend() {
    MetaStateMachine m = fresh();
    long old = acquire(m, "worker-a", 1_000).epoch();
    assertThat(statuses(apply(m, commit(old, new long[] {0, 0}))))
        .containsExactly(BatchStatus.APPENDED);
    now += 1_001; // the lease expires; worker-b takes a new term
    WriterLease b = acquire(m, "worker-b", 1_000);
    assertThat(b.epoch()).isEqualTo(old + 1);
    assertThat(b.sourceUpto()).isEqualTo(0);
    // The old term's writer, a zombie, tries to continue exactly where the source stands.
    assertThat(statuses(apply(m, commit(old, new long[] {1, 1}))))
        .containsExactly(BatchStatus.WRITER_FENCED);
    assertThat(hw(m)).isEqualTo(1);
    assertThat(statuses(apply(m, commit(b.epoch(), new long[] {1, 1}))))
        .containsExactly(BatchStatus.APPENDED);
    assertThat(hw(m)).isEqualTo(2);
  }

  @Example
  void anExpiredLeaseFencesEvenItsHolderUntilItAcquiresAgain() {
    MetaStateMachine m = fresh();
    long e = acquire(m, "worker-a", 1_000).epoch();
    now += 1_000;
    apply(m, new RenewNode(origin()));
    assertThat(statuses(apply(m, commit(e, new long[] {0, 0}))))
        .containsExactly(BatchStatus.WRITER_FENCED);
    assertThat(acquire(m, "worker-a", 1_000).epoch()).isEqualTo(e + 1);
  }

  @Example
  void aLiveLeaseOfAnotherHolderIsNotTakenOver() {
    MetaStateMachine m = fresh();
    acquire(m, "worker-a", 10_000);
    Outcome o = apply(m, new AcquireWriterLease(origin(), 1L, 0, SRC, "worker-b", 10_000));
    assertThat(o).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) o).reason()).isEqualTo(RejectReason.CONFLICT);
    assertThat(((Outcome.Rejected) o).message()).contains("holder=worker-a", "source=" + SRC);
    // The holder's own acquire renews at the same epoch: a retry after an unknown outcome.
    now += 5_000;
    WriterLease renewed = acquire(m, "worker-a", 10_000);
    assertThat(renewed.epoch()).isEqualTo(1);
    assertThat(renewed.expiresAtMillis()).isEqualTo(now + 10_000);
  }

  @Example
  void aGapOrAStraddlingBatchAppendsNothing() {
    MetaStateMachine m = fresh();
    long e = acquire(m, "worker-a", 10_000).epoch();
    apply(m, commit(e, new long[] {0, 4}));
    assertThat(statuses(apply(m, commit(e, new long[] {6, 7}))))
        .containsExactly(BatchStatus.SOURCE_GAP);
    assertThat(statuses(apply(m, commit(e, new long[] {3, 7}))))
        .containsExactly(BatchStatus.SOURCE_OVERLAP);
    assertThat(hw(m)).isEqualTo(5);
    assertThat(upto(m)).isEqualTo(4);
  }

  @Example
  void anAppendRenewsTheLease() {
    MetaStateMachine m = fresh();
    long e = acquire(m, "worker-a", 1_000).epoch();
    now += 900;
    apply(m, commit(e, new long[] {0, 0}));
    now += 900; // past the first expiry, within the renewed one
    assertThat(statuses(apply(m, commit(e, new long[] {1, 1}))))
        .containsExactly(BatchStatus.APPENDED);
  }

  @Example
  void badFencesAndLeasesAreRefusedNamingTheField() {
    MetaStateMachine m = fresh();
    Outcome bad = apply(m, new AcquireWriterLease(origin(), 1L, 0, "no spaces", "w", 1_000));
    assertThat(((Outcome.Rejected) bad).reason()).isEqualTo(RejectReason.INVALID);
    assertThat(((Outcome.Rejected) bad).message()).contains("source");
    Outcome missing = apply(m, new AcquireWriterLease(origin(), 1L, 9, SRC, "w", 1_000));
    assertThat(((Outcome.Rejected) missing).reason()).isEqualTo(RejectReason.NOT_FOUND);
    Outcome longLease =
        apply(
            m,
            new AcquireWriterLease(
                origin(), 1L, 0, SRC, "w", AcquireWriterLease.MAX_LEASE_MILLIS + 1));
    assertThat(((Outcome.Rejected) longLease).message()).contains("leaseMillis");
    long e = acquire(m, "w", 1_000).epoch();
    Outcome reversed = apply(m, commit(e, new long[] {5, 4}));
    assertThat(((Outcome.Rejected) reversed).reason()).isEqualTo(RejectReason.INVALID);
    assertThat(((Outcome.Rejected) reversed).message()).contains("sourceFrom=5", "sourceTo=4");
    CommitWal idempotent =
        new CommitWal(
            origin(),
            "wal/standard/n1/idem.wal",
            now,
            100,
            List.of(
                new ChunkCommit(
                    1L,
                    0,
                    List.of(
                        new BatchCommit(
                            0, 100, 1, now, 3, (short) 0, 0, new Fence(SRC, e, 0, 0))))));
    Outcome o = apply(m, idempotent);
    assertThat(((Outcome.Rejected) o).message()).contains("producerId=3");
    assertThat(hw(m)).isZero();
  }

  @Example
  void deletingTheStreamDropsItsWriterLeases() {
    MetaStateMachine m = fresh();
    acquire(m, "w", 1_000);
    apply(m, new DeleteStream(origin(), "default", "cl"));
    assertThat(m.writers().isDefault()).isTrue();
  }

  @Example
  void leasesAndPositionsSurviveASnapshotInVersion11() {
    MetaStateMachine m = fresh();
    assertThat(SnapshotFormat.versionFor(m)).isLessThan(11);
    long e = acquire(m, "worker-a", 10_000).epoch();
    apply(m, commit(e, new long[] {0, 4}));
    byte[] snap = m.snapshot();
    assertThat(SnapshotFormat.versionFor(m)).isEqualTo(11);
    MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(r.snapshot()).isEqualTo(snap);
    assertThat(r.reader().writerLease(1L, 0, SRC)).isEqualTo(m.reader().writerLease(1L, 0, SRC));
    assertThat(r.reader().writerLeases(1L, 0)).hasSize(1);
  }

  /**
   * Random fenced appends of a source of {@code n} positions by writers that crash (lose their
   * lease and resume from the source position in a new term), retry after unknown outcomes (the
   * same object again, or a new object covering the same range), cut their groups differently, and
   * race a zombie of an older term: the partition ends up holding every source position exactly
   * once, in order, and every answer is consistent with that.
   */
  @Property(tries = 200)
  void retriesAndCrashesNeverDoubleNorLose(@ForAll long seed) {
    Random rnd = new Random(seed);
    MetaStateMachine m = fresh();
    int n = 20 + rnd.nextInt(60);
    List<long[]> appended = new ArrayList<>(); // [from, to, baseOffset]
    List<CommitWal> sent = new ArrayList<>();
    int term = 0;
    WriterLease lease = acquire(m, "w" + term, 1_000);
    long zombieEpoch = -1;
    int steps = 0;
    while (upto(m) < n - 1 && steps++ < 2_000) {
      now += rnd.nextInt(50);
      int action = rnd.nextInt(10);
      if (action == 0) {
        // A crash: the lease lapses, a new worker (possibly the same id) takes the next term.
        zombieEpoch = lease.epoch();
        now += 1_001;
        lease = acquire(m, rnd.nextBoolean() ? "w" + term : "w" + (++term), 1_000);
        assertThat(lease.epoch()).isEqualTo(zombieEpoch + 1);
        continue;
      }
      if (action == 1 && !sent.isEmpty()) {
        // A retry of an earlier object with its key: deduplicated, the first answer again.
        CommitWal old = sent.get(rnd.nextInt(sent.size()));
        CommitWal again =
            new CommitWal(
                origin(), old.objectKey(), old.objectTimeMillis(), old.objectSize(), old.chunks());
        Outcome o = apply(m, again);
        assertThat(o).isInstanceOf(Outcome.WalCommitted.class);
        continue;
      }
      // The worker reads the position it resumes from, unless it retries stale knowledge.
      long from = upto(m) + 1;
      if (action == 2) {
        from = Math.max(0, from - 1 - rnd.nextInt(6)); // an overlapping retry
      }
      long epoch = lease.epoch();
      if (action == 3 && zombieEpoch > 0) {
        epoch = zombieEpoch; // a zombie of an older term
      }
      int groups = 1 + rnd.nextInt(4);
      List<long[]> ranges = new ArrayList<>();
      for (int g = 0; g < groups && from < n; g++) {
        long to = Math.min(n - 1, from + rnd.nextInt(4));
        ranges.add(new long[] {from, to});
        from = to + 1;
      }
      if (ranges.isEmpty()) {
        continue;
      }
      long uptoBefore = upto(m);
      long hwBefore = hw(m);
      CommitWal c = commit(epoch, ranges.toArray(long[][]::new));
      sent.add(c);
      List<Outcome.BatchResult> results = ((Outcome.WalCommitted) apply(m, c)).chunks().get(0);
      long expectUpto = uptoBefore;
      for (int i = 0; i < ranges.size(); i++) {
        long[] r = ranges.get(i);
        Outcome.BatchResult br = results.get(i);
        if (epoch != lease.epoch()) {
          assertThat(br.status()).isEqualTo(BatchStatus.WRITER_FENCED);
        } else if (r[1] <= expectUpto) {
          assertThat(br.status()).isEqualTo(BatchStatus.ALREADY_APPENDED);
        } else if (r[0] == expectUpto + 1) {
          assertThat(br.status()).isEqualTo(BatchStatus.APPENDED);
          appended.add(new long[] {r[0], r[1], br.baseOffset()});
          expectUpto = r[1];
        } else {
          assertThat(br.status()).isIn(BatchStatus.SOURCE_OVERLAP, BatchStatus.SOURCE_GAP);
        }
      }
      assertThat(upto(m)).isEqualTo(expectUpto);
      if (epoch == lease.epoch() && expectUpto > uptoBefore) {
        lease = m.reader().writerLease(1L, 0, SRC).orElseThrow();
      }
      assertThat(hw(m) - hwBefore).isEqualTo(expectUpto - uptoBefore);
      if (rnd.nextInt(20) == 0) {
        byte[] snap = m.snapshot();
        MetaStateMachine restored = MetaStateMachine.restore(snap, MetaSettings.defaults());
        assertThat(restored.snapshot()).isEqualTo(snap);
      }
    }
    assertThat(upto(m)).isEqualTo(n - 1);
    // Each source position once, in order, at consecutive offsets: none lost, none doubled.
    long expectFrom = 0;
    long expectOffset = 0;
    for (long[] a : appended) {
      assertThat(a[0]).isEqualTo(expectFrom);
      assertThat(a[2]).isEqualTo(expectOffset);
      expectOffset += a[1] - a[0] + 1;
      expectFrom = a[1] + 1;
    }
    assertThat(expectFrom).isEqualTo(n);
    assertThat(hw(m)).isEqualTo(n);
  }

  @Example
  void aGroupCarriesFencedMembersLikeSingleCommits() {
    MetaStateMachine m = fresh();
    long e = acquire(m, "w", 10_000).epoch();
    CommitWal a = commit(e, new long[] {0, 1});
    CommitWal b = commit(e, new long[] {0, 1}, new long[] {2, 2});
    Outcome o = apply(m, new CommitWalGroup(origin(), List.of(a, b)));
    List<Outcome> members = ((Outcome.WalGroupCommitted) o).members();
    assertThat(statuses(members.get(0))).containsExactly(BatchStatus.APPENDED);
    assertThat(statuses(members.get(1)))
        .containsExactly(BatchStatus.ALREADY_APPENDED, BatchStatus.APPENDED);
    assertThat(hw(m)).isEqualTo(3);
  }
}
