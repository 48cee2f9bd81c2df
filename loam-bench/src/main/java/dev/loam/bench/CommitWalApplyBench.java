package dev.loam.bench;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The sequencer's cost: one CommitWal of {@code chunks} partitions (one batch each) decoded and
 * applied in the state machine, and an offset-index lookup in a partition of 100 000 entries.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CommitWalApplyBench {
  @Param({"1", "10", "100", "1000"})
  public int chunks;

  private MetaStateMachine machine;
  private long index;
  private long objects;
  private List<ChunkCommit> chunkList;
  private MetaStateMachine lookupMachine;
  private long lookupStreamId;

  @Setup(Level.Iteration)
  public void setUp() {
    machine = new MetaStateMachine(MetaSettings.defaults());
    index = 0;
    Origin o = new Origin("bench", 1, 1_000);
    machine.apply(++index, new RegisterNode(o, "", 1, ""));
    machine.apply(++index, new CreateNamespace(o, "ns"));
    Outcome.StreamCreated s =
        (Outcome.StreamCreated)
            machine.apply(++index, new CreateStream(o, "ns", "s", StreamConfig.standard(1000)));
    chunkList = new ArrayList<>();
    for (int p = 0; p < chunks; p++) {
      chunkList.add(
          new ChunkCommit(
              s.stream().id(),
              p,
              List.of(new BatchCommit(p * 2000L, 2000, 10, 1_000, -1, (short) -1, -1))));
    }
    lookupMachine = new MetaStateMachine(MetaSettings.defaults());
    long li = 0;
    lookupMachine.apply(++li, new RegisterNode(o, "", 1, ""));
    lookupMachine.apply(++li, new CreateNamespace(o, "ns"));
    lookupStreamId =
        ((Outcome.StreamCreated)
                lookupMachine.apply(++li, new CreateStream(o, "ns", "s", StreamConfig.standard(1))))
            .stream().id();
    for (int i = 0; i < 100_000; i++) {
      lookupMachine.apply(
          ++li,
          new CommitWal(
              o,
              "wal/standard/bench/" + i + ".wal",
              1_000,
              2000,
              List.of(
                  new ChunkCommit(
                      lookupStreamId,
                      0,
                      List.of(new BatchCommit(0, 2000, 10, 1_000, -1, (short) -1, -1))))));
    }
  }

  @Benchmark
  public Outcome applyCommit() {
    CommitWal c =
        new CommitWal(
            new Origin("bench", 1, 1_000),
            "wal/standard/bench/" + (objects++) + ".wal",
            1_000,
            chunks * 2000L,
            chunkList);
    // Decode as a replica would, then apply.
    return machine.apply(++index, (CommitWal) CommandCodec.decode(CommandCodec.encode(c)));
  }

  @Benchmark
  public List<IndexEntry> indexLookup() {
    return lookupMachine.reader().indexEntries(lookupStreamId, 0, 573_210, 16);
  }
}
