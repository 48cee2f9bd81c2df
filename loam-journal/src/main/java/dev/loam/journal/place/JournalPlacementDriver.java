package dev.loam.journal.place;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.JournalGroup;
import dev.loam.journal.ratis.Journals;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.NodeInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Makes one node's {@link Journals} follow the metastore's journal placement (docs/design/quorum.md
 * "Placement"), driven from outside: each {@link #poll()} hosts every placed journal that names
 * this node as a replica (its replicas' addresses are their {@value #ENDPOINT} endpoints in the
 * node registry), and, on the journals this node leads, proposes a {@code HOST} for every assigned
 * partition the journal does not host yet. A journal whose replicas have not all advertised a
 * journal endpoint waits for a later pass. Work per pass is bounded by the placement: one host call
 * per journal, one proposal per assigned partition.
 *
 * <p>A journal whose partitions carry a placement hint has its leader moved to the hinted replica
 * (docs/design/quorum.md "Leader transfer"): on a journal this node leads, when the hint names
 * another live replica or a zone this node is not in but a live replica is, the pass asks Ratis to
 * transfer leadership there, once the leader heard from that replica within the last second. The
 * transfer runs in the background (at most one per journal at a time); one that fails waits {@value
 * #TRANSFER_BACKOFF_PASSES} passes before the next attempt, so an unreachable target is not asked
 * again at every pass. Since each pass looks again, the leader returns to the hinted replica after
 * a failover, once that replica is live.
 *
 * <p>Not thread-safe: one driver calls {@link #poll()}, waiting for each pass before the next.
 */
public final class JournalPlacementDriver {
  /** The node endpoint name under which a node advertises its journal port. */
  public static final String ENDPOINT = dev.loam.spi.quorum.QuorumHost.ENDPOINT;

  /** Passes to wait after a failed leadership transfer before asking again (5 s at 100 ms). */
  public static final int TRANSFER_BACKOFF_PASSES = 50;

  /**
   * How long one leadership transfer may take before it counts as failed. The leader refuses new
   * appends while it hands over (they are sent again, see JournalServer), so this is kept short.
   */
  static final java.time.Duration TRANSFER_TIMEOUT = java.time.Duration.ofSeconds(2);

  /**
   * A transfer goes only to a replica the leader heard from this recently: the metastore may still
   * count a node that just died as live, and while a transfer is pending the leader refuses new
   * entries.
   */
  static final java.time.Duration TARGET_HEARD_WITHIN = java.time.Duration.ofSeconds(1);

  private final Metastore metastore;
  private final Journals server;

  /** Journal → its leadership transfer in flight. */
  private final Map<String, CompletableFuture<Void>> transfers =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Journal → the first pass at which a transfer may be asked again, after a failed one. */
  private final Map<String, Long> transferNotBefore =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Passes so far; written by the polling thread only, read when a transfer fails. */
  private volatile long passes;

  /** This node's origin for the metastore commands of moves, or null: moves are not driven. */
  private final java.util.function.Supplier<dev.loam.meta.command.Origin> origin;

  /** The sealer of a journal this node hosts, or null while it has none. */
  private final java.util.function.Function<String, dev.loam.journal.seal.JournalSealer> sealers;

  /** A driver that hosts journals and partitions and follows hints, but drives no moves. */
  public JournalPlacementDriver(Metastore metastore, Journals server) {
    this(metastore, server, null, j -> null);
  }

  /**
   * A driver that also moves partitions away from the journals this node leads (see {@link
   * JournalPartitionMoves}).
   *
   * @param origin this node's origin, stamped on the metastore commands it proposes
   * @param sealers the sealer of a journal (null while there is none), which seals a moving
   *     partition's tail
   */
  public JournalPlacementDriver(
      Metastore metastore,
      Journals server,
      java.util.function.Supplier<dev.loam.meta.command.Origin> origin,
      java.util.function.Function<String, dev.loam.journal.seal.JournalSealer> sealers) {
    this.metastore = Objects.requireNonNull(metastore, "metastore");
    this.server = Objects.requireNonNull(server, "server");
    this.origin = origin;
    this.sealers = Objects.requireNonNull(sealers, "sealers");
  }

  /**
   * What one pass saw: journals hosted now on this node, the HOST proposals it made, and the
   * journals whose leadership it asked to move to their hinted replica (journal → target node).
   */
  public record Pass(
      List<String> hostedJournals,
      List<JournalResult> hostResults,
      Map<String, String> leaderTransfers) {}

  /**
   * One pass; completes once its HOST proposals are answered. Fails if hosting a journal or a
   * proposal failed (the next pass tries again: hosting and HOST are both idempotent).
   */
  public CompletableFuture<Pass> poll() {
    String self = server.nodeId();
    long pass = passes + 1;
    passes = pass;
    record Plan(
        JournalGroup group,
        List<JournalPartitionMoves.Placed> partitions,
        String preferredLeader) {}
    List<Plan> plans =
        metastore.read(
            (MetaReader r) -> {
              List<Plan> out = new ArrayList<>();
              for (Map.Entry<String, List<String>> j : r.journals().entrySet()) {
                if (!j.getValue().contains(self)) {
                  continue;
                }
                Map<String, String> addresses = new LinkedHashMap<>();
                for (String id : j.getValue()) {
                  String addr =
                      r.node(id).map(NodeInfo::endpoints).map(e -> e.get(ENDPOINT)).orElse(null);
                  if (addr == null) {
                    break;
                  }
                  addresses.put(id, addr);
                }
                if (addresses.size() == j.getValue().size()) {
                  out.add(
                      new Plan(
                          new JournalGroup(j.getKey(), addresses),
                          JournalPartitionMoves.placed(r, j.getKey()),
                          preferredLeader(r, j.getKey(), j.getValue(), self)));
                }
              }
              return out;
            });
    List<String> hosted = new ArrayList<>();
    List<CompletableFuture<JournalResult>> proposals = new ArrayList<>();
    Map<String, String> moved = new LinkedHashMap<>();
    List<CompletableFuture<?>> moves = new ArrayList<>();
    try {
      for (Plan p : plans) {
        server.host(p.group());
        hosted.add(p.group().name());
        if (!server.isLeader(p.group().name())) {
          continue;
        }
        if (p.preferredLeader() != null && transfer(p.group().name(), p.preferredLeader(), pass)) {
          moved.put(p.group().name(), p.preferredLeader());
        }
        for (JournalPartitionMoves.Placed jp : p.partitions()) {
          boolean here =
              server.highWatermark(p.group().name(), jp.streamId(), jp.partition()).isPresent();
          if (jp.moveTarget() != null) {
            if (origin != null) {
              moves.add(
                  JournalPartitionMoves.step(
                      metastore, server, origin, sealers, p.group().name(), jp, here));
            }
          } else if (!here) {
            // At the end of the partition's offset index: 0 for a partition new to the quorum
            // class, the sealed end for one moved in from another journal.
            proposals.add(
                server.propose(
                    p.group().name(),
                    new JournalEntry.Host(jp.streamId(), jp.partition(), jp.indexEnd())));
          }
        }
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    List<CompletableFuture<?>> all = new ArrayList<>(proposals);
    all.addAll(moves);
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> new Pass(hosted, proposals.stream().map(CompletableFuture::join).toList(), moved));
  }

  /**
   * The replica a journal's leader should be, when it is not this node: the hinted node if it is a
   * live replica; else, unless this node is in the hinted zone, the first live replica (in
   * placement order) there. Null when the journal carries no hint, this node satisfies it, or no
   * live replica does.
   */
  private static String preferredLeader(
      MetaReader r, String journal, List<String> replicas, String self) {
    String hint = r.journalLeaderHint(journal).orElse(null);
    if (hint == null) {
      return null;
    }
    if (replicas.contains(hint)) {
      return !hint.equals(self) && live(r, hint) ? hint : null;
    }
    if (hint.equals(r.node(self).map(NodeInfo::zone).orElse(null))) {
      return null;
    }
    for (String id : replicas) {
      if (hint.equals(r.node(id).map(NodeInfo::zone).orElse(null)) && live(r, id)) {
        return id;
      }
    }
    return null;
  }

  private static boolean live(MetaReader r, String node) {
    return r.nodeStatus(node).map(dev.loam.meta.command.NodeStatus::live).orElse(false);
  }

  /** Starts a transfer unless one is in flight or backing off; true when one was started. */
  private boolean transfer(String journal, String target, long pass) {
    CompletableFuture<Void> inFlight = transfers.get(journal);
    if ((inFlight != null && !inFlight.isDone())
        || pass < transferNotBefore.getOrDefault(journal, 0L)
        || !server.heardFrom(journal, target, TARGET_HEARD_WITHIN)) {
      return false;
    }
    CompletableFuture<Void> t = server.transferLeadership(journal, target, TRANSFER_TIMEOUT);
    transfers.put(journal, t);
    t.whenComplete(
        (v, e) -> {
          if (e != null) {
            transferNotBefore.put(journal, passes + TRANSFER_BACKOFF_PASSES);
          }
        });
    return true;
  }
}
