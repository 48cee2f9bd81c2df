package dev.loam.bench.scale;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The metastore at scale, in one process and without Ratis: a state machine holding {@code
 * partitions} partitions (streams of {@code per-stream} partitions, each partition with one
 * committed batch in its offset index), its live heap per partition, the size of its snapshot and
 * the time to take and to load it, and the apply rate of WAL commits (CommitWal and CommitWalGroup,
 * decoded as a replica decodes them) into that state, in chunks per second of the applying thread's
 * CPU. A main(), not a test (docs/operations/performance.md "Scale"):
 *
 * <pre>
 * java -Xms4g -Xmx4g -cp "loam-bench/target/classes:loam-bench/target/lib/*" \
 *     dev.loam.bench.scale.MetastoreScaleBench [partitions=100000] [per-stream=1000] [rounds=5] \
 *     [apply-chunks=400000]
 * </pre>
 */
public final class MetastoreScaleBench {
  private MetastoreScaleBench() {}

  /** One apply-rate variant: {@code members} objects per proposal of {@code chunks} chunks each. */
  private record Shape(int members, int chunks) {
    String label() {
      return members == 1
          ? "CommitWal of " + chunks + " chunk(s)"
          : "CommitWalGroup of " + members + " x " + chunks + " chunks";
    }
  }

  public static void main(String[] args) {
    Args a = Args.parse(args);
    int partitions = a.integer("partitions", 100_000);
    int perStream = a.integer("per-stream", 1_000);
    int rounds = a.integer("rounds", 5);
    int applyChunks = a.integer("apply-chunks", 400_000);
    a.done();
    if (partitions % perStream != 0) {
      throw new IllegalArgumentException(
          "partitions must be a multiple of per-stream partitions="
              + partitions
              + " per-stream="
              + perStream);
    }
    int streams = partitions / perStream;

    long before = ScaleFixtures.liveHeapBytes();
    Filled filled = fill(streams, perStream);
    long after = ScaleFixtures.liveHeapBytes();
    System.out.printf(
        Locale.ROOT,
        "state machine: %d partitions (%d streams x %d), one index entry each, filled in %.2f s;"
            + " live heap %.1f MiB -> %.1f MiB: %.0f bytes per partition%n",
        partitions,
        streams,
        perStream,
        filled.fillNanos / 1e9,
        before / 1048576.0,
        after / 1048576.0,
        (after - before) / (double) partitions);

    double[] takeMs = new double[rounds];
    double[] loadMs = new double[rounds];
    byte[] snapshot = null;
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      snapshot = filled.machine.snapshot();
      takeMs[r] = (System.nanoTime() - t0) / 1e6;
      long t1 = System.nanoTime();
      MetaStateMachine restored = MetaStateMachine.restore(snapshot, MetaSettings.defaults());
      loadMs[r] = (System.nanoTime() - t1) / 1e6;
      if (restored.appliedIndex() != filled.machine.appliedIndex()) {
        throw new IllegalStateException("the restored snapshot lost entries");
      }
    }
    System.out.printf(
        Locale.ROOT,
        "snapshot: %d bytes (%.1f MB, %.0f bytes per partition); median [min..max] of %d: take %s"
            + " ms, load %s ms%n",
        snapshot.length,
        snapshot.length / 1e6,
        snapshot.length / (double) partitions,
        rounds,
        ScaleFixtures.spread(takeMs, "%.0f"),
        ScaleFixtures.spread(loadMs, "%.0f"));

    // Only shapes whose objects fit a stream's partitions evenly (each object's chunks are
    // distinct partitions of one stream).
    List<Shape> shapes =
        Stream.of(new Shape(1, 1), new Shape(1, 100), new Shape(1, perStream), new Shape(8, 125))
            .filter(sh -> sh.chunks <= perStream && perStream % sh.chunks == 0)
            .distinct()
            .toList();
    double[][] perCore = new double[shapes.size()][rounds];
    double[][] wall = new double[shapes.size()][rounds];
    filled = null; // only the snapshot is needed from here on
    for (int r = 0; r < rounds; r++) { // interleaved: round r of every shape, then round r+1
      for (int s = 0; s < shapes.size(); s++) {
        double[] rate = applyRate(snapshot, streams, perStream, shapes.get(s), applyChunks, r);
        perCore[s][r] = rate[0];
        wall[s][r] = rate[1];
      }
    }
    for (int s = 0; s < shapes.size(); s++) {
      System.out.printf(
          Locale.ROOT,
          "apply %s into %d partitions, median [min..max] of %d: %s chunks/s per core (thread"
              + " CPU); wall %s chunks/s%n",
          shapes.get(s).label(),
          partitions,
          rounds,
          ScaleFixtures.spread(perCore[s], "%.0f"),
          ScaleFixtures.spread(wall[s], "%.0f"));
    }
  }

  /** The filled state machine, the stream ids it holds and the time filling it took. */
  private record Filled(MetaStateMachine machine, long[] streamIds, long fillNanos) {}

  /**
   * A state machine with {@code streams} streams of {@code perStream} partitions, one entry each.
   */
  static Filled fill(int streams, int perStream) {
    long t0 = System.nanoTime();
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    long index = 0;
    long now = System.currentTimeMillis();
    expect(m.apply(++index, new RegisterNode(ScaleFixtures.origin(now), "h:1", 1, "z")));
    expect(m.apply(++index, new CreateNamespace(ScaleFixtures.origin(now), "scale")));
    long[] ids = new long[streams];
    for (int s = 0; s < streams; s++) {
      Outcome o =
          m.apply(
              ++index,
              new CreateStream(
                  ScaleFixtures.origin(now), "scale", "s" + s, StreamConfig.standard(perStream)));
      ids[s] = ((Outcome.StreamCreated) expect(o)).stream().id();
      expect(m.apply(++index, ScaleFixtures.object("wal/fill/" + s, now, ids[s], 0, perStream)));
    }
    return new Filled(m, ids, System.nanoTime() - t0);
  }

  /**
   * Restores {@code snapshot}, then applies about {@code totalChunks} chunks in proposals of the
   * given shape, each encoded and decoded first as a replica receives it; returns {chunks per CPU
   * second of this thread, chunks per wall second}.
   */
  private static double[] applyRate(
      byte[] snapshot, int streams, int perStream, Shape shape, int totalChunks, int round) {
    MetaStateMachine m = MetaStateMachine.restore(snapshot, MetaSettings.defaults());
    long[] ids = streamIds(m, streams);
    int perProposal = shape.members * shape.chunks;
    int proposals = Math.max(1, totalChunks / perProposal);
    // Build the commands first so that only encode, decode and apply are timed.
    List<Command> commands = new ArrayList<>(proposals);
    long now = System.currentTimeMillis();
    int object = 0;
    int slotsPerStream = perStream / shape.chunks;
    for (int p = 0; p < proposals; p++) {
      List<CommitWal> members = new ArrayList<>(shape.members);
      for (int k = 0; k < shape.members; k++, object++) {
        int stream = object % streams;
        int first = ((object / streams) % slotsPerStream) * shape.chunks;
        members.add(
            ScaleFixtures.object(
                "wal/apply/" + round + "/" + object, now, ids[stream], first, shape.chunks));
      }
      commands.add(
          shape.members == 1
              ? members.get(0)
              : new CommitWalGroup(ScaleFixtures.origin(now), members));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long index = m.appliedIndex();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    for (Command c : commands) {
      expect(m.apply(++index, CommandCodec.decode(CommandCodec.encode(c))));
    }
    long wallNanos = System.nanoTime() - t0;
    long cpuNanos = threads.getCurrentThreadCpuTime() - cpu0;
    long chunks = (long) proposals * perProposal;
    return new double[] {chunks / (cpuNanos / 1e9), chunks / (wallNanos / 1e9)};
  }

  private static long[] streamIds(MetaStateMachine m, int streams) {
    long[] ids = new long[streams];
    for (int s = 0; s < streams; s++) {
      String name = "s" + s;
      ids[s] =
          m.reader().stream("scale", name)
              .orElseThrow(() -> new IllegalStateException("snapshot lacks stream " + name))
              .id();
    }
    return ids;
  }

  /** {@code o}, or an exception naming it if it is a refusal (also inside a group). */
  static Outcome expect(Outcome o) {
    if (o instanceof Outcome.Rejected r) {
      throw new IllegalStateException("the metastore refused a bench command: " + r);
    }
    if (o instanceof Outcome.WalGroupCommitted g) {
      g.members().forEach(MetastoreScaleBench::expect);
    }
    if (o instanceof Outcome.WalCommitted w && w.deduplicated()) {
      throw new IllegalStateException("a bench object was taken for a duplicate");
    }
    return o;
  }
}
