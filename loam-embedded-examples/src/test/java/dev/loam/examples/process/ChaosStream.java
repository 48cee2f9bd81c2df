package dev.loam.examples.process;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One stream a chaos run writes and reads back: where it is, how many partitions it has, its own
 * {@link ChaosChecker} and the counters of its producers. The three-node scenario writes two: the
 * leaderless {@code chaos} stream every scenario has, and a {@code quorum} stream ({@code
 * chaos-quorum}, on the journal the nodes replicate) whose journal leader the killer aims at.
 */
final class ChaosStream {
  final String namespace;
  final String name;
  final int partitions;

  /**
   * Whether the stream is of the quorum class: its appends are acknowledged by the journal's leader
   * (any replica forwards them), its acknowledgements carry no consistency token, and its reads are
   * served by any replica from what it applied.
   */
  final boolean quorum;

  final ChaosChecker checker;

  /** When each acknowledgement arrived (nanoTime). */
  final ConcurrentLinkedQueue<Long> ackTimes = new ConcurrentLinkedQueue<>();

  /** For each acknowledged request: when its acknowledged attempt was sent (nanoTime). */
  final ConcurrentLinkedQueue<long[]> acks = new ConcurrentLinkedQueue<>();

  /** The kills of this stream's journal leader (nanoTime); guarded by itself. */
  final List<Long> leaderKills = new ArrayList<>();

  final AtomicLong idempotentRetries = new AtomicLong();
  final AtomicLong droppedAnswers = new AtomicLong();
  final AtomicLong ackedAfterUnknownAttempt = new AtomicLong();
  final AtomicLong conflictAnswers = new AtomicLong();
  final AtomicLong fencedAnswers = new AtomicLong();
  final AtomicLong failedFetches = new AtomicLong();
  final AtomicLong staleFetches = new AtomicLong();

  /** Per partition: the read-back's record count once known, -1 before; guarded by itself. */
  final long[] readTarget;

  /** Per partition: the position the stream's reader reached when it stopped, -1 before. */
  final long[] readFinal;

  ChaosStream(String namespace, String name, int partitions, boolean quorum, ChaosChecker checker) {
    this.namespace = namespace;
    this.name = name;
    this.partitions = partitions;
    this.quorum = quorum;
    this.checker = checker;
    this.readTarget = new long[partitions];
    this.readFinal = new long[partitions];
    java.util.Arrays.fill(readTarget, -1);
    java.util.Arrays.fill(readFinal, -1);
  }

  /** The stream's HTTP path. */
  String base() {
    return "/v1/namespaces/" + namespace + "/streams/" + name;
  }

  /** Records an acknowledged request whose acknowledged attempt was sent at {@code sentAt}. */
  void acknowledged(long sentAt, long ackAt) {
    ackTimes.add(ackAt);
    acks.add(new long[] {sentAt, ackAt});
  }

  /**
   * The failover time of each kill (nanoTime) in {@code kills}: from the kill to the first
   * acknowledgement of a request sent after it, in milliseconds; -1 for a kill no such request
   * followed. A request sent before the kill does not count, since its answer may have been on its
   * way when the leader died.
   */
  static List<Long> failoverMillis(List<Long> kills, List<long[]> acks) {
    List<Long> out = new ArrayList<>();
    for (long kill : kills) {
      boolean found = false;
      long first = 0;
      for (long[] a : acks) {
        if (a[0] - kill >= 0 && (!found || a[1] - first < 0)) {
          found = true;
          first = a[1];
        }
      }
      out.add(found ? (first - kill) / 1_000_000 : -1);
    }
    return out;
  }

  /** {@link #failoverMillis} of this stream's journal leader kills. */
  List<Long> failoverMillis() {
    List<Long> kills;
    synchronized (leaderKills) {
      kills = List.copyOf(leaderKills);
    }
    return failoverMillis(kills, List.copyOf(acks));
  }
}
