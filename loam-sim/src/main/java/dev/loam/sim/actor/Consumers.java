package dev.loam.sim.actor;

import dev.loam.api.Log;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.error.LoamException.Kind;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimStream;
import dev.loam.sim.check.Checker;
import dev.loam.sim.check.ConsumerOffsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The named consumers (stream-engine.txt §7), each ticking every 100–400 ms: it takes the lease
 * under its holder name, fetches from its position and commits the next offset; owner-bound calls
 * that answer NOT_OWNER are sent once more to the named owner (what an HTTP client does with the
 * 307). A FENCED commit makes it take the lease again and resume from the committed offset; an
 * OffsetOutOfRange moves it to the log start (retention).
 *
 * <p>What each consumer was told is committed is judged by {@link ConsumerOffsets}.
 */
public final class Consumers {
  /**
   * A named consumer (stream-engine.txt §7) as a client process colocated with one node: it takes
   * the lease, reads from its position and commits; when its node crashes it restarts on another
   * node under a new holder name and resumes from the committed offset.
   */
  private static final class Consumer {
    final String name;
    final SimStream stream;
    final int partition;
    final long leaseMillis;
    SimCluster.Node host;
    int hostIncarnation;
    int instance;
    String holder;
    long generation = -1;
    long position;
    boolean busy;

    Consumer(String name, SimStream stream, int partition, long leaseMillis) {
      this.name = name;
      this.stream = stream;
      this.partition = partition;
      this.leaseMillis = leaseMillis;
    }
  }

  private final SimContext ctx;
  private final SimCluster cluster;
  private final SplittableRandom workRandom;
  private final List<SimStream> streams;
  private final Checker checker;
  private final ConsumerOffsets offsets;
  private final List<Consumer> consumers = new ArrayList<>();
  private long endNanos;

  /**
   * @param workRandom the workload's stream, shared with the other clients in draw order
   */
  public Consumers(
      SimContext ctx,
      SimCluster cluster,
      SplittableRandom workRandom,
      List<SimStream> streams,
      Checker checker,
      ConsumerOffsets offsets) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.workRandom = workRandom;
    this.streams = streams;
    this.checker = checker;
    this.offsets = offsets;
  }

  /** Adds {@code count} consumers, each on a partition and with a lease of 2–4 s drawn now. */
  public void create(int count) {
    for (int c = 0; c < count; c++) {
      SimStream st = streams.get(workRandom.nextInt(streams.size()));
      Consumer k =
          new Consumer(
              "c" + c, st, workRandom.nextInt(st.partitions()), 2_000 + workRandom.nextInt(2_000));
      consumers.add(k);
      offsets.track(k.name, st, k.partition);
      ctx.planned(
          "consumer "
              + k.name
              + " on "
              + st.name()
              + "/"
              + k.partition
              + " lease="
              + k.leaseMillis);
    }
  }

  /** Schedules every consumer's first tick; none ticks at or after {@code endNanos}. */
  public void start(long endNanos) {
    this.endNanos = endNanos;
    consumers.forEach(c -> scheduleTick(c));
  }

  private void scheduleTick(Consumer c) {
    ctx.scheduler().schedule(() -> tick(c), 100 + workRandom.nextInt(300), TimeUnit.MILLISECONDS);
  }

  private void tick(Consumer c) {
    if (ctx.clock().nanos() >= endNanos) {
      return;
    }
    scheduleTick(c);
    if (c.busy) {
      return;
    }
    if (c.host == null
        || c.host.node() == null
        || c.host.incarnation() != c.hostIncarnation
        || c.host.leaving()) {
      // The consumer's process died with its node: a new instance starts on another node.
      SimCluster.Node h = cluster.liveNode();
      if (h == null) {
        return;
      }
      c.host = h;
      c.hostIncarnation = h.incarnation();
      c.instance++;
      c.holder = c.name + "-i" + c.instance;
      c.generation = -1;
      ctx.count("consumer.instances");
      ctx.trace().add("consumer " + c.name + " instance " + c.instance + " on " + h.id());
    }
    if (c.host.process().paused()) {
      return;
    }
    int inst = c.instance;
    c.busy = true;
    ctx.opStarted();
    CompletableFuture<?> op = c.generation < 0 ? acquire(c) : consume(c);
    op.whenComplete(
        (v, e) -> {
          ctx.opDone();
          if (c.instance == inst) {
            c.busy = false;
          }
        });
  }

  /** Calls an owner-bound operation; a NOT_OWNER answer is followed once to the owner (a 307). */
  private <T> CompletableFuture<T> ownerBound(
      SimCluster.Node via, Function<Log, CompletableFuture<T>> call) {
    return call.apply(via.node().log())
        .exceptionallyCompose(
            e -> {
              Throwable t =
                  e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
              if (t instanceof NotOwnerException no) {
                SimCluster.Node owner = cluster.byId(no.ownerNodeId());
                if (owner != null && owner.running()) {
                  ctx.count("consumer.redirects");
                  return call.apply(owner.node().log());
                }
              }
              return CompletableFuture.failedFuture(t);
            });
  }

  private CompletableFuture<?> acquire(Consumer c) {
    int inst = c.instance;
    return ownerBound(
            c.host,
            l ->
                l.acquireConsumerLease(
                    SimContext.NS,
                    c.name,
                    c.stream.name(),
                    c.partition,
                    c.holder,
                    Duration.ofMillis(c.leaseMillis)))
        .whenComplete(
            (st, e) -> {
              if (c.instance != inst) {
                return;
              }
              if (e != null) {
                ctx.count("consumer.acquireFailed." + SimContext.kind(e));
                return;
              }
              c.generation = st.generation();
              long committed = st.committedOffset().orElse(-1);
              offsets.resumed(c.name, committed);
              c.position = Math.max(committed, 0);
              ctx.count("consumer.resumes");
              ctx.trace()
                  .add(
                      "consumer "
                          + c.name
                          + " holds gen="
                          + c.generation
                          + " resumes at "
                          + c.position);
            });
  }

  private CompletableFuture<?> consume(Consumer c) {
    int inst = c.instance;
    long from = c.position;
    return c.host
        .node()
        .log()
        .fetch(SimContext.NS, c.stream.name(), c.partition, from, 4096, Duration.ZERO)
        .handle(
            (r, e) -> {
              if (c.instance != inst) {
                return CompletableFuture.completedFuture(null);
              }
              if (e != null) {
                jumpIfOutOfRange(c, e);
                return CompletableFuture.completedFuture(null);
              }
              checker.checkFetch(
                  new Checker.Part(c.stream.name(), c.partition), from, r, "consumer " + c.name);
              if (r.records().isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              long next = r.nextOffset();
              return ownerBound(
                      c.host,
                      l ->
                          l.commitConsumerOffset(
                              SimContext.NS,
                              c.name,
                              c.stream.name(),
                              c.partition,
                              c.generation,
                              next))
                  .whenComplete(
                      (st, ce) -> {
                        if (c.instance != inst) {
                          return;
                        }
                        if (ce != null) {
                          Kind k = SimContext.kind(ce);
                          ctx.count("consumer.commitFailed." + k);
                          if (k == Kind.FENCED) {
                            c.generation = -1;
                          }
                          jumpIfOutOfRange(c, ce);
                          return;
                        }
                        ctx.count("consumer.commits");
                        ctx.trace()
                            .add(
                                "consumer "
                                    + c.name
                                    + " committed "
                                    + next
                                    + " gen="
                                    + c.generation);
                        offsets.acknowledged(c.name, next);
                        c.position = next;
                      });
            })
        .thenCompose(f -> f);
  }

  private void jumpIfOutOfRange(Consumer c, Throwable e) {
    if (SimContext.unwrap(e) instanceof OffsetOutOfRangeException o
        && c.position < o.logStartOffset()) {
      ctx.count("consumer.skippedTrimmed");
      c.position = o.logStartOffset();
    }
  }
}
