package dev.loam.meta.ratis;

import dev.loam.meta.Applied;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.MetastoreContractTest;
import dev.loam.meta.command.Command;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The conformance kit on a 3-voter Ratis group over loopback. Proposals go through the first
 * member; reads rotate over all members, each first waiting for the last proposal's index (the
 * consistency token), so every read-your-writes in the kit also crosses replicas. Watches
 * (listeners, awaitApplied) are on the second member, which never proposes. Methods run three at a
 * time (each on its own group, directory and ports): a group spends most of its life waiting for an
 * election and for Ratis to close.
 */
@Execution(ExecutionMode.CONCURRENT)
class RatisMetastoreContractIT extends MetastoreContractTest {
  @TempDir Path dir;
  private ExecutorService executor;
  private RatisTestCluster cluster;

  @Override
  protected Metastore open(MetaSettings settings, InstantSource clock) {
    executor = Executors.newFixedThreadPool(4);
    cluster = RatisTestCluster.start(dir, 3, settings, clock, executor, b -> b);
    return new ClusterView(cluster.members());
  }

  @Override
  protected void cleanUp() {
    if (cluster != null) {
      cluster.close();
    }
    executor.shutdownNow();
  }

  /** One metastore as the kit sees it, spread over the members of the group. */
  private static final class ClusterView implements Metastore {
    private final List<RatisMetastore> members;
    private final RatisMetastore proposer;
    private final RatisMetastore watcher;
    private final AtomicLong token = new AtomicLong();
    private final AtomicInteger nextReader = new AtomicInteger();

    ClusterView(List<RatisMetastore> members) {
      this.members = members;
      this.proposer = members.get(0);
      this.watcher = members.get(1);
    }

    @Override
    public CompletableFuture<Applied> propose(Command command) {
      return proposer
          .propose(command)
          .thenApply(
              a -> {
                token.accumulateAndGet(a.index(), Math::max);
                return a;
              });
    }

    @Override
    public <T> T read(Function<MetaReader, T> query) {
      RatisMetastore m = members.get(Math.floorMod(nextReader.getAndIncrement(), members.size()));
      RatisTestCluster.get(m.awaitApplied(token.get()));
      return m.read(query);
    }

    @Override
    public long appliedIndex() {
      return proposer.appliedIndex();
    }

    @Override
    public CompletableFuture<Void> awaitApplied(long index) {
      return watcher.awaitApplied(index);
    }

    @Override
    public void addApplyListener(ApplyListener listener) {
      watcher.addApplyListener(listener);
    }

    @Override
    public void close() {
      RatisTestCluster.closeAll(members);
    }
  }
}
