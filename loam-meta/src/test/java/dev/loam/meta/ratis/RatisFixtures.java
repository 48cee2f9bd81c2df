package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import java.time.InstantSource;
import java.util.List;

/** Commands and checks shared by the Ratis integration tests. */
public final class RatisFixtures {
  public static final long START_MILLIS = 1_780_000_000_000L;

  private RatisFixtures() {}

  /** Registers node n1 at epoch 1 and creates a one-partition stream; returns its id. */
  public static long setUp(Metastore ms, InstantSource clock) {
    Origin o = new Origin("n1", 1, clock.millis());
    assertThat(RatisTestCluster.get(ms.propose(new RegisterNode(o, "h:1", 1, "z"))).outcome())
        .isInstanceOf(Outcome.NodeRegistered.class);
    Outcome created =
        RatisTestCluster.get(
                ms.propose(new CreateStream(o, "default", "s", StreamConfig.standard(1))))
            .outcome();
    assertThat(created).isInstanceOf(Outcome.StreamCreated.class);
    return ((Outcome.StreamCreated) created).stream().id();
  }

  /** A one-record commit of object {@code key} to partition 0. */
  public static CommitWal commit(long streamId, String key, InstantSource clock) {
    return new CommitWal(
        new Origin("n1", 1, clock.millis()),
        key,
        clock.millis(),
        1 << 20,
        List.of(
            new ChunkCommit(
                streamId,
                0,
                List.of(new BatchCommit(0, 100, 1, clock.millis(), -1, (short) -1, -1)))));
  }

  /** Proposes and returns the single batch's offset. */
  public static Applied commitOne(Metastore ms, long streamId, String key, InstantSource clock) {
    Applied a = RatisTestCluster.get(ms.propose(commit(streamId, key, clock)));
    assertThat(a.outcome()).as(a.outcome().toString()).isInstanceOf(Outcome.WalCommitted.class);
    return a;
  }

  public static long offsetOf(Applied a) {
    return ((Outcome.WalCommitted) a.outcome()).chunks().get(0).get(0).baseOffset();
  }

  public static List<IndexEntry> entries(Metastore ms, long streamId) {
    return ms.read((MetaReader r) -> r.indexEntries(streamId, 0, 0, 100_000));
  }

  public static long highWatermark(Metastore ms, long streamId) {
    return ms.read((MetaReader r) -> r.partition(streamId, 0)).orElseThrow().highWatermark();
  }
}
