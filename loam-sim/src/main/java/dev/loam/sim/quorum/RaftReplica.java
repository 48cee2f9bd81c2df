package dev.loam.sim.quorum;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.state.JournalState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One replica of one journal in the simulated Raft ({@link SimRaft}). Its term, vote, log and the
 * log's synced prefix are its disk and outlive its node's incarnations; the rest (role, known
 * leader, commit index, the applied {@link JournalState}, the leader's bookkeeping) is lost with
 * the process. While its node is down it answers nothing.
 *
 * <p>Raft as in the paper, small: randomised election timeouts, votes with the up-to-date rule, a
 * no-op entry at the start of each leader's term (committing it commits what came before, and a
 * leader is ready once it applied it), log matching with truncation of conflicting suffixes, and
 * commit by a majority of synced copies of an entry of the leader's term. A follower acknowledges
 * entries only after syncing them; a crash loses the unsynced suffix. Not modelled: membership
 * changes, snapshots and log purges, pre-vote, leader transfer.
 */
final class RaftReplica {
  private enum Role {
    FOLLOWER,
    CANDIDATE,
    LEADER
  }

  /** One log entry: its term, the proposal's call id (null for a leader's no-op) and its bytes. */
  private record Entry(long term, String callId, byte[] bytes) {
    String id() {
      return term + "/" + (callId == null ? "no-op" : callId);
    }
  }

  /** Entries sent in one AppendEntries at most. */
  private static final int MAX_BATCH = 64;

  private final SimRaft raft;
  private final String journal;
  private final String self;
  private final List<String> peers;

  // On disk: survives a crash (the log only up to its synced prefix).
  private long term;
  private String votedFor;
  private final List<Entry> log = new ArrayList<>();
  private int synced;
  private long durableCommit;

  // The incarnation's: lost with the process.
  private SimJournals host;
  private int generation;
  private ScheduledFuture<?> tick;
  private Role role = Role.FOLLOWER;
  private String leader;
  private long commitIndex;
  private long applied;
  private JournalState state;
  private final Map<String, JournalResult> retryCache = new HashMap<>();
  private long lastHeardNanos;
  private long electionTimeoutMillis;
  private final Set<String> votes = new HashSet<>();
  private final Map<String, Long> nextIndex = new HashMap<>();
  private final Map<String, Long> matchIndex = new HashMap<>();
  private long termStartIndex;
  private final Map<String, String> waiters = new HashMap<>();

  RaftReplica(SimRaft raft, String journal, String self, List<String> replicas) {
    this.raft = raft;
    this.journal = journal;
    this.self = self;
    this.peers = replicas.stream().filter(p -> !p.equals(self)).sorted().toList();
  }

  String nodeId() {
    return self;
  }

  String journal() {
    return journal;
  }

  long term() {
    return term;
  }

  /** The node's incarnation {@code h} hosts this replica: it recovers from its disk. */
  void attach(SimJournals h) {
    if (host == h) {
      return;
    }
    detach();
    host = h;
    generation++;
    role = Role.FOLLOWER;
    leader = null;
    state = new JournalState(raft.maxUnsealedBytes());
    retryCache.clear();
    applied = 0;
    commitIndex = durableCommit;
    applyCommitted();
    lastHeardNanos = now();
    electionTimeoutMillis = raft.electionTimeoutMillis();
    int g = generation;
    tick =
        h.scheduler()
            .scheduleWithFixedDelay(
                () -> {
                  if (host != null && generation == g) {
                    tick();
                  }
                },
                SimRaft.TICK_MILLIS,
                SimRaft.TICK_MILLIS,
                TimeUnit.MILLISECONDS);
  }

  /** The incarnation ended (a crash or a close): what was not synced is lost. */
  void detach() {
    if (host == null) {
      return;
    }
    host = null;
    generation++;
    tick.cancel(false);
    int lost = log.size() - synced;
    if (lost > 0) {
      log.subList(synced, log.size()).clear();
      raft.ctx().trace().add("journal " + journal + " " + self + " lost unsynced=" + lost);
      raft.ctx().add("journal.unsyncedEntriesLost", lost);
    }
    durableCommit = Math.min(durableCommit, synced);
    role = Role.FOLLOWER;
    leader = null;
    waiters.clear();
    votes.clear();
  }

  /** Whether this replica has applied every entry it knows to be committed. */
  boolean appliedAllCommitted() {
    return host != null && applied >= commitIndex;
  }

  boolean isReadyLeader() {
    return host != null && role == Role.LEADER && applied >= termStartIndex;
  }

  Optional<String> leader() {
    return Optional.ofNullable(host == null ? null : leader);
  }

  JournalState state() {
    return state;
  }

  /** Runs {@code d} on this incarnation's process, unless the incarnation ends before. */
  void deliver(Consumer<RaftReplica> d) {
    SimJournals h = host;
    if (h == null) {
      return;
    }
    int g = generation;
    h.scheduler()
        .execute(
            () -> {
              if (host == h && generation == g) {
                d.accept(this);
              }
            });
  }

  private long now() {
    return raft.ctx().clock().nanos();
  }

  private void tick() {
    if (role == Role.LEADER) {
      peers.forEach(this::sendAppend);
    } else if (now() - lastHeardNanos > TimeUnit.MILLISECONDS.toNanos(electionTimeoutMillis)) {
      startElection();
    }
  }

  // ---- elections

  private void startElection() {
    term++;
    votedFor = self;
    role = Role.CANDIDATE;
    leader = null;
    votes.clear();
    votes.add(self);
    lastHeardNanos = now();
    electionTimeoutMillis = raft.electionTimeoutMillis();
    raft.ctx().count("journal.electionsStarted");
    raft.ctx().trace().add("journal " + journal + " " + self + " candidate term=" + term);
    long t = term;
    long lastIndex = log.size();
    long lastTerm = lastTerm();
    for (String p : peers) {
      raft.send(journal, self, p, r -> r.onRequestVote(t, self, lastIndex, lastTerm));
    }
  }

  private long lastTerm() {
    return log.isEmpty() ? 0 : log.get(log.size() - 1).term();
  }

  private void onRequestVote(long cTerm, String candidate, long cLastIndex, long cLastTerm) {
    if (cTerm > term) {
      stepDown(cTerm);
    }
    boolean upToDate =
        cLastTerm > lastTerm() || (cLastTerm == lastTerm() && cLastIndex >= log.size());
    boolean grant =
        cTerm == term
            && (votedFor == null || votedFor.equals(candidate))
            && (upToDate || !raft.rules().upToDateVote());
    if (grant) {
      votedFor = candidate;
      lastHeardNanos = now();
    }
    long t = term;
    raft.send(journal, self, candidate, r -> r.onVote(t, self, grant));
  }

  private void onVote(long vTerm, String voter, boolean granted) {
    if (vTerm > term) {
      stepDown(vTerm);
      return;
    }
    if (role != Role.CANDIDATE || vTerm != term || !granted) {
      return;
    }
    votes.add(voter);
    if (votes.size() * 2 > peers.size() + 1) {
      becomeLeader();
    }
  }

  private void becomeLeader() {
    role = Role.LEADER;
    leader = self;
    raft.ctx().count("journal.elections");
    raft.ctx().trace().add("journal " + journal + " " + self + " leader term=" + term);
    for (String p : peers) {
      nextIndex.put(p, (long) log.size() + 1);
      matchIndex.put(p, 0L);
    }
    log.add(new Entry(term, null, null));
    termStartIndex = log.size();
    syncThen(this::advanceCommit);
    peers.forEach(this::sendAppend);
  }

  private void stepDown(long newTerm) {
    if (newTerm > term) {
      term = newTerm;
      votedFor = null;
    }
    if (role != Role.FOLLOWER) {
      raft.ctx().trace().add("journal " + journal + " " + self + " follower term=" + term);
    }
    role = Role.FOLLOWER;
    leader = null;
    waiters.clear();
  }

  // ---- replication

  private void sendAppend(String peer) {
    long next = nextIndex.get(peer);
    long prevIndex = next - 1;
    long prevTerm = prevIndex == 0 ? 0 : log.get((int) prevIndex - 1).term();
    List<Entry> entries =
        List.copyOf(
            log.subList((int) prevIndex, (int) Math.min(log.size(), prevIndex + MAX_BATCH)));
    long t = term;
    long commit = commitIndex;
    raft.send(journal, self, peer, r -> r.onAppend(t, self, prevIndex, prevTerm, entries, commit));
  }

  private void onAppend(
      long lTerm, String from, long prevIndex, long prevTerm, List<Entry> entries, long lCommit) {
    if (lTerm < term) {
      long t = term;
      raft.send(journal, self, from, r -> r.onAppendReply(t, self, false, 0));
      return;
    }
    if (lTerm > term || role != Role.FOLLOWER) {
      stepDown(lTerm);
    }
    leader = from;
    lastHeardNanos = now();
    if (prevIndex > log.size()
        || (prevIndex > 0 && log.get((int) prevIndex - 1).term() != prevTerm)) {
      long hint = Math.min(prevIndex - 1, log.size());
      long t = term;
      raft.send(journal, self, from, r -> r.onAppendReply(t, self, false, hint));
      return;
    }
    for (int k = 0; k < entries.size(); k++) {
      int at = (int) prevIndex + k; // 0-based position of entries[k]
      Entry e = entries.get(k);
      if (at < log.size()) {
        if (log.get(at).term() == e.term()) {
          continue;
        }
        // Log matching: a conflicting suffix is overwritten by the leader's entries.
        raft.ctx().add("journal.entriesOverwritten", log.size() - at);
        log.subList(at, log.size()).clear();
        synced = Math.min(synced, at);
      }
      log.add(e);
    }
    long matchEnd = prevIndex + entries.size();
    long newCommit = Math.min(lCommit, matchEnd);
    if (newCommit > commitIndex) {
      commitIndex = newCommit;
      applyCommitted();
    }
    syncThen(
        () -> {
          boolean ok = term == lTerm;
          long t = term;
          raft.send(journal, self, from, r -> r.onAppendReply(t, self, ok, ok ? matchEnd : 0));
        });
  }

  /** Syncs the log (what is in it when the sync runs, 1–2 ms later), then runs {@code then}. */
  private void syncThen(Runnable then) {
    SimJournals h = host;
    int g = generation;
    h.scheduler()
        .schedule(
            () -> {
              if (host == h && generation == g) {
                synced = log.size();
                durableCommit = Math.min(commitIndex, synced);
                then.run();
              }
            },
            raft.syncMillis(),
            TimeUnit.MILLISECONDS);
  }

  private void onAppendReply(long rTerm, String from, boolean success, long index) {
    if (rTerm > term) {
      stepDown(rTerm);
      return;
    }
    if (role != Role.LEADER || rTerm != term) {
      return;
    }
    if (success) {
      long match = Math.max(matchIndex.get(from), index);
      matchIndex.put(from, match);
      nextIndex.put(from, Math.max(nextIndex.get(from), match + 1));
      advanceCommit();
      if (nextIndex.get(from) <= log.size()) {
        sendAppend(from);
      }
    } else {
      nextIndex.put(from, Math.max(1, Math.min(nextIndex.get(from) - 1, index + 1)));
      sendAppend(from);
    }
  }

  /** The leader commits the newest entry of its term that a majority synced. */
  private void advanceCommit() {
    if (role != Role.LEADER) {
      return;
    }
    for (long n = log.size(); n > commitIndex; n--) {
      if (log.get((int) n - 1).term() != term) {
        break; // older terms commit only through an entry of this term
      }
      int copies = synced >= n ? 1 : 0;
      for (String p : peers) {
        if (matchIndex.get(p) >= n) {
          copies++;
        }
      }
      boolean committed =
          raft.rules().majorityCommit() ? copies * 2 > peers.size() + 1 : synced >= n;
      if (committed) {
        commitIndex = n;
        applyCommitted();
        return;
      }
    }
  }

  private void applyCommitted() {
    while (applied < commitIndex && applied < log.size()) {
      Entry e = log.get((int) applied);
      applied++;
      raft.checkApplied(journal, self, applied, e.id());
      if (e.bytes() == null) {
        continue;
      }
      JournalEntry entry = JournalEntryCodec.decode(e.bytes());
      JournalResult result = state.apply(entry);
      retryCache.put(e.callId(), result);
      if (host != null) {
        host.applied(journal, entry, result);
      }
      if (role == Role.LEADER && result instanceof JournalResult.Sealed) {
        raft.ctx().count("quorum.seals");
      }
      String client = waiters.remove(e.callId());
      if (client != null && role == Role.LEADER) {
        reply(client, e.callId(), result, null);
      }
    }
  }

  // ---- proposals

  /** A client's proposal (or its retry with the same call id) reaches this replica. */
  void onClientRequest(String callId, byte[] bytes, String client) {
    if (role != Role.LEADER) {
      reply(client, callId, null, leader);
      return;
    }
    JournalResult done = retryCache.get(callId);
    if (done != null) {
      reply(client, callId, done, null);
      return;
    }
    waiters.put(callId, client);
    for (int i = (int) applied; i < log.size(); i++) {
      if (callId.equals(log.get(i).callId())) {
        return; // logged, not committed yet: the waiter gets the answer at apply
      }
    }
    log.add(new Entry(term, callId, bytes));
    syncThen(this::advanceCommit);
    for (String p : peers) {
      if (nextIndex.get(p) == log.size()) {
        sendAppend(p);
      }
    }
  }

  private void reply(String client, String callId, JournalResult result, String hint) {
    raft.transmit(
        self,
        client,
        () -> {
          SimJournals c = raft.client(client);
          if (c != null) {
            c.scheduler().execute(() -> c.onReply(callId, result, hint));
          }
        });
  }
}
