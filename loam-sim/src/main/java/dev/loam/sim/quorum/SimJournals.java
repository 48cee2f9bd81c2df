package dev.loam.sim.quorum;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.JournalGroup;
import dev.loam.journal.ratis.JournalListener;
import dev.loam.journal.ratis.Journals;
import dev.loam.journal.state.JournalState;
import dev.loam.spi.quorum.QuorumHostContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One node incarnation's journals on the simulated Raft: the {@link Journals} the real {@code
 * JournalNodeHost} runs on in the simulation. Hosting a journal attaches this node's {@link
 * RaftReplica} of it (recovering its disk); a proposal is the client's side of Ratis: it goes to
 * the leader this replica knows, is sent again with the same call id every {@value #RESEND_MILLIS}
 * ms (the leader answers a retry from its applied results or waits on the logged entry), and fails
 * OUTCOME_UNKNOWN once {@value #BUDGET_MILLIS} ms passed after it was first tried (UNAVAILABLE when
 * no leader was known all along, so nothing was sent). Ratis's ordered client answers one node's
 * proposals to a journal in the order they were sent; the model keeps that order by sending one
 * proposal per journal at a time, the next once the previous is answered or has failed. Everything
 * runs on the node's process.
 */
final class SimJournals implements Journals {
  static final long RESEND_MILLIS = 500;
  static final long BUDGET_MILLIS = 5_000;
  private static final long NO_LEADER_RETRY_MILLIS = 50;

  private final SimRaft raft;
  private final QuorumHostContext ctx;
  private final String node;
  private final String incarnation;
  private final Map<String, RaftReplica> hosted = new TreeMap<>();
  private final Map<String, List<JournalListener>> listeners = new HashMap<>();
  private final Map<String, Call> calls = new java.util.LinkedHashMap<>();
  private final Map<String, java.util.ArrayDeque<Call>> queues = new HashMap<>();
  private long nextCall;
  private boolean closed;

  /** One proposal in flight. */
  private static final class Call {
    final String journal;
    final String id;
    final byte[] bytes;
    final CompletableFuture<JournalResult> future = new CompletableFuture<>();
    long deadlineNanos;
    boolean sent;
    String hint;
    int attempt;

    Call(String journal, String id, byte[] bytes) {
      this.journal = journal;
      this.id = id;
      this.bytes = bytes;
    }
  }

  SimJournals(SimRaft raft, QuorumHostContext ctx) {
    this.raft = raft;
    this.ctx = ctx;
    this.node = ctx.nodeId();
    this.incarnation = node + "#" + raft.register(node, this);
    // As a journal server recovers the journals in its directory at start (JournalServer), a new
    // incarnation hosts every journal its node's disk holds a replica of, without waiting for the
    // placement driver (which needs every replica's endpoint of the current processes).
    for (RaftReplica r : raft.replicasOn(node)) {
      hosted.put(r.journal(), r);
      raft.ctx().trace().add("journal " + r.journal() + " recovered on " + incarnation);
      raft.ctx().count("journal.recovered");
      r.attach(this);
    }
  }

  ScheduledExecutorService scheduler() {
    return ctx.scheduler();
  }

  @Override
  public String nodeId() {
    return node;
  }

  @Override
  public void host(JournalGroup group) {
    ensureOpen();
    if (!group.replicas().containsKey(node)) {
      throw new LoamException(
          Kind.INVALID,
          "this node is not a replica of the journal journal=" + group.name() + " node=" + node);
    }
    if (hosted.containsKey(group.name())) {
      return;
    }
    RaftReplica r =
        raft.replica(group.name(), node, List.copyOf(new TreeMap<>(group.replicas()).keySet()));
    hosted.put(group.name(), r);
    raft.ctx().trace().add("journal " + group.name() + " hosted on " + incarnation);
    r.attach(this);
  }

  @Override
  public boolean hosts(String journal) {
    return !closed && hosted.containsKey(journal);
  }

  @Override
  public CompletableFuture<JournalResult> propose(String journal, JournalEntry entry) {
    if (!hosts(journal)) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.UNAVAILABLE, "journal not on this node journal=" + journal + " node=" + node));
    }
    Call c = new Call(journal, incarnation + "/" + (++nextCall), JournalEntryCodec.encode(entry));
    calls.put(c.id, c);
    java.util.ArrayDeque<Call> q =
        queues.computeIfAbsent(journal, j -> new java.util.ArrayDeque<>());
    q.add(c);
    if (q.size() == 1) {
      begin(c);
    }
    return c.future;
  }

  /** {@code c} is the journal's oldest proposal in flight: it is sent now, its budget starts. */
  private void begin(Call c) {
    c.deadlineNanos = raft.ctx().clock().nanos() + TimeUnit.MILLISECONDS.toNanos(BUDGET_MILLIS);
    attempt(c);
  }

  /** {@code c} is answered or failed: the journal's next proposal goes. */
  private void finished(Call c) {
    calls.remove(c.id);
    java.util.ArrayDeque<Call> q = queues.get(c.journal);
    q.remove(c);
    if (!q.isEmpty() && !closed) {
      begin(q.peek());
    }
  }

  private void attempt(Call c) {
    if (closed || c.future.isDone()) {
      return;
    }
    if (raft.ctx().clock().nanos() >= c.deadlineNanos) {
      finished(c);
      raft.ctx().count(c.sent ? "journal.proposalsUnknown" : "journal.proposalsUnsent");
      c.future.completeExceptionally(
          new LoamException(
              c.sent ? Kind.OUTCOME_UNKNOWN : Kind.UNAVAILABLE,
              (c.sent ? "no reply from the journal's leader" : "no leader of the journal known")
                  + " journal="
                  + c.journal
                  + " node="
                  + node));
      return;
    }
    RaftReplica local = hosted.get(c.journal);
    String to = c.hint != null ? c.hint : local.leader().orElse(null);
    c.hint = null;
    int attempt = ++c.attempt;
    if (to == null) {
      later(c, attempt, NO_LEADER_RETRY_MILLIS);
      return;
    }
    c.sent = true;
    String journal = c.journal;
    String id = c.id;
    byte[] bytes = c.bytes;
    raft.transmit(
        node,
        to,
        () -> {
          RaftReplica r = raft.existing(journal, to);
          if (r != null) {
            r.deliver(x -> x.onClientRequest(id, bytes, node));
          }
        });
    later(c, attempt, RESEND_MILLIS);
  }

  /** Attempts {@code c} again after {@code millis} unless another attempt started meanwhile. */
  private void later(Call c, int attempt, long millis) {
    ctx.scheduler()
        .schedule(
            () -> {
              if (c.attempt == attempt) {
                attempt(c);
              }
            },
            millis,
            TimeUnit.MILLISECONDS);
  }

  /** A replica answered a proposal: its result, or that it does not lead (and who may). */
  void onReply(String callId, JournalResult result, String leaderHint) {
    Call c = calls.get(callId);
    if (closed || c == null) {
      return;
    }
    if (result != null) {
      finished(c);
      c.future.complete(result);
      return;
    }
    c.hint = leaderHint;
    int attempt = ++c.attempt;
    later(c, attempt, leaderHint == null ? NO_LEADER_RETRY_MILLIS : 0);
  }

  @Override
  public <T> T query(String journal, Function<JournalState, T> q) {
    ensureOpen();
    RaftReplica r = hosted.get(journal);
    if (r == null) {
      throw new LoamException(
          Kind.UNAVAILABLE, "journal not on this node journal=" + journal + " node=" + node);
    }
    return q.apply(r.state());
  }

  @Override
  public AutoCloseable onApplied(String journal, JournalListener listener) {
    List<JournalListener> ls = listeners.computeIfAbsent(journal, j -> new ArrayList<>());
    ls.add(listener);
    return () -> ls.remove(listener);
  }

  /** This node's replica of {@code journal} applied {@code entry}. */
  void applied(String journal, JournalEntry entry, JournalResult result) {
    for (JournalListener l : List.copyOf(listeners.getOrDefault(journal, List.of()))) {
      l.applied(entry, result);
    }
  }

  @Override
  public boolean isLeader(String journal) {
    RaftReplica r = hosted.get(journal);
    return !closed && r != null && r.isReadyLeader();
  }

  @Override
  public Optional<String> leader(String journal) {
    RaftReplica r = hosted.get(journal);
    return closed || r == null ? Optional.empty() : r.leader();
  }

  /**
   * The simulated Raft does not model leadership transfer (docs/design/simulation.md "Quorum
   * streams"): a hint's transfer is refused, so its leader stays where elections put it.
   */
  @Override
  public CompletableFuture<Void> transferLeadership(
      String journal, String nodeId, java.time.Duration timeout) {
    return CompletableFuture.failedFuture(
        new LoamException(
            Kind.UNAVAILABLE,
            "leadership transfer is not simulated journal=" + journal + " node=" + node));
  }

  /** False: with no transfers simulated, no transfer target is ever chosen. */
  @Override
  public boolean heardFrom(String journal, String nodeId, java.time.Duration within) {
    return false;
  }

  @Override
  public boolean appliedAllCommitted(String journal) {
    RaftReplica r = hosted.get(journal);
    return !closed && r != null && r.appliedAllCommitted();
  }

  private void ensureOpen() {
    if (closed) {
      throw new LoamException(Kind.UNAVAILABLE, "journal server is closed node=" + node);
    }
  }

  /** The incarnation ends: every replica loses what it had not synced; calls end unknown. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    hosted.values().forEach(RaftReplica::detach);
    hosted.clear();
    raft.unregister(node, this);
    List<Call> open = new ArrayList<>(calls.values());
    calls.clear();
    queues.clear();
    for (Call c : open) {
      c.future.completeExceptionally(
          new LoamException(
              Kind.OUTCOME_UNKNOWN, "journal client closed mid-call journal=" + c.journal));
    }
  }
}
