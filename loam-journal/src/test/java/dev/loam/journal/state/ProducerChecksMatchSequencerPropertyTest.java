package dev.loam.journal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The journal runs the metastore sequencer's idempotent-producer checks (docs/design/quorum.md
 * "Idempotent producers"): the same batches, one per commit, get the same answers and the same
 * offsets from both.
 */
class ProducerChecksMatchSequencerPropertyTest {
  /** One batch: producer id (-1 plain), epoch, base sequence, record count. */
  record B(long producerId, short epoch, int baseSequence, int count) {}

  /**
   * What a producer does next: 0–3 send its next batch, 4 retry one of its last 8 batches, 5 skip a
   * sequence, 6 bump its epoch, 7 send at an older epoch, 8 a plain batch.
   */
  record Action(int kind, int producer, int back, int count) {}

  @Provide
  static Arbitrary<List<Action>> actions() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 8),
            Arbitraries.integers().between(0, 1),
            Arbitraries.integers().between(0, 7),
            Arbitraries.integers().between(1, 3))
        .as(Action::new)
        .list()
        .ofMaxSize(80);
  }

  /** Turns actions into batches the way real (and misbehaving) producers send them. */
  static List<B> batches(List<Action> actions) {
    List<B> out = new ArrayList<>();
    short[] epoch = new short[2];
    // Producer 1 starts near the sequence wrap.
    int[] next = {0, Integer.MAX_VALUE - 4};
    List<List<B>> sent = List.of(new ArrayList<>(), new ArrayList<>());
    for (Action a : actions) {
      int p = a.producer();
      List<B> mine = sent.get(p);
      B b;
      switch (a.kind()) {
        case 4 -> {
          if (mine.isEmpty()) {
            continue;
          }
          b = mine.get(Math.max(0, mine.size() - 1 - a.back()));
        }
        case 5 -> b = new B(p, epoch[p], seqPlus(next[p], 1), a.count());
        case 6 -> {
          epoch[p]++;
          next[p] = 0;
          mine.clear();
          b = new B(p, epoch[p], 0, a.count());
          next[p] = seqPlus(0, a.count());
          mine.add(b);
        }
        case 7 -> {
          if (epoch[p] == 0) {
            continue;
          }
          b = new B(p, (short) (epoch[p] - 1), next[p], a.count());
        }
        case 8 -> b = new B(-1, (short) -1, -1, a.count());
        default -> {
          b = new B(p, epoch[p], next[p], a.count());
          next[p] = seqPlus(next[p], a.count());
          mine.add(b);
        }
      }
      out.add(b);
    }
    return out;
  }

  static int seqPlus(int seq, int n) {
    return (int) (((long) seq + n) % (1L + Integer.MAX_VALUE));
  }

  @Property(tries = 300)
  void sameAnswersAsTheSequencer(@ForAll("actions") List<Action> actions) {
    List<B> batches = batches(actions);
    MetaStateMachine meta = new MetaStateMachine(MetaSettings.defaults());
    long t = Batches.T0;
    long index = 0;
    Origin o = new Origin("n1", 1, t);
    meta.apply(++index, new RegisterNode(o, "h:1", 1, "z"));
    Outcome created =
        meta.apply(++index, new CreateStream(o, "default", "s", StreamConfig.standard(1)));
    long streamId = ((Outcome.StreamCreated) created).stream().id();
    JournalState journal = new JournalState(1 << 26);
    journal.apply(new JournalEntry.Host(streamId, 0, 0));

    int n = 0;
    for (B b : batches) {
      n++;
      byte[] bytes = Batches.batch(b.producerId(), b.epoch(), b.baseSequence(), "v", b.count());
      JournalResult j = journal.apply(new JournalEntry.Append(streamId, 0, bytes));
      Outcome m =
          meta.apply(
              ++index,
              new CommitWal(
                  new Origin("n1", 1, t),
                  "wal/o" + n,
                  t,
                  bytes.length,
                  List.of(
                      new CommitWal.ChunkCommit(
                          streamId,
                          0,
                          List.of(
                              new CommitWal.BatchCommit(
                                  0,
                                  bytes.length,
                                  b.count(),
                                  t,
                                  b.producerId(),
                                  b.epoch(),
                                  b.baseSequence()))))));
      Outcome.BatchResult r = ((Outcome.WalCommitted) m).chunks().get(0).get(0);
      String expected =
          switch (r.status()) {
            case APPENDED -> "APPENDED@" + r.baseOffset();
            case DUPLICATE -> "DUPLICATE@" + r.baseOffset();
            default -> r.status().name();
          };
      assertThat(describe(j)).as("batch %s: %s", n, b).isEqualTo(expected);
    }
  }

  private static String describe(JournalResult r) {
    if (r instanceof JournalResult.Appended a) {
      return "APPENDED@" + a.baseOffset();
    }
    if (r instanceof JournalResult.Duplicate d) {
      return "DUPLICATE@" + d.baseOffset();
    }
    return ((JournalResult.Rejected) r).reason().name();
  }
}
