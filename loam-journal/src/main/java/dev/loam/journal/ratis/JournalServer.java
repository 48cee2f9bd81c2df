package dev.loam.journal.ratis;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.JournalResultCodec;
import dev.loam.journal.state.JournalRead;
import dev.loam.journal.state.JournalState;
import dev.loam.tls.ReloadingTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.ExitUtils;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's journal server (docs/design/quorum.md "Journals"): one Apache Ratis server, on its own
 * port and directory, hosting every journal this node is a replica of as a Raft group (multi-Raft).
 * Journals found in the directory at start are recovered (newest snapshot, then the log after it);
 * {@link #host} adds a new one.
 *
 * <ul>
 *   <li>{@link #propose} sends an entry to the journal's leader through this node's Ratis client
 *       for the journal; it completes once the entry is committed on a majority's disks and applied
 *       by the leader, with the state machine's {@link JournalResult}.
 *   <li>{@link #read} reads this replica's applied state: committed data only, on a follower as on
 *       the leader.
 * </ul>
 *
 * <p>Failure kinds: UNAVAILABLE when nothing was sent (closed, the journal is not on this node);
 * OUTCOME_UNKNOWN once the entry was handed to Ratis and no reply came within the retry budget (it
 * may be committed: retry the same batch, the producer check dedupes it).
 *
 * <p>Each journal's Raft term and vote file is guarded ({@link JournalMetaGuards}): a journal whose
 * file is lost has its division stopped, and a start on such a file is refused CORRUPTION.
 *
 * <p>Thread-safe. Ratis owns its threads; futures complete on the injected executor.
 */
public final class JournalServer implements Journals {
  private static final Logger LOG = LoggerFactory.getLogger(JournalServer.class);

  /** The largest entry and its framing. */
  private static final long ENTRY_BUFFER_BYTES =
      JournalEntryCodec.MAX_BODY_BYTES + JournalEntryCodec.OVERHEAD + (64 << 10);

  private final JournalSettings settings;
  private final Executor executor;
  private final RaftPeerId localId;
  private final Map<RaftGroupId, JournalStateMachine> machines = new ConcurrentHashMap<>();
  private final Map<RaftGroupId, RaftClient> clients = new ConcurrentHashMap<>();
  private final Map<RaftGroupId, List<JournalListener>> listeners = new ConcurrentHashMap<>();
  private final ClientId adminClientId = ClientId.randomId();
  private final AtomicLong adminCallId = new AtomicLong();
  private final RaftServer server;

  /** The term-and-vote guard of every hosted journal (docs/design/quorum.md). */
  private final JournalMetaGuards metaGuards;

  /** The transport of the server and of every client: mutual TLS when configured. */
  private final Parameters parameters = new Parameters();

  private volatile boolean closed;

  private JournalServer(JournalSettings settings, Executor executor) throws IOException {
    this.settings = settings;
    this.executor = executor;
    this.localId = RaftPeerId.valueOf(settings.nodeId());
    Files.createDirectories(settings.storageDir());
    JournalMetaGuards.checkAtStart(settings.storageDir(), settings.nodeId());
    this.metaGuards = new JournalMetaGuards(settings.nodeId());
    // One TLS configuration for the server and the clients: Ratis uses the general TLS settings
    // for each side not given its own.
    settings
        .peerTls()
        .map(ReloadingTls::open)
        .ifPresent(
            t ->
                GrpcConfigKeys.TLS.setConf(
                    parameters,
                    new GrpcTlsConfig(t.keyManager(), t.trustManager().orElseThrow(), true)));
    this.server =
        RaftServer.newBuilder()
            .setServerId(localId)
            .setStateMachineRegistry(this::newStateMachine)
            .setProperties(serverProperties())
            .setParameters(parameters)
            .setOption(RaftStorage.StartupOption.RECOVER)
            .build();
  }

  /**
   * Starts this node's journal server and recovers the journals in its directory.
   *
   * @param executor completes proposal futures
   * @throws LoamException UNAVAILABLE if the server cannot start (port taken, directory unusable);
   *     CORRUPTION if a journal's newest snapshot is damaged, or a journal's term and vote file
   *     ({@code raft-meta}) holds no term and vote
   */
  public static JournalServer start(JournalSettings settings, Executor executor) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(executor, "executor");
    // Ratis ends the JVM on some start failures (a port in use); a library inside a host
    // application must fail with an exception instead.
    ExitUtils.disableSystemExit();
    JournalServer s = null;
    try {
      s = new JournalServer(settings, executor);
      s.server.start();
      for (RaftGroupId id : s.server.getGroupIds()) {
        s.guard(id);
      }
      LOG.info(
          "journal server listening node={} address={} tls={} journals={}",
          settings.nodeId(),
          settings.address(),
          settings.peerTls().isPresent() ? "mutual" : "off",
          s.server.getGroupIds());
      return s;
    } catch (IOException | RuntimeException e) {
      if (s != null) {
        s.close();
      }
      dev.loam.error.CorruptionException corrupt = corruption(e);
      if (corrupt != null) {
        throw corrupt;
      }
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot start the journal server node="
              + settings.nodeId()
              + " address="
              + settings.address()
              + " dir="
              + settings.storageDir(),
          e);
    }
  }

  private static dev.loam.error.CorruptionException corruption(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof dev.loam.error.CorruptionException ce) {
        return ce;
      }
    }
    return null;
  }

  private JournalStateMachine newStateMachine(RaftGroupId id) {
    JournalStateMachine m =
        new JournalStateMachine(
            id.getUuid().toString(),
            settings.maxUnsealedBytes(),
            new JournalStateMachine.Listener() {
              @Override
              public void applied(JournalEntry entry, JournalResult result) {
                for (JournalListener l : listeners.getOrDefault(id, List.of())) {
                  try {
                    l.applied(entry, result);
                  } catch (RuntimeException e) {
                    LOG.warn("journal apply listener failed group={}", id, e);
                  }
                }
              }

              @Override
              public void reloaded() {
                for (JournalListener l : listeners.getOrDefault(id, List.of())) {
                  try {
                    l.reloaded();
                  } catch (RuntimeException e) {
                    LOG.warn("journal reload listener failed group={}", id, e);
                  }
                }
              }
            });
    machines.put(id, m);
    return m;
  }

  private RaftProperties serverProperties() {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    GrpcConfigKeys.Server.setHost(p, settings.bindHost());
    GrpcConfigKeys.Server.setPort(p, settings.bindPort());
    RaftServerConfigKeys.setStorageDir(p, List.of(settings.storageDir().toFile()));
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, td(settings.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, td(settings.electionTimeoutMax()));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, td(settings.requestTimeout()));
    // An entry counts as appended on a replica only once its log is fsynced there: the commit,
    // and so the acknowledgement, waits for a majority's fsync (stream-engine.txt §4).
    RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, false);
    RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
    RaftServerConfigKeys.Log.setSegmentSizeMax(
        p, SizeInBytes.valueOf(settings.logSegmentSizeBytes()));
    RaftServerConfigKeys.Log.setPreallocatedSize(
        p, SizeInBytes.valueOf(Math.min(4L << 20, settings.logSegmentSizeBytes())));
    // Every buffer holds the largest entry: the appender's batch to a follower, the log's write
    // buffer (Ratis requires it to exceed the appender's limit) and a gRPC message.
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(
        p, SizeInBytes.valueOf(ENTRY_BUFFER_BYTES));
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(ENTRY_BUFFER_BYTES + 1024));
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(ENTRY_BUFFER_BYTES + (1 << 20)));
    // Purge to the snapshot even if a follower is behind: it then catches up by snapshot install.
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        p, (int) Math.max(1, Math.min(1024, settings.snapshotThresholdEntries())));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, settings.snapshotThresholdEntries());
    RaftServerConfigKeys.Snapshot.setCreationGap(p, 1);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    // A stop is treated like a crash: recovery replays the log after the last snapshot.
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    // The retry cache outlives a proposal's whole retry budget, so a late retry of a logged entry
    // is answered from it instead of being logged again.
    Duration expiry = settings.proposalTimeoutBound().multipliedBy(2);
    RaftServerConfigKeys.RetryCache.setExpiryTime(
        p, td(expiry.compareTo(Duration.ofSeconds(60)) < 0 ? Duration.ofSeconds(60) : expiry));
    return p;
  }

  private static TimeDuration td(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** The Raft group id of a journal: a name-based UUID of its name. */
  static RaftGroupId groupId(String journal) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("loam-journal:" + journal).getBytes(StandardCharsets.UTF_8)));
  }

  private static RaftGroup raftGroup(JournalGroup g) {
    List<RaftPeer> peers = new ArrayList<>();
    g.replicas()
        .forEach((id, addr) -> peers.add(RaftPeer.newBuilder().setId(id).setAddress(addr).build()));
    return RaftGroup.valueOf(groupId(g.name()), peers);
  }

  /**
   * Makes this node a replica of {@code group}: formats its storage and starts its division. A
   * journal this node already hosts (recovered at start) is left as it is. Every replica of the
   * group calls this; the group elects a leader once a majority has.
   *
   * @throws LoamException INVALID if this node is not one of the group's replicas; UNAVAILABLE if
   *     the server is closed or Ratis refuses the group
   */
  @Override
  public void host(JournalGroup group) {
    ensureOpen();
    if (!group.replicas().containsKey(settings.nodeId())) {
      throw new LoamException(
          Kind.INVALID,
          "this node is not a replica of the journal journal="
              + group.name()
              + " node="
              + settings.nodeId());
    }
    RaftGroupId id = groupId(group.name());
    if (metaGuards.stopped(id)) {
      throw new LoamException(
          Kind.UNAVAILABLE,
          "journal replica stopped: its Raft term and vote file was lost; restart the node"
              + " journal="
              + group.name()
              + " node="
              + settings.nodeId());
    }
    if (machines.containsKey(id)) {
      return;
    }
    try {
      RaftClientReply reply =
          server.groupManagement(
              GroupManagementRequest.newAdd(
                  adminClientId, localId, adminCallId.incrementAndGet(), raftGroup(group), true));
      if (!reply.isSuccess()) {
        throw new LoamException(
            Kind.UNAVAILABLE,
            "journal server refused the journal journal=" + group.name(),
            reply.getException());
      }
    } catch (IOException e) {
      throw new LoamException(
          Kind.UNAVAILABLE, "cannot host the journal journal=" + group.name(), e);
    }
    LOG.info("journal hosted journal={} node={} group={}", group.name(), localId, id);
    guard(id);
  }

  /** Starts the term-and-vote guard of a running division. */
  private void guard(RaftGroupId id) {
    try {
      metaGuards.guard(
          id,
          server.getDivision(id).getRaftStorage(),
          lost -> executor.execute(() -> stopLostReplica(id, lost)));
    } catch (IOException e) {
      LOG.warn("cannot guard the journal's term and vote file node={} group={}", localId, id, e);
    }
  }

  /**
   * Stops the division of a journal whose term and vote file was lost, so that this replica no
   * longer votes (a restart could not trust its vote), then repairs the file; the other replicas
   * keep a majority. The journal is not hosted again until the server restarts.
   */
  private void stopLostReplica(RaftGroupId id, String lost) {
    metaGuards.markStopped(id);
    LOG.error(
        "journal replica stopped: its Raft term and vote file is lost node={} group={}: {}",
        localId,
        id,
        lost);
    boolean removed = false;
    try {
      RaftClientReply reply =
          server.groupManagement(
              GroupManagementRequest.newRemove(
                  adminClientId, localId, adminCallId.incrementAndGet(), id, false, false));
      removed = reply.isSuccess();
      if (!removed) {
        LOG.error(
            "cannot stop the journal replica node={} group={}", localId, id, reply.getException());
      }
    } catch (IOException | RuntimeException e) {
      LOG.error("cannot stop the journal replica node={} group={}", localId, id, e);
    }
    machines.remove(id);
    RaftClient c = clients.remove(id);
    if (c != null) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing the client of a stopped journal replica group={}", id, e);
      }
    }
    if (removed) {
      // The division stopped: nothing writes its file any more. Otherwise the server's close
      // repairs it, after the server stopped.
      metaGuards.repair(id);
    }
  }

  /** Whether this node is a replica of {@code journal} (hosted or recovered). */
  @Override
  public boolean hosts(String journal) {
    return machines.containsKey(groupId(journal));
  }

  /**
   * Proposes {@code entry} to the journal's leader; completes with the result the leader's state
   * machine gave once the entry is committed (on a majority's disks) and applied.
   *
   * <p>The future fails with UNAVAILABLE (nothing sent) if this server is closed, is not a replica
   * of the journal, or knows no leader of it within a request timeout, and with OUTCOME_UNKNOWN if
   * no reply came within the retry budget.
   */
  @Override
  public CompletableFuture<JournalResult> propose(String journal, JournalEntry entry) {
    if (hosts(journal) && leader(journal).isEmpty() && neverApplied(journal)) {
      // A journal just placed has had no leader yet, and its other replicas may not host the
      // group yet: a client sent now may reach one of those and fail with an unknown outcome.
      // Wait (at most FIRST_LEADER_WAIT) for the first leader this replica learns of, which the
      // client then addresses first.
      return awaitLeader(journal, FIRST_LEADER_WAIT_MS / LEADER_POLL_MS)
          .thenCompose(known -> send(journal, entry));
    }
    return send(journal, entry);
  }

  /** Whether this replica of the journal has applied nothing yet: its group never had a leader. */
  private boolean neverApplied(String journal) {
    DivisionInfo info = info(journal);
    if (info == null) {
      return false;
    }
    try {
      return info.getLastAppliedIndex() < 0;
    } catch (IllegalStateException e) {
      // The division is still starting (Ratis has not created its state machine updater yet): it
      // has applied nothing.
      return true;
    }
  }

  /** How often a proposal waiting for a journal's first leader looks again. */
  private static final long LEADER_POLL_MS = 25;

  /** How long a proposal to a journal that never had an election waits for its first leader. */
  private static final long FIRST_LEADER_WAIT_MS = 10_000;

  private CompletableFuture<Boolean> awaitLeader(String journal, long polls) {
    if (leader(journal).isPresent()) {
      return CompletableFuture.completedFuture(true);
    }
    if (polls <= 0 || !hosts(journal)) {
      return CompletableFuture.completedFuture(false);
    }
    return CompletableFuture.supplyAsync(
            () -> null,
            CompletableFuture.delayedExecutor(LEADER_POLL_MS, TimeUnit.MILLISECONDS, executor))
        .thenCompose(v -> awaitLeader(journal, polls - 1));
  }

  private CompletableFuture<JournalResult> send(String journal, JournalEntry entry) {
    return send(journal, entry, settings.maxAttempts());
  }

  /**
   * Whether Ratis refused the request because its leader is handing over leadership: it checks that
   * before the entry reaches the log, so the entry was not logged and may be sent again (as a new
   * call) without a second copy.
   */
  private static boolean steppingDown(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof org.apache.ratis.protocol.exceptions.LeaderSteppingDownException) {
        return true;
      }
    }
    return false;
  }

  private CompletableFuture<JournalResult> send(
      String journal, JournalEntry entry, int attemptsLeft) {
    RaftClient client;
    try {
      client = client(journal);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    byte[] bytes = JournalEntryCodec.encode(entry);
    CompletableFuture<RaftClientReply> sent;
    try {
      sent = client.async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(bytes)));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(outcomeUnknown(journal, entry, e));
    }
    return sent.handle(
            (reply, error) -> {
              if (error == null && reply.isSuccess()) {
                return CompletableFuture.completedFuture(
                    JournalResultCodec.decode(reply.getMessage().getContent().toByteArray()));
              }
              Throwable cause = error != null ? error : reply.getException();
              if (steppingDown(cause) && attemptsLeft > 1) {
                // A leadership transfer is under way (the placement hint's, or an operator's):
                // send again once the new leader took over, within the proposal's retry budget.
                return CompletableFuture.supplyAsync(
                        () -> null,
                        CompletableFuture.delayedExecutor(
                            settings.retryInterval().toMillis(), TimeUnit.MILLISECONDS, executor))
                    .thenCompose(v -> send(journal, entry, attemptsLeft - 1));
              }
              renewClient(journal, client);
              return CompletableFuture.<JournalResult>failedFuture(
                  outcomeUnknown(journal, entry, cause));
            })
        .thenComposeAsync(f -> f, executor);
  }

  private static LoamException outcomeUnknown(String journal, JournalEntry e, Throwable cause) {
    return new LoamException(
        Kind.OUTCOME_UNKNOWN,
        "journal proposal got no reply; it may be committed journal="
            + journal
            + " stream="
            + e.streamId()
            + " partition="
            + e.partition(),
        cause);
  }

  private RaftClient client(String journal) {
    ensureOpen();
    RaftGroupId id = groupId(journal);
    if (!machines.containsKey(id)) {
      throw new LoamException(
          Kind.UNAVAILABLE, "journal not on this node journal=" + journal + " node=" + localId);
    }
    return clients.computeIfAbsent(id, this::newClient);
  }

  /**
   * A client addressed to the group's current configuration, its first request to the leader this
   * replica knows. Every retry of one call keeps its call id, so the retry cache dedupes it.
   */
  private RaftClient newClient(RaftGroupId id) {
    RaftServer.Division d = division(id);
    RaftProperties props = new RaftProperties();
    RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(props, td(settings.requestTimeout()));
    GrpcConfigKeys.setMessageSizeMax(
        props,
        SizeInBytes.valueOf(Math.max(8L << 20, JournalEntryCodec.MAX_BODY_BYTES + (2 << 20))));
    RaftClient.Builder b =
        RaftClient.newBuilder()
            .setProperties(props)
            .setParameters(parameters)
            .setRaftGroup(RaftGroup.valueOf(id, d.getRaftConf().getCurrentPeers()))
            .setRetryPolicy(
                RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                    settings.maxAttempts(), td(settings.retryInterval())));
    RaftPeerId leader = d.getInfo().getLeaderId();
    if (leader != null) {
      b.setLeaderId(leader);
    }
    return b.build();
  }

  /**
   * Replaces a client whose ordered request failed: a Ratis client whose ordered request ran out of
   * retries fails every later one. The new client has a new client id, so the retry cache does not
   * know its calls; the producer check still dedupes idempotent batches.
   */
  private void renewClient(String journal, RaftClient failed) {
    RaftGroupId id = groupId(journal);
    if (clients.remove(id, failed)) {
      try {
        failed.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing a failed journal client journal={}", journal, e);
      }
    }
  }

  private RaftServer.Division division(RaftGroupId id) {
    try {
      return server.getDivision(id);
    } catch (IOException e) {
      throw new LoamException(Kind.UNAVAILABLE, "journal division not running group=" + id, e);
    }
  }

  /**
   * Reads one partition of a journal from this replica's applied state (committed records only).
   *
   * @throws LoamException UNAVAILABLE if the journal is not on this node or the server is closed;
   *     NOT_FOUND and INVALID as {@link JournalState#read}
   */
  @Override
  public JournalRead read(
      String journal, long streamId, int partition, long fromOffset, int maxBytes) {
    return query(journal, s -> s.read(streamId, partition, fromOffset, maxBytes));
  }

  /** The partition's high watermark on this replica, if the journal hosts it. */
  @Override
  public OptionalLong highWatermark(String journal, long streamId, int partition) {
    return query(journal, s -> s.highWatermark(streamId, partition));
  }

  /**
   * Runs {@code q} against this replica's applied state of {@code journal}, under its read lock.
   */
  @Override
  public <T> T query(String journal, Function<JournalState, T> q) {
    ensureOpen();
    JournalStateMachine m = machines.get(groupId(journal));
    if (m == null) {
      throw new LoamException(
          Kind.UNAVAILABLE, "journal not on this node journal=" + journal + " node=" + localId);
    }
    return m.read(q);
  }

  /**
   * Calls {@code listener} with every entry this replica applies for {@code journal} and its
   * result, in log order, on the journal's apply thread (it must not block), and after every
   * snapshot reload. For long polls that wake on a commit.
   *
   * @return closing it removes the listener
   */
  @Override
  public AutoCloseable onApplied(String journal, JournalListener listener) {
    Objects.requireNonNull(listener, "listener");
    List<JournalListener> ls =
        listeners.computeIfAbsent(
            groupId(journal), k -> new java.util.concurrent.CopyOnWriteArrayList<>());
    ls.add(listener);
    return () -> ls.remove(listener);
  }

  /**
   * Asks the journal's leader to hand leadership to {@code nodeId} (the placement hint: a leader in
   * the producers' zone saves them a cross-zone hop). Runs on the executor; completes once {@code
   * nodeId} leads, or fails UNAVAILABLE if the transfer did not finish within {@code timeout} (the
   * old leader keeps leading, or an election picks another) or INVALID if the node is not a
   * replica.
   */
  @Override
  public CompletableFuture<Void> transferLeadership(
      String journal, String nodeId, Duration timeout) {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(timeout, "timeout");
    return CompletableFuture.runAsync(
        () -> {
          RaftClient c = client(journal);
          RaftPeerId target = RaftPeerId.valueOf(nodeId);
          boolean replica =
              division(groupId(journal)).getRaftConf().getCurrentPeers().stream()
                  .anyMatch(p -> p.getId().equals(target));
          if (!replica) {
            throw new LoamException(
                Kind.INVALID,
                "not a replica of the journal journal=" + journal + " node=" + nodeId);
          }
          RaftClientReply reply;
          try {
            reply = c.admin().transferLeadership(target, timeout.toMillis());
          } catch (IOException | RuntimeException e) {
            throw new LoamException(
                Kind.UNAVAILABLE,
                "leadership transfer failed journal=" + journal + " node=" + nodeId,
                e);
          }
          if (!reply.isSuccess()) {
            throw new LoamException(
                Kind.UNAVAILABLE,
                "leadership transfer failed journal=" + journal + " node=" + nodeId,
                reply.getException());
          }
        },
        executor);
  }

  /** Whether this replica is the journal's leader now. */
  @Override
  public boolean isLeader(String journal) {
    DivisionInfo info = info(journal);
    return info != null && info.isLeader() && info.isLeaderReady();
  }

  /** The node id of the leader this replica knows, if any. */
  @Override
  public Optional<String> leader(String journal) {
    DivisionInfo info = info(journal);
    RaftPeerId l = info == null ? null : info.getLeaderId();
    return l == null ? Optional.empty() : Optional.of(l.toString());
  }

  /** The Raft term this replica is in, or -1 if the journal is not running here. */
  public long term(String journal) {
    DivisionInfo info = info(journal);
    return info == null ? -1 : info.getCurrentTerm();
  }

  /** The log index of the journal's newest snapshot on this replica, or -1. */
  public long latestSnapshotIndex(String journal) {
    JournalStateMachine m = machines.get(groupId(journal));
    return m == null ? -1 : m.latestSnapshotIndex();
  }

  /** The log's first index on this replica (after purges), or -1. */
  public long logStartIndex(String journal) {
    try {
      return server.getDivision(groupId(journal)).getRaftLog().getStartIndex();
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Whether this replica leads the journal and heard from the replica {@code nodeId} within {@code
   * within} (its last answer to an append or heartbeat): a leadership transfer to a replica that
   * does not answer would only hold back new entries until it timed out.
   */
  @Override
  public boolean heardFrom(String journal, String nodeId, Duration within) {
    DivisionInfo info = info(journal);
    if (info == null || !info.isLeader()) {
      return false;
    }
    org.apache.ratis.proto.RaftProtos.RoleInfoProto role = info.getRoleInfoProto();
    if (!role.hasLeaderInfo()) {
      return false;
    }
    for (org.apache.ratis.proto.RaftProtos.ServerRpcProto f :
        role.getLeaderInfo().getFollowerInfoList()) {
      if (f.getId().getId().toStringUtf8().equals(nodeId)) {
        return f.getLastRpcElapsedTimeMs() <= within.toMillis();
      }
    }
    return false;
  }

  /**
   * Whether this replica has applied every entry its log knows to be committed: on a leader (whose
   * commit index covers an entry of its own term), its state then reflects everything any earlier
   * leader committed. False when the journal is not on this node.
   */
  @Override
  public boolean appliedAllCommitted(String journal) {
    if (closed) {
      return false;
    }
    try {
      RaftServer.Division d = server.getDivision(groupId(journal));
      return d.getInfo().getLastAppliedIndex() >= d.getRaftLog().getLastCommittedIndex();
    } catch (IOException | IllegalStateException e) {
      return false;
    }
  }

  private DivisionInfo info(String journal) {
    if (closed) {
      return null;
    }
    try {
      return server.getDivision(groupId(journal)).getInfo();
    } catch (IOException e) {
      return null;
    }
  }

  /** This node's id. */
  @Override
  public String nodeId() {
    return settings.nodeId();
  }

  private void ensureOpen() {
    if (closed) {
      throw new LoamException(Kind.UNAVAILABLE, "journal server is closed node=" + localId);
    }
  }

  /**
   * Stops this node's journal server at once, without a snapshot: a stop is treated like a crash,
   * and a restart recovers every journal from its directory.
   */
  @Override
  public void close() {
    closed = true;
    for (RaftClient c : clients.values()) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing a journal client", e);
      }
    }
    clients.clear();
    try {
      server.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("journal server did not close cleanly node={}", localId, e);
    }
    // After the server: nothing writes the files any more, so a repair cannot race Ratis's own.
    metaGuards.repairAll();
  }
}
