package dev.loam.test;

import dev.loam.api.LoamNode;
import dev.loam.api.StreamDescription;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.test.ClusterRuntime.Member;
import dev.loam.test.LoamTestCluster.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The waits of a {@link LoamTestCluster}: for a leader every replica agrees on, for the replicas to
 * catch up, for a token or a stream to be visible on every node. Each is bounded by the cluster's
 * timeout and fails with {@link LoamTestClusterException} naming what it waited for.
 */
final class ClusterWaits {
  private final ClusterConfig config;
  private final List<Member> members;
  private final Supplier<EmbeddedMetastore> shared;

  ClusterWaits(ClusterConfig config, List<Member> members, Supplier<EmbeddedMetastore> shared) {
    this.config = config;
    this.members = members;
    this.shared = shared;
  }

  int leader() {
    if (config.mode() != Mode.RATIS) {
      throw new IllegalStateException("a " + config.mode() + " cluster has no metastore leader");
    }
    return awaitAgreedLeader().index;
  }

  /**
   * The member whose replica leads, once every running replica names it as leader. Polls (every few
   * milliseconds, within the timeout): an election has no event a caller could wait on.
   */
  Member awaitAgreedLeader() {
    long deadline = System.nanoTime() + config.timeout().toNanos();
    while (true) {
      Member leader = agreedLeader();
      if (leader != null) {
        return leader;
      }
      if (System.nanoTime() > deadline) {
        throw new LoamTestClusterException(
            "no metastore leader known to every running replica within " + config.timeout());
      }
      java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
    }
  }

  private Member agreedLeader() {
    String agreed = null;
    for (Member m : members) {
      RatisMetastore r = m.replica;
      if (r == null) {
        continue;
      }
      String id = r.leaderId().orElse(null);
      if (id == null || (agreed != null && !agreed.equals(id))) {
        return null;
      }
      agreed = id;
    }
    for (Member m : members) {
      RatisMetastore r = m.replica;
      if (m.id.equals(agreed) && r != null && r.isLeader()) {
        return m;
      }
    }
    return null;
  }

  /** Every running replica applies everything committed before the call. */
  void awaitInSync() {
    if (config.mode() != Mode.RATIS) {
      return; // one metastore: what it committed, it applied
    }
    List<CompletableFuture<Long>> reads = new ArrayList<>();
    List<Member> asked = new ArrayList<>();
    for (Member m : members) {
      RatisMetastore r = m.replica;
      if (r != null) {
        reads.add(r.readLinearizable(v -> v.appliedIndex()));
        asked.add(m);
      }
    }
    for (int i = 0; i < reads.size(); i++) {
      await(reads.get(i), "replica " + asked.get(i).id + " to catch up with the leader");
    }
  }

  void awaitApplied(long token) {
    if (token < 0) {
      throw new IllegalArgumentException("a consistency token is >= 0: " + token);
    }
    if (config.mode() != Mode.RATIS) {
      await(shared.get().awaitApplied(token), "the metastore to apply index " + token);
      return;
    }
    for (Member m : members) {
      RatisMetastore r = m.replica;
      if (r != null) {
        await(r.awaitApplied(token), "replica " + m.id + " to apply index " + token);
      }
    }
  }

  StreamDescription awaitVisible(String namespace, String stream) {
    awaitInSync();
    StreamDescription last = null;
    for (Member m : members) {
      LoamNode n = m.node;
      if (n != null) {
        last =
            await(
                n.log().describeStream(namespace, stream),
                "stream namespace=" + namespace + " stream=" + stream + " on node " + m.id);
      }
    }
    if (last == null) {
      throw new IllegalStateException("no node is running");
    }
    return last;
  }

  <T> T await(CompletableFuture<T> f, String what) {
    try {
      return f.get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LoamTestClusterException("interrupted waiting for " + what, e);
    } catch (TimeoutException e) {
      throw new LoamTestClusterException(
          "timed out after " + config.timeout() + " waiting for " + what, e);
    } catch (ExecutionException e) {
      throw new LoamTestClusterException(
          "failed waiting for " + what + ": " + e.getCause(), e.getCause());
    }
  }
}
