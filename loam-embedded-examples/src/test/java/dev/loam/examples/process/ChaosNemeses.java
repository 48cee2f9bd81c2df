package dev.loam.examples.process;

import dev.loam.examples.fault.FaultRates;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The faults of the process-level chaos tests, each a loop a thread runs until the chaos phase
 * ends. {@link #killer} and {@link #storeFaults} are the three-node scenario's (one node killed at
 * a time, store faults switched on and off); {@link #harsh} is the five-node scenario's: pauses
 * longer than the liveness timeout, two nodes killed at once, wall-clock steps on one process,
 * bursts of store throttling, a slow store, a node killed while it leaves the cluster, a node
 * killed while a stream is transferred to or from it and a node's metastore disk full, one at a
 * time so that a majority is always up.
 */
final class ChaosNemeses {
  /** The three-node scenario's store faults while they are on. */
  static final FaultRates FAULTS_ON = new FaultRates(0.2, 0.1, 0.2);

  /**
   * A throttling burst: every read and write refused as transient (503 Slow Down) for about a
   * second — shorter than the read path's retry budget (about 2.3 s), so fetches wait it out.
   */
  static final FaultRates THROTTLED = new FaultRates(1, 0, 1);

  private final ChaosRun run;
  private final long livenessMillis;

  ChaosNemeses(ChaosRun run, long livenessMillis) {
    this.run = run;
    this.livenessMillis = livenessMillis;
  }

  /**
   * 1-3 s after the previous node is ready again, kills a node with SIGKILL (the first and every
   * other kill aims at the metastore leader, when one is known; the others at the leader of the
   * quorum stream's journal when the run has one and its leader is known, else at a random node),
   * restarts it after 0.5-2 s (same id and data, a new epoch) and waits until it is ready, so at
   * most one node is down at a time. A kill names the roles the node had: {@code "n2 leader"} (the
   * metastore's), {@code "n1 journal-leader"}, both, or {@code "n3 other"}.
   */
  void killer(Random rnd) {
    ProcessCluster cluster = run.cluster;
    try {
      for (int k = 0; run.chaos; k++) {
        run.pause(1000 + rnd.nextInt(2000));
        if (!run.chaos || run.chaosEndsIn() < 5) {
          return;
        }
        ChaosStream quorum = run.quorum;
        boolean atMeta = k % 2 == 0;
        boolean atJournal = !atMeta && quorum != null;
        OptionalInt leader = leader(atMeta);
        OptionalInt journalLeader = journalLeader(atJournal);
        int target;
        if (atMeta && leader.isPresent()) {
          target = leader.getAsInt();
        } else if (atJournal && journalLeader.isPresent()) {
          target = journalLeader.getAsInt();
        } else {
          target = rnd.nextInt(cluster.size());
        }
        boolean wasLeader = leader.isPresent() && leader.getAsInt() == target;
        boolean wasJournalLeader = journalLeader.isPresent() && journalLeader.getAsInt() == target;
        cluster.kill9(target);
        long killedAt = System.nanoTime();
        if (wasJournalLeader) {
          synchronized (quorum.leaderKills) {
            quorum.leaderKills.add(killedAt);
          }
        }
        run.killEpoch.incrementAndGet();
        String kill =
            cluster.nodeId(target)
                + (wasLeader ? " leader" : "")
                + (wasJournalLeader ? " journal-leader" : "")
                + (wasLeader || wasJournalLeader ? "" : " other");
        synchronized (run.kills) {
          run.kills.add(kill);
        }
        log("kill -9 " + kill);
        run.pause(500 + rnd.nextInt(1500));
        restart(target);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      run.checker.violation("kill/restart failed: " + e);
    }
  }

  /**
   * Switches the store faults on for 3-6 s, off for 2-4 s, until the chaos ends; leaves them off.
   */
  void storeFaults(Random rnd) {
    try {
      while (run.chaos) {
        run.writeFaults(FAULTS_ON);
        run.faultToggles.incrementAndGet();
        log("store faults on");
        run.pause(3000 + rnd.nextInt(3000));
        run.writeFaults(FaultRates.OFF);
        log("store faults off");
        run.pause(2000 + rnd.nextInt(2000));
      }
    } catch (IOException e) {
      run.checker.violation("could not write the fault file: " + e);
    } finally {
      faultsOff();
    }
  }

  /** The harsh scenario's faults, one at a time. */
  enum Harsh {
    /** SIGSTOP for twice the liveness timeout, then SIGCONT: the node was expired meanwhile. */
    PAUSE,
    /** Two of five nodes killed at once (one of them the metastore leader when known). */
    MINORITY_KILL,
    /** One process's wall clock steps 2-10 minutes back, or ahead on a non-leader, for seconds. */
    CLOCK_STEP,
    /** Every store call refused as throttled for about a second. */
    THROTTLING_BURST,
    /** Every store call held back 100-400 ms for a few seconds. */
    SLOW_STORE,
    /** SIGTERM (a graceful leave: streams handed over) and SIGKILL before the leave completes. */
    KILL_DURING_LEAVE,
    /** The stream's transfer to another node, and SIGKILL of its owner or its target meanwhile. */
    KILL_DURING_TRANSFER,
    /** One node's metastore disk full for a few seconds (the leader one time in two). */
    DISK_FULL
  }

  /**
   * The kinds {@link #harsh} runs: every kind, or those {@code -Dloam.chaos.harshKinds} names
   * (comma-separated, e.g. {@code DISK_FULL,PAUSE}) to reproduce one kind on its own.
   */
  static List<Harsh> harshKinds() {
    String only = System.getProperty("loam.chaos.harshKinds", "").strip();
    if (only.isEmpty()) {
      return List.of(Harsh.values());
    }
    List<Harsh> kinds = new ArrayList<>();
    for (String k : only.split(",")) {
      kinds.add(Harsh.valueOf(k.strip().toUpperCase(Locale.ROOT)));
    }
    return kinds;
  }

  /**
   * Runs the {@link Harsh} faults in rounds (each round every kind once, in a random order) with
   * 1-2.5 s between them until the chaos phase ends; every kill and pause bumps the run's kill
   * epoch (consumers lease again).
   */
  void harsh(Random rnd) {
    List<Harsh> round = new ArrayList<>();
    boolean first = true;
    run.rounds = true;
    try {
      while (run.chaos) {
        run.pause(1000 + rnd.nextInt(1500));
        // The first round always completes (the phase waits for it); later ones stop with it.
        if (!first && (!run.chaos || run.chaosEndsIn() < 8)) {
          return;
        }
        if (round.isEmpty()) {
          round.addAll(harshKinds());
          Collections.shuffle(round, rnd);
        }
        Harsh h = round.remove(0);
        switch (h) {
          case PAUSE -> pauseLongerThanLiveness(rnd);
          case MINORITY_KILL -> killTwo(rnd);
          case CLOCK_STEP -> stepClock(rnd);
          case THROTTLING_BURST -> storeBurst(THROTTLED, 900 + rnd.nextInt(400), "throttling");
          case SLOW_STORE ->
              storeBurst(
                  new FaultRates(0, 0, 0, 100 + rnd.nextInt(300)),
                  3000 + rnd.nextInt(2000),
                  "slow");
          case KILL_DURING_LEAVE -> killDuringLeave(rnd);
          case KILL_DURING_TRANSFER -> killDuringTransfer(rnd);
          case DISK_FULL -> fillMetastoreDisk(rnd);
        }
        run.processFault(h.name().toLowerCase(Locale.ROOT).replace('_', ' '));
        if (first && round.isEmpty()) {
          first = false;
          run.firstRound.countDown();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      run.checker.violation("harsh fault failed: " + e);
    } finally {
      run.firstRound.countDown();
      faultsOff();
    }
  }

  private void pauseLongerThanLiveness(Random rnd) throws IOException, InterruptedException {
    ProcessCluster cluster = run.cluster;
    OptionalInt leader = leader(rnd.nextBoolean());
    int target = leader.isPresent() ? leader.getAsInt() : rnd.nextInt(cluster.size());
    long millis = 2 * livenessMillis + rnd.nextInt(1000);
    cluster.pause(target);
    run.killEpoch.incrementAndGet();
    String what = cluster.nodeId(target) + (leader.isPresent() ? " leader" : " other");
    log("SIGSTOP " + what + " for " + millis + " ms");
    try {
      Thread.sleep(millis);
    } finally {
      cluster.resume(target);
      log("SIGCONT " + what);
    }
  }

  private void killTwo(Random rnd) throws IOException, InterruptedException {
    ProcessCluster cluster = run.cluster;
    OptionalInt leader = leader(true);
    int first = leader.isPresent() ? leader.getAsInt() : rnd.nextInt(cluster.size());
    int second = (first + 1 + rnd.nextInt(cluster.size() - 1)) % cluster.size();
    cluster.kill9(first);
    cluster.kill9(second);
    run.killEpoch.incrementAndGet();
    String kill =
        cluster.nodeId(first)
            + "+"
            + cluster.nodeId(second)
            + (leader.isPresent() ? " minority with the leader" : " minority");
    synchronized (run.kills) {
      run.kills.add(kill);
    }
    log("kill -9 " + kill);
    run.pause(500 + rnd.nextInt(1500));
    restart(first);
    restart(second);
  }

  /**
   * SIGTERM to a node (the metastore leader one time in two), which starts its graceful leave — it
   * hands its streams over and deregisters — and SIGKILL 50-800 ms later if it has not exited, so
   * the leave stops part way: some streams handed over, others not, the node still registered.
   * Restarted after 0.5-2 s.
   */
  private void killDuringLeave(Random rnd) throws IOException, InterruptedException {
    ProcessCluster cluster = run.cluster;
    OptionalInt leader = leader(rnd.nextBoolean());
    int target = leader.isPresent() ? leader.getAsInt() : rnd.nextInt(cluster.size());
    String what = cluster.nodeId(target) + (leader.isPresent() ? " leader" : " other");
    long grace = 50 + rnd.nextInt(750);
    OptionalInt exit = cluster.sigterm(target, Duration.ofMillis(grace));
    if (exit.isEmpty()) {
      cluster.kill9(target);
      log("SIGTERM " + what + ", kill -9 " + grace + " ms into its leave");
    } else {
      log("SIGTERM " + what + ": left within " + grace + " ms (status " + exit.getAsInt() + ")");
    }
    run.killEpoch.incrementAndGet();
    synchronized (run.kills) {
      run.kills.add(what + " during leave");
    }
    run.pause(500 + rnd.nextInt(1500));
    restart(target);
  }

  /**
   * Asks the chaos stream's owner to transfer it to another node and, 0-300 ms after the request is
   * sent, SIGKILLs the owner or the target (one or the other at random), so the transfer stops at
   * whatever step it reached: requested, target opening, handed over. Restarted after 0.5-2 s;
   * whatever the transfer's fate, the stream must get an owner again and lose nothing.
   */
  private void killDuringTransfer(Random rnd) throws IOException, InterruptedException {
    ProcessCluster cluster = run.cluster;
    int owner = ownerOfTheStream(rnd);
    if (owner < 0) {
      log("transfer skipped: no node names an owner of the stream");
      return;
    }
    int to = (owner + 1 + rnd.nextInt(cluster.size() - 1)) % cluster.size();
    String path =
        "/v1/admin/streams/default/" + ChaosRun.STREAM + "/transfer?to=" + cluster.nodeId(to);
    String[] answer = {"no answer"};
    Thread request =
        new Thread(
            () -> {
              try {
                answer[0] =
                    Integer.toString(run.http.ownerBound(owner, "POST", path, null).status());
              } catch (ChaosHttp.CallFailed e) {
                answer[0] = "failed: " + e.getMessage();
              }
            },
            "chaos-transfer");
    request.start();
    Thread.sleep(rnd.nextInt(300));
    int victim = rnd.nextBoolean() ? owner : to;
    cluster.kill9(victim);
    run.killEpoch.incrementAndGet();
    String what =
        cluster.nodeId(victim)
            + (victim == owner ? " (owner)" : " (target)")
            + " during the transfer "
            + cluster.nodeId(owner)
            + " -> "
            + cluster.nodeId(to);
    synchronized (run.kills) {
      run.kills.add(what);
    }
    request.join(ChaosHttp.REQUEST_TIMEOUT.toMillis() * 4);
    log("kill -9 " + what + "; transfer answered " + answer[0]);
    run.pause(500 + rnd.nextInt(1500));
    restart(victim);
  }

  /**
   * Fills one node's metastore disk (the leader one time in two) for 3-9 s, so every write of its
   * Raft log that needs space fails with "no space left", then frees it. A replica that cannot
   * write its log stops (its Raft server fails the write and the node stops rather than serve as a
   * replica that can no longer persist what it acknowledges); a stopped node is restarted once the
   * disk is free, like an operator would after making room. A node that rides the fault out stays
   * as it is.
   */
  private void fillMetastoreDisk(Random rnd) throws IOException, InterruptedException {
    ProcessCluster cluster = run.cluster;
    OptionalInt leader = leader(rnd.nextBoolean());
    int target = leader.isPresent() ? leader.getAsInt() : rnd.nextInt(cluster.size());
    String what = cluster.nodeId(target) + (leader.isPresent() ? " leader" : " other");
    long failedBefore = failStops(target);
    long bytes = cluster.fillMetastoreDisk(target);
    run.killEpoch.incrementAndGet();
    log("metastore disk of " + what + " full (" + bytes / 1024 + " KiB filler)");
    // At least 3 s, then until the replica has stopped or 9 s: how soon a log write needs space
    // depends on the metastore's traffic (its segments are preallocated in steps).
    long t0 = System.nanoTime();
    long min = 3000 + rnd.nextInt(1000);
    long millis;
    try {
      do {
        Thread.sleep(100);
        millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      } while (millis < min || (millis < 9000 && cluster.isAlive(target)));
    } finally {
      cluster.freeMetastoreDisk(target);
    }
    if (failStops(target) > failedBefore) {
      // The replica failed: the process closes what it can (up to 10 s) and exits; wait for it.
      for (int k = 0; k < 200 && cluster.isAlive(target); k++) {
        Thread.sleep(100);
      }
    }
    boolean alive = cluster.isAlive(target);
    log(
        "metastore disk of "
            + what
            + " freed after "
            + millis
            + " ms; process "
            + (alive ? "running" : "stopped"));
    synchronized (run.kills) {
      run.kills.add(what + " disk full (" + (alive ? "rode it out" : "stopped") + ")");
    }
    if (!alive) {
      run.pause(500 + rnd.nextInt(1000));
      restart(target);
    }
  }

  /** How many fail-stops of its metastore replica node {@code i}'s log shows so far. */
  private long failStops(int i) throws IOException {
    try (java.util.stream.Stream<String> lines =
        java.nio.file.Files.lines(run.cluster.log(i), java.nio.charset.StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains("metastore replica failed")).count();
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The index of the node the chaos stream's description names as owner, or -1. */
  private int ownerOfTheStream(Random rnd) throws InterruptedException {
    ProcessCluster cluster = run.cluster;
    int start = rnd.nextInt(cluster.size());
    for (int k = 0; k < cluster.size(); k++) {
      int ask = (start + k) % cluster.size();
      try {
        ChaosHttp.Answer a = run.http.call(ask, "GET", run.base(), null);
        if (a.status() != 200) {
          continue;
        }
        String owner = ChaosRun.JSON.readTree(a.body()).path("owner").path("node_id").asText("");
        for (int i = 0; i < cluster.size(); i++) {
          if (cluster.nodeId(i).equals(owner) && cluster.isAlive(i)) {
            return i;
          }
        }
      } catch (ChaosHttp.CallFailed | IOException e) {
        // Ask the next node.
      }
    }
    return -1;
  }

  /**
   * Steps one process's wall clock 2-10 minutes back (any node) or ahead (a node that does not lead
   * the metastore), and back to the true time 3-6 s later. Not ahead on the leader: its own clock
   * is the one the future-stamp check trusts (stream-engine.txt §3), so a leader whose clock runs
   * minutes ahead moves the metastore clock and every other node is declared dead and registers
   * again — no acknowledged write is lost, but their appends are refused meanwhile
   * (docs/design/metastore-ratis.md "Write path").
   */
  private void stepClock(Random rnd) throws IOException, InterruptedException {
    ProcessCluster cluster = run.cluster;
    Duration step = Duration.ofSeconds((rnd.nextBoolean() ? 1 : -1) * (120 + rnd.nextInt(480)));
    int target = rnd.nextInt(cluster.size());
    if (!step.isNegative()) {
      OptionalInt leader = leader(true);
      if (leader.isPresent() && leader.getAsInt() == target) {
        target = (target + 1 + rnd.nextInt(cluster.size() - 1)) % cluster.size();
      }
    }
    cluster.stepClock(target, step);
    log("clock of " + cluster.nodeId(target) + " steps by " + step.toSeconds() + " s");
    try {
      Thread.sleep(3000 + rnd.nextInt(3000));
    } finally {
      cluster.stepClock(target, Duration.ZERO);
      log("clock of " + cluster.nodeId(target) + " steps back to real time");
    }
  }

  private void storeBurst(FaultRates rates, long millis, String what) throws IOException {
    run.writeFaults(rates);
    run.faultToggles.incrementAndGet();
    log("store " + what + " for " + millis + " ms");
    try {
      run.pause(millis);
    } finally {
      run.writeFaults(FaultRates.OFF);
      log("store " + what + " over");
    }
  }

  /** The metastore leader's index, waiting up to 10 s for one when {@code wait}; may be empty. */
  private OptionalInt leader(boolean wait) throws InterruptedException {
    OptionalInt leader = run.cluster.metastoreLeader();
    if (wait && leader.isEmpty()) {
      try {
        leader = OptionalInt.of(run.cluster.awaitMetastoreLeader(Duration.ofSeconds(10)));
      } catch (IllegalStateException e) {
        // No leader announced (an election still running).
      }
    }
    return leader;
  }

  /**
   * The node leading the quorum stream's journal (waiting up to 10 s for one if {@code wait}), or
   * empty if the run has no quorum stream or no single leader is announced.
   */
  private OptionalInt journalLeader(boolean wait) throws InterruptedException {
    if (run.quorum == null) {
      return OptionalInt.empty();
    }
    OptionalInt leader = run.cluster.journalLeader(ChaosRun.JOURNAL);
    if (wait && leader.isEmpty()) {
      try {
        leader =
            OptionalInt.of(
                run.cluster.awaitJournalLeader(ChaosRun.JOURNAL, Duration.ofSeconds(10)));
      } catch (IllegalStateException e) {
        // No leader announced (an election still running).
      }
    }
    return leader;
  }

  private void restart(int target) throws IOException {
    long t0 = System.nanoTime();
    run.cluster.restart(target);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    synchronized (run.kills) {
      run.restartMillis.add(ms);
    }
    log("restarted " + run.cluster.nodeId(target) + " (ready after " + ms + " ms)");
  }

  private void faultsOff() {
    try {
      run.writeFaults(FaultRates.OFF);
    } catch (IOException e) {
      run.checker.violation("could not switch faults off: " + e);
    }
  }

  private void log(String what) {
    System.out.printf(Locale.ROOT, "chaos: %.1f s %s%n", run.sinceChaos(), what);
  }
}
