package dev.loam.meta.ratis;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.AppliedIndexWatch;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.ratis.internal.RaftMetaGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.ExitUtils;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.util.TimeoutExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated {@link Metastore} on Apache Ratis (docs/design/metastore-ratis.md): one replica of
 * a Raft group whose entries are {@link CommandCodec} commands applied by the same {@code
 * MetaStateMachine} as the embedded metastore. A metastore index (an {@link Applied#index()}, a
 * consistency token) counts commands: the n-th command applied is index n on every replica,
 * whatever Ratis log index carried it (Ratis interleaves configuration and commit-index entries).
 *
 * <ul>
 *   <li><b>Proposals</b> go through this replica's Ratis client to the leader. The client retries
 *       through leader changes and timeouts with the <em>same</em> call id, so the Ratis retry
 *       cache answers a retry of a logged command with its first reply, and the state machine's
 *       commit dedupe covers the rest. Retries are bounded ({@link
 *       RatisSettings#proposalTimeoutBound()}). A proposal completes once its command is applied on
 *       <em>this</em> replica.
 *   <li><b>Reads</b> ({@link #read}) run against this replica's state under a read lock; {@link
 *       #awaitApplied} makes them read-your-writes on any replica; {@link #readLinearizable} first
 *       asks the leader for a read index.
 *   <li><b>Watches</b>: every replica calls its {@link ApplyListener}s as it applies, so a waiter
 *       on one node wakes within milliseconds of a commit made through another.
 * </ul>
 *
 * <p>Failure kinds: UNAVAILABLE when the command was certainly not logged (closed, stopped after a
 * failure, too many proposals in flight); OUTCOME_UNKNOWN once it was handed to Ratis and no reply
 * came (retries exhausted, client closed, this replica stopped before applying it). A replica that
 * fails to apply or to snapshot stops (fail-stop, see {@link MetaRatisStateMachine}).
 *
 * <p>Thread-safe. Ratis owns its threads; futures are completed on the injected executor.
 *
 * <p>Why one file of about 900 lines: its sections (starting the server, the {@link Metastore}
 * methods, membership and admin, the state machine's callbacks) share one replica's server,
 * clients, fail-stop state and applied-index watch, and their ordering under close and failure is
 * the hard part; kept together, that ordering can be read in one place. The applied-index waiters
 * and listeners already live in {@link AppliedIndexWatch}, shared with the other metastores.
 */
public final class RatisMetastore implements Metastore {
  private static final Logger LOG = LoggerFactory.getLogger(RatisMetastore.class);

  /** How long a close keeps trying to rewrite a lost raft-meta while the disk refuses. */
  private static final long REPAIR_BUDGET_MILLIS = 5_000;

  private final RatisSettings ratis;
  private final MetaSettings settings;
  private final InstantSource clock;
  private final Executor executor;
  private final long maxFutureStampMillis;
  private final RaftGroupId groupId;
  private final RaftPeerId localId;
  private final MetaRatisStateMachine stateMachine;
  private final Semaphore inFlight;
  private final RatisTransport transport;

  /**
   * The applied index, its awaitApplied futures and the apply listeners. Its monitor also guards
   * the transitions to closed and failed, so that no future registers after them unfailed.
   */
  private final AppliedIndexWatch watch = new AppliedIndexWatch(0);

  private volatile boolean closed;

  /** The first fatal failure of this replica (fail-stop); once set, proposals fail. */
  private volatile LoamException failure;

  /** Completed with {@link #failure} when it is first set. */
  private final CompletableFuture<LoamException> failed = new CompletableFuture<>();

  private RaftServer server;

  /**
   * Proposals and read indexes; built on first use (client()), replaced after a failed proposal
   * (renewClient).
   */
  private volatile RaftClient client;

  /** Replaced clients not closed yet; guarded by clientLock. */
  private final List<RaftClient> retiredClients = new ArrayList<>();

  private final Object clientLock = new Object();
  private RaftClient adminClient;
  private FollowerWatchdog watchdog;
  private RaftMetaGuard metaGuard;

  private RatisMetastore(
      RatisSettings ratis, MetaSettings settings, InstantSource clock, Executor executor) {
    this.ratis = ratis;
    this.settings = settings;
    this.clock = clock;
    this.executor = executor;
    this.maxFutureStampMillis = settings.maxFutureStamp().toMillis();
    this.groupId = groupId(ratis.groupName());
    this.localId = RaftPeerId.valueOf(ratis.localPeerId());
    this.inFlight = new Semaphore(ratis.maxInFlightProposals());
    this.stateMachine = new MetaRatisStateMachine(settings, clock, new HostImpl());
    this.transport = RatisTransport.of(ratis);
  }

  /**
   * Starts this replica: recovers its state from {@code storageDir} (newest snapshot, then the
   * logged entries after it as the leader confirms their commit) or formats it, joins the group and
   * starts serving. Returns before a leader is elected; proposals wait for one within their retry
   * budget.
   *
   * @param clock used only for the future-stamp check of {@link #propose}
   * @param executor completes proposal, read and awaitApplied futures, and runs blocking admin
   *     calls
   * @throws LoamException UNAVAILABLE if the server cannot start (port taken, directory locked or
   *     unreadable); CORRUPTION if the newest snapshot is damaged
   */
  public static RatisMetastore start(
      RatisSettings ratis, MetaSettings settings, InstantSource clock, Executor executor) {
    RatisSupport.require();
    Objects.requireNonNull(ratis, "ratis");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(executor, "executor");
    // Ratis ends the JVM (System.exit) on some start failures, e.g. a port already in use. Loam
    // runs inside a host application: a replica that cannot start (or hits a fatal Ratis error)
    // must fail with an exception, never take the host process down.
    ExitUtils.disableSystemExit();
    RatisMetastore m = new RatisMetastore(ratis, settings, clock, executor);
    try {
      m.startServer();
      return m;
    } catch (IOException | RuntimeException e) {
      m.close();
      CorruptionException corrupt = findCause(e, CorruptionException.class);
      if (corrupt != null) {
        throw corrupt;
      }
      throw new LoamException(
          Kind.UNAVAILABLE,
          "cannot start the Ratis metastore peer="
              + ratis.localPeerId()
              + " dir="
              + ratis.storageDir(),
          e);
    }
  }

  private void startServer() throws IOException {
    RaftProperties props = serverProperties();
    List<RaftPeer> peers = new ArrayList<>();
    ratis.voters().forEach((id, addr) -> peers.add(peer(id, addr, RaftPeerRole.FOLLOWER)));
    ratis.listeners().forEach((id, addr) -> peers.add(peer(id, addr, RaftPeerRole.LISTENER)));
    RaftGroup group = RaftGroup.valueOf(groupId, peers);
    Files.createDirectories(ratis.storageDir());
    Path groupDir = ratis.storageDir().resolve(groupId.getUuid().toString());
    boolean existing = Files.isDirectory(groupDir);
    if (existing) {
      Optional<String> lost = RaftMetaGuard.problem(groupDir);
      if (lost.isPresent()) {
        throw new CorruptionException(
            "the replica's Raft term and vote are lost peer="
                + localId
                + ": "
                + lost.get()
                + ". Restore the file with the term and votedFor this replica last held (a"
                + " replica that closed after losing it logged them), or remove the peer from the"
                + " group and add it back with an empty directory");
      }
    }
    server =
        RaftServer.newBuilder()
            .setServerId(localId)
            .setGroup(group)
            .setStateMachine(stateMachine)
            .setProperties(props)
            .setParameters(transport.parameters())
            .setOption(
                existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
            .build();
    server.start();
    metaGuard =
        RaftMetaGuard.start(
            server.getDivision(groupId).getRaftStorage(),
            localId.toString(),
            lost -> stop("Raft term and vote file lost (" + lost + ")", null));
    LOG.info(
        "metastore Raft port listening peer={} host={} port={} tls={}",
        localId,
        ratis.bindHost(),
        ratis.bindPort(),
        transport.secured() ? "mutual" : "off");

    // The proposal client is built on first use (client()), when an election has usually named a
    // leader: a client addresses its first request to the leader it was built with (else to the
    // first voter), and the Ratis client logs each redirect of an ordered request at ERROR.
    // Membership changes get their own client: an attempt must outlast the leader's staging
    // timeout (so a peer that never catches up is reported by the leader, not by a deadline), and
    // a staging failure is final for the call. Retrying it would restart the staging from scratch,
    // attempt after attempt, for the whole budget (docs/design/metastore-ratis.md "Membership").
    List<RaftPeer> voters = new ArrayList<>();
    ratis.voters().forEach((id, addr) -> voters.add(peer(id, addr, RaftPeerRole.FOLLOWER)));
    RetryPolicy retry = retryPolicy();
    RaftProperties adminProps = new RaftProperties();
    RaftConfigKeys.Rpc.setType(adminProps, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(adminProps, td(adminAttemptTimeout()));
    adminClient =
        RaftClient.newBuilder()
            .setProperties(adminProps)
            .setParameters(transport.parameters())
            .setRaftGroup(RaftGroup.valueOf(groupId, voters))
            .setRetryPolicy(
                event ->
                    findCause(event.getCause(), ReconfigurationTimeoutException.class) != null
                        ? RetryPolicy.NO_RETRY_ACTION
                        : retry.handleAttemptFailure(event))
            .build();
    watchdog = followerWatchdog();
    watchdog.start();
  }

  /**
   * The leader's guard against a follower that answers but never catches up (a Ratis log appender
   * stuck on a restarted follower; {@link StuckFollowerDetector}): a follower counts as answering
   * for max(10 s, 5 election timeouts) after its last answer, as stuck after 2.5 times that without
   * progress; then the leadership goes to the most caught-up other voter, at most once a minute.
   */
  private FollowerWatchdog followerWatchdog() {
    Duration answeredWithin = ratis.electionTimeoutMax().multipliedBy(5);
    if (answeredWithin.compareTo(Duration.ofSeconds(10)) < 0) {
      answeredWithin = Duration.ofSeconds(10);
    }
    return new FollowerWatchdog(
        server,
        groupId,
        localId,
        ratis.voters().keySet(),
        () -> adminClient,
        executor,
        answeredWithin.multipliedBy(5).dividedBy(2),
        answeredWithin,
        ratis.electionTimeoutMax().multipliedBy(3),
        Duration.ofMinutes(1));
  }

  private RetryPolicy retryPolicy() {
    return RetryPolicies.retryUpToMaximumCountWithFixedSleep(
        ratis.maxAttempts(), td(ratis.retryInterval()));
  }

  /** The proposal client, built on first use; fails UNAVAILABLE once the replica is closed. */
  private RaftClient client() {
    RaftClient c = client;
    if (c != null) {
      return c;
    }
    synchronized (clientLock) {
      if (closed) {
        throw new LoamException(Kind.UNAVAILABLE, "metastore is closed peer=" + localId);
      }
      if (client == null) {
        client = newClient(true);
      }
      return client;
    }
  }

  /**
   * A Ratis client for proposals and read indexes, addressed to the voters of the configuration
   * this replica knows now (the settings' voters until it has joined; a membership change is picked
   * up by the next client). With {@code toKnownLeader}, its first request goes to the leader this
   * replica knows, if that is one of those voters; a client that replaces a failed one is built
   * without it, since the leader this replica still names may be the one that failed or left.
   */
  private RaftClient newClient(boolean toKnownLeader) {
    List<RaftPeer> voters = new ArrayList<>();
    try {
      voters.addAll(server.getDivision(groupId).getRaftConf().getCurrentPeers());
    } catch (IOException | RuntimeException e) {
      LOG.debug("no configuration yet, addressing the configured voters peer={}", localId, e);
    }
    if (voters.isEmpty()) {
      ratis.voters().forEach((id, addr) -> voters.add(peer(id, addr, RaftPeerRole.FOLLOWER)));
    }
    RaftProperties clientProps = new RaftProperties();
    RaftConfigKeys.Rpc.setType(clientProps, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(clientProps, td(ratis.requestTimeout()));
    RaftClientConfigKeys.Async.setOutstandingRequestsMax(
        clientProps, Math.max(2, ratis.maxInFlightProposals()));
    RaftClient.Builder b =
        RaftClient.newBuilder()
            .setProperties(clientProps)
            .setParameters(transport.parameters())
            .setRaftGroup(RaftGroup.valueOf(groupId, voters))
            // Every retry of one call keeps its call id, so the server's retry cache dedupes it.
            .setRetryPolicy(retryPolicy());
    if (toKnownLeader) {
      knownLeader()
          .filter(l -> voters.stream().anyMatch(v -> v.getId().equals(l)))
          .ifPresent(b::setLeaderId);
    }
    return b.build();
  }

  /**
   * Replaces {@code failed} (if it is still the current client) by a new client, after a proposal
   * on it failed. A Ratis client whose ordered request ran out of retries fails every later ordered
   * request on it ("already closed": its sliding window keeps the failure), so without this a
   * replica could never propose or read again after one outage longer than the retry budget. The
   * new client has a new client id: the retry cache does not know its calls, the commit dedupe
   * still does (as for a retry through another replica). The old client is closed once the requests
   * still in flight on it have had their whole budget.
   */
  private void renewClient(RaftClient failed, Throwable cause) {
    synchronized (clientLock) {
      if (closed || client != failed) {
        return;
      }
      client = newClient(false);
      retiredClients.add(failed);
    }
    LOG.info(
        "metastore Ratis client replaced after a failed request cause={} peer={}",
        unwrap(cause).getClass().getSimpleName(),
        localId);
    TimeoutExecutor.getInstance()
        .onTimeout(
            td(ratis.proposalTimeoutBound()),
            () -> retire(failed),
            t -> LOG.warn("cannot schedule closing a replaced client peer={}", localId, t));
  }

  private void retire(RaftClient old) {
    synchronized (clientLock) {
      if (!retiredClients.remove(old)) {
        return; // closed with the replica
      }
    }
    closeQuietly(old, "replaced client");
  }

  /**
   * The leader gives up on a new peer that made no progress for this long (Ratis's default, three
   * election timeouts, set explicitly so the admin attempt timeout can be derived from it).
   */
  private Duration stagingTimeout() {
    return ratis.electionTimeoutMax().multipliedBy(3);
  }

  /** One setConfiguration attempt: the request timeout, and at least twice the staging timeout. */
  private Duration adminAttemptTimeout() {
    Duration twice = stagingTimeout().multipliedBy(2);
    return twice.compareTo(ratis.requestTimeout()) > 0 ? twice : ratis.requestTimeout();
  }

  private RaftProperties serverProperties() {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    transport.configureServer(p, ratis);
    RaftServerConfigKeys.setStorageDir(p, List.of(ratis.storageDir().toFile()));
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, td(ratis.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, td(ratis.electionTimeoutMax()));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, td(ratis.requestTimeout()));
    RaftServerConfigKeys.setStagingTimeout(p, td(stagingTimeout()));
    // Linearizable reads use the Raft read index (Raft thesis §6.4), never a stale leader.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setTimeout(p, td(ratis.requestTimeout()));
    // Kept on (the default): the leader logs each commit index advance as a metadata entry and
    // sends it at once, which is how followers learn of a commit within a round trip instead of a
    // heartbeat later. Those entries take Ratis log indexes, which is why metastore indexes count
    // commands instead (docs/design/metastore-ratis.md "Indexes").
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, true);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(ratis.logSegmentSizeBytes()));
    RaftServerConfigKeys.Log.setPreallocatedSize(
        p, SizeInBytes.valueOf(Math.min(4L << 20, ratis.logSegmentSizeBytes())));
    // Purge to the snapshot even if a follower is behind: it then catches up by snapshot install
    // (docs/design/metastore-ratis.md "Snapshots and purge").
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        p, (int) Math.max(1, Math.min(1024, ratis.snapshotThresholdEntries())));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, ratis.snapshotThresholdEntries());
    RaftServerConfigKeys.Snapshot.setCreationGap(p, 1);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    // A stop is treated like a crash: recovery replays the log after the last snapshot.
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    // The retry cache must outlive a proposal's whole retry budget, or a late retry of a logged
    // command would be logged again (then only the state machine's dedupe would catch it).
    Duration expiry = ratis.proposalTimeoutBound().multipliedBy(2);
    RaftServerConfigKeys.RetryCache.setExpiryTime(
        p, td(expiry.compareTo(Duration.ofSeconds(60)) < 0 ? Duration.ofSeconds(60) : expiry));
    return p;
  }

  private static RaftPeer peer(String id, String address, RaftPeerRole role) {
    return RaftPeer.newBuilder().setId(id).setAddress(address).setStartupRole(role).build();
  }

  static RaftGroupId groupId(String groupName) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("loam-meta:" + groupName).getBytes(StandardCharsets.UTF_8)));
  }

  private static TimeDuration td(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  // ---- Metastore

  /**
   * {@inheritDoc}
   *
   * <p>Goes through the leader; completes once applied on this replica. Fails with UNAVAILABLE
   * before anything was sent (closed, stopped, {@code maxInFlightProposals} reached) and with
   * OUTCOME_UNKNOWN once Ratis had the command and gave no answer within the retry budget.
   */
  @Override
  public CompletableFuture<Applied> propose(Command command) {
    Objects.requireNonNull(command, "command");
    LoamException refused = refusal();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    // Refused before sending: a command stamped ahead of both this replica's clock and the
    // metastore clock it has applied (a clock that stepped back must not make a true stamp look
    // like the future). The leader checks again with its own clock
    // (MetaRatisStateMachine.startTransaction): that is the check that stops a node whose whole
    // clock stepped ahead (stream-engine.txt §3).
    long now = Math.max(clock.millis(), stateMachine.read(MetaReader::clockMillis));
    long stamp = command.origin().stampMillis();
    if (stamp > now + maxFutureStampMillis) {
      return CompletableFuture.completedFuture(
          new Applied(
              appliedIndex(),
              new Outcome.Rejected(
                  Outcome.RejectReason.FUTURE_STAMP,
                  "command stamped too far ahead of the metastore's clock node="
                      + command.origin().nodeId()
                      + " stamp="
                      + stamp
                      + " clock="
                      + now
                      + " maxFutureStampMillis="
                      + maxFutureStampMillis)));
    }
    byte[] payload;
    try {
      payload = CommandCodec.encode(command);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (!inFlight.tryAcquire()) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.UNAVAILABLE,
              "too many metastore proposals in flight maxInFlightProposals="
                  + ratis.maxInFlightProposals()
                  + " peer="
                  + localId));
    }
    CompletableFuture<RaftClientReply> sent;
    RaftClient c;
    try {
      c = client();
    } catch (LoamException e) {
      inFlight.release();
      return CompletableFuture.failedFuture(e); // closed: nothing was sent
    }
    try {
      sent = c.async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(payload)));
    } catch (RuntimeException e) {
      inFlight.release();
      renewClient(c, e);
      return CompletableFuture.failedFuture(unknown("metastore proposal failed to send", e));
    }
    CompletableFuture<Applied> result = new CompletableFuture<>();
    sent.whenComplete(
        (reply, err) -> {
          inFlight.release();
          String ahead = futureStampRefusal(err != null ? err : reply.getStateMachineException());
          if (ahead != null) {
            // The leader refused it before logging it: nothing was applied.
            result.complete(
                new Applied(
                    appliedIndex(),
                    new Outcome.Rejected(Outcome.RejectReason.FUTURE_STAMP, ahead)));
            return;
          }
          if (err != null) {
            renewClient(c, err);
            completeExceptionally(result, unknown("metastore proposal failed", err));
            return;
          }
          if (!reply.isSuccess()) {
            completeExceptionally(
                result, unknown("metastore proposal failed", reply.getException()));
            return;
          }
          long index;
          Outcome outcome;
          try {
            ByteBuffer b = reply.getMessage().getContent().asReadOnlyByteBuffer();
            index = b.getLong();
            byte[] o = new byte[b.remaining()];
            b.get(o);
            outcome = OutcomeCodec.decode(o);
          } catch (RuntimeException e) {
            completeExceptionally(
                result,
                new LoamException(
                    Kind.INTERNAL,
                    "undecodable metastore reply logIndex="
                        + reply.getLogIndex()
                        + " peer="
                        + localId,
                    e));
            return;
          }
          // Committed and applied on the leader; complete once this replica has it too, so the
          // caller's next local read sees it.
          awaitApplied(index)
              .whenComplete(
                  (v, e2) -> {
                    if (e2 == null) {
                      result.complete(new Applied(index, outcome));
                    } else {
                      result.completeExceptionally(
                          new LoamException(
                              Kind.OUTCOME_UNKNOWN,
                              "metastore command committed but this replica stopped before"
                                  + " applying it index="
                                  + index
                                  + " peer="
                                  + localId,
                              unwrap(e2)));
                    }
                  });
        });
    return result;
  }

  /**
   * The leader's future-stamp refusal (see {@link MetaRatisStateMachine#startTransaction}) that a
   * failed proposal carries — Ratis delivers it as a {@link StateMachineException}, in the reply or
   * as the failure — or null for any other failure.
   */
  private static String futureStampRefusal(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StateMachineException && t.getMessage() != null) {
        String m = t.getMessage();
        int at = m.indexOf(MetaRatisStateMachine.FUTURE_STAMP_MARKER);
        if (at >= 0) {
          return m.substring(at + MetaRatisStateMachine.FUTURE_STAMP_MARKER.length());
        }
      }
    }
    return null;
  }

  private LoamException unknown(String what, Throwable cause) {
    Throwable c = unwrap(cause);
    return new LoamException(
        Kind.OUTCOME_UNKNOWN,
        what
            + "; it may have been logged, retry the same command cause="
            + (c == null ? "none" : c.getClass().getSimpleName())
            + " peer="
            + localId,
        c);
  }

  private LoamException refusal() {
    if (closed) {
      return new LoamException(Kind.UNAVAILABLE, "metastore is closed peer=" + localId);
    }
    LoamException f = failure;
    if (f != null) {
      return new LoamException(
          Kind.UNAVAILABLE,
          "metastore replica stopped after a failure; restart it peer=" + localId,
          f);
    }
    return null;
  }

  /** Runs a query against this replica's applied state (which may lag the leader). */
  @Override
  public <T> T read(Function<MetaReader, T> query) {
    return stateMachine.read(query);
  }

  /**
   * Runs a query against a state at least as new as every command committed before this call
   * (linearizable): the leader confirms its leadership and returns its read index, this replica
   * waits until it has applied that index, then reads locally. For admin tools; plain reads with a
   * consistency token ({@link #awaitApplied}) are cheaper.
   *
   * <p>Fails with UNAVAILABLE when no leader answers within the retry budget (a read changes
   * nothing, so a retry is always safe) or the replica is closed.
   */
  public <T> CompletableFuture<T> readLinearizable(Function<MetaReader, T> query) {
    Objects.requireNonNull(query, "query");
    LoamException refused = refusal();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    CompletableFuture<Long> readIndex = new CompletableFuture<>();
    readIndexAttempt(1, readIndex);
    return readIndex.thenCompose(this::awaitApplied).thenApplyAsync(v -> read(query), executor);
  }

  /**
   * The leader's read index (as {@link #readLinearizable} gets it), then this replica applies up to
   * it.
   */
  @Override
  public CompletableFuture<Void> awaitLatest() {
    LoamException refused = refusal();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    CompletableFuture<Long> readIndex = new CompletableFuture<>();
    readIndexAttempt(1, readIndex);
    return readIndex.thenCompose(this::awaitApplied);
  }

  /**
   * One attempt to get a read index from the leader (the leader's applied index once it has
   * confirmed its leadership and applied its read index). A replica that does not know the leader
   * yet answers with an error the Ratis client does not retry, so attempts are retried here, on
   * Ratis's timer, up to {@code maxAttempts}. Such an answer comes back at once while an election
   * runs, so the wait between attempts is at least the minimum election timeout: {@code
   * maxAttempts} waits of {@code retryInterval} alone could end before the election does.
   */
  private void readIndexAttempt(int attempt, CompletableFuture<Long> result) {
    CompletableFuture<RaftClientReply> sent;
    try {
      // Unordered: a read needs no ordering with this replica's proposals (the read index covers
      // every commit acknowledged before the call), and an unordered request has no sliding window
      // that a failure could close, nor does Ratis log each failed attempt at error level.
      sent = client().async().sendReadOnlyUnordered(Message.EMPTY);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete(
        (reply, err) -> {
          Throwable failed = err != null ? err : reply.isSuccess() ? null : reply.getException();
          if (failed == null) {
            ByteBuffer b = reply.getMessage().getContent().asReadOnlyByteBuffer();
            result.complete(b.getLong());
          } else if (attempt >= ratis.maxAttempts() || refusal() != null) {
            result.completeExceptionally(readFailed(failed));
          } else {
            TimeoutExecutor.getInstance()
                .onTimeout(
                    td(readRetryWait()),
                    () -> readIndexAttempt(attempt + 1, result),
                    t -> result.completeExceptionally(readFailed(t)));
          }
        });
  }

  private Duration readRetryWait() {
    return ratis.retryInterval().compareTo(ratis.electionTimeoutMin()) > 0
        ? ratis.retryInterval()
        : ratis.electionTimeoutMin();
  }

  private LoamException readFailed(Throwable cause) {
    Throwable c = unwrap(cause);
    return new LoamException(
        Kind.UNAVAILABLE, "linearizable metastore read failed peer=" + localId, c);
  }

  @Override
  public long appliedIndex() {
    return watch.appliedIndex();
  }

  @Override
  public CompletableFuture<Void> awaitApplied(long index) {
    return watch.await(
        index,
        () -> {
          LoamException refused = refusal();
          return refused == null
              ? null
              : new LoamException(
                  refused.kind(), refused.getMessage() + " index=" + index, refused);
        });
  }

  @Override
  public void addApplyListener(ApplyListener listener) {
    watch.addListener(listener);
  }

  /**
   * Stops this replica: fails pending {@link #awaitApplied} futures with UNAVAILABLE, closes the
   * client (proposals in flight fail with OUTCOME_UNKNOWN) and the server. The other replicas
   * continue; a leader that closes is replaced after an election timeout. Idempotent.
   */
  @Override
  public void close() {
    synchronized (watch) {
      if (closed) {
        return;
      }
      closed = true;
    }
    failWaiters(new LoamException(Kind.UNAVAILABLE, "metastore closed peer=" + localId));
    List<RaftClient> retired;
    synchronized (clientLock) {
      retired = new ArrayList<>(retiredClients);
      retiredClients.clear();
    }
    RaftClient current;
    synchronized (clientLock) {
      current = client;
    }
    if (watchdog != null) {
      watchdog.stop();
    }
    closeQuietly(adminClient, "admin client");
    closeQuietly(current, "client");
    retired.forEach(c -> closeQuietly(c, "replaced client"));
    closeQuietly(server, "server");
    if (metaGuard != null) {
      // After the server: nothing writes the file any more, so a repair cannot race Ratis's own.
      metaGuard.repairAfterClose(REPAIR_BUDGET_MILLIS);
    }
  }

  private void closeQuietly(AutoCloseable c, String what) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("cannot close the Ratis {} peer={}", what, localId, e);
    }
  }

  private void failWaiters(LoamException err) {
    watch.drain().forEach(f -> completeExceptionally(f, err));
  }

  // ---- membership and admin

  /**
   * Replaces the voters (and listeners) of the group at runtime (Raft joint consensus through Ratis
   * setConfiguration; docs/design/metastore-ratis.md "Membership"). New peers must already be
   * running, started with settings naming this new configuration: the leader first catches them up
   * (by snapshot install if its log was purged), then commits the joint and the new configuration.
   * Completes once the new configuration is committed. A leader that is not in the new
   * configuration steps down once it is committed, and the new voters elect a leader among
   * themselves. Listeners named in {@code voters} are promoted, voters named in {@code listeners}
   * demoted. Naming the current configuration completes at once.
   *
   * <p>Fails, within at most {@link RatisSettings#proposalTimeoutBound()} (a new peer that never
   * answers fails after one staging timeout, three election timeouts):
   *
   * <ul>
   *   <li>UNAVAILABLE, configuration unchanged, when a new peer made no progress while the leader
   *       tried to catch it up (not running, unreachable, wrong group): start it and call again;
   *   <li>INVALID when Ratis refuses the change itself (for example a change that would add as many
   *       new voters as it keeps, which Ratis forbids: grow in steps);
   *   <li>OUTCOME_UNKNOWN when no leader answered within the retry budget or this replica closed:
   *       the change may or may not be committed; calling again with the same target is safe (a
   *       change to the current configuration is a no-op).
   * </ul>
   *
   * @throws IllegalArgumentException (synchronously) for an empty or oversized voter map, malformed
   *     peers, or a peer both voter and listener
   */
  public CompletableFuture<Void> setConfiguration(
      Map<String, String> voters, Map<String, String> listeners) {
    Objects.requireNonNull(voters, "voters");
    Objects.requireNonNull(listeners, "listeners");
    // The same checks as at start: validated as settings of the first voter.
    if (!voters.isEmpty()) {
      ratis.withPeers(voters.keySet().iterator().next(), voters, listeners);
    } else {
      throw new IllegalArgumentException("a configuration needs at least one voter");
    }
    LoamException refused = refusal();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    List<RaftPeer> v = new ArrayList<>();
    new TreeMap<>(voters).forEach((id, addr) -> v.add(peer(id, addr, RaftPeerRole.FOLLOWER)));
    List<RaftPeer> l = new ArrayList<>();
    new TreeMap<>(listeners).forEach((id, addr) -> l.add(peer(id, addr, RaftPeerRole.LISTENER)));
    String target =
        "voters="
            + new TreeMap<>(voters).keySet()
            + " listeners="
            + new TreeMap<>(listeners).keySet();
    return CompletableFuture.supplyAsync(
        () -> {
          RaftClientReply reply;
          try {
            reply =
                adminClient
                    .admin()
                    .setConfiguration(
                        SetConfigurationRequest.Arguments.newBuilder()
                            .setServersInNewConf(v)
                            .setListenersInNewConf(l)
                            .build());
          } catch (IOException | RuntimeException e) {
            throw configurationFailed(target, e);
          }
          if (!reply.isSuccess()) {
            throw configurationFailed(target, reply.getException());
          }
          LOG.info("metastore configuration changed {} peer={}", target, localId);
          return null;
        },
        executor);
  }

  private LoamException configurationFailed(String target, Throwable cause) {
    Throwable c = unwrap(cause);
    if (findCause(c, ReconfigurationTimeoutException.class) != null) {
      return new LoamException(
          Kind.UNAVAILABLE,
          "metastore configuration change failed: a new peer made no progress while the leader"
              + " tried to catch it up (is it running, with settings naming this group?); the"
              + " configuration is unchanged "
              + target
              + " peer="
              + localId,
          c);
    }
    if (findCause(c, SetConfigurationException.class) != null) {
      return new LoamException(
          Kind.INVALID,
          "metastore configuration change refused by Ratis " + target + " peer=" + localId,
          c);
    }
    return new LoamException(
        Kind.OUTCOME_UNKNOWN,
        "metastore configuration change got no answer; it may be committed, call again with the"
            + " same target "
            + target
            + " cause="
            + (c == null ? "none" : c.getClass().getSimpleName())
            + " peer="
            + localId,
        c);
  }

  /** This replica's Raft server and group, for watchdog tests in this package. */
  RaftServer raftServer() {
    return server;
  }

  RaftGroupId raftGroupId() {
    return groupId;
  }

  /** The client for leadership transfers and membership changes, for tests in this package. */
  RaftClient adminClient() {
    return adminClient;
  }

  /** This replica's peer id. */
  public String peerId() {
    return ratis.localPeerId();
  }

  /** The settings this replica applies with. */
  public MetaSettings settings() {
    return settings;
  }

  /**
   * Completes with the failure that stopped this replica (fail-stop: an apply, snapshot or Raft log
   * write that failed), on the metastore's executor; never completes while the replica is healthy
   * or after a clean close. A host that runs the replica as its process's metastore stops or
   * restarts on it (a stopped replica neither votes nor accepts entries until restarted).
   */
  public CompletableFuture<LoamException> whenFailed() {
    return failed.copy();
  }

  /** The first failure that stopped this replica, if any. */
  public java.util.Optional<LoamException> failure() {
    return java.util.Optional.ofNullable(failure);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Names a reason when this replica is closed or stopped after a failure, or cannot reach a
   * metastore majority as far as it knows: a leader that is not ready (Ratis makes a leader step
   * down once it has not heard from a majority for the maximum RPC timeout), a candidate (an
   * election is running: no leader known), or a follower or listener that knows no leader or last
   * heard from it more than {@link #leaderSilenceBound()} ago. From the Ratis division's own state;
   * sends nothing.
   */
  @Override
  public java.util.Optional<String> unavailableReason() {
    LoamException refused = refusal();
    if (refused != null) {
      return java.util.Optional.of(refused.getMessage());
    }
    org.apache.ratis.server.DivisionInfo info;
    try {
      info = server.getDivision(groupId).getInfo();
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.of("metastore replica has not joined its group peer=" + localId);
    }
    if (info.isLeader()) {
      return info.isLeaderReady()
          ? java.util.Optional.empty()
          : java.util.Optional.of(
              "metastore leader not ready yet (it has not committed an entry of its term) peer="
                  + localId);
    }
    RaftPeerId leader = info.getLeaderId();
    if (info.isCandidate() || leader == null) {
      return java.util.Optional.of(
          "no metastore leader known (an election is running or no majority is reachable) peer="
              + localId);
    }
    long silentMillis = -1;
    try {
      var roleInfo = info.getRoleInfoProto();
      if (roleInfo.hasFollowerInfo() && roleInfo.getFollowerInfo().hasLeaderInfo()) {
        silentMillis = roleInfo.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
      }
    } catch (RuntimeException e) {
      LOG.debug("no role info peer={}", localId, e);
    }
    if (silentMillis > leaderSilenceBound().toMillis()) {
      return java.util.Optional.of(
          "metastore leader silent for "
              + silentMillis
              + " ms leader="
              + leader
              + " boundMillis="
              + leaderSilenceBound().toMillis()
              + " peer="
              + localId);
    }
    return java.util.Optional.empty();
  }

  /**
   * How long a follower may go without hearing from its leader before it reports no reachable
   * majority: two maximum election timeouts (a live leader sends a heartbeat at least every half
   * minimum election timeout; after one maximum election timeout the follower itself starts an
   * election).
   */
  public Duration leaderSilenceBound() {
    return ratis.electionTimeoutMax().multipliedBy(2);
  }

  /** Whether this replica is currently the Raft leader (a momentary view, for tools and tests). */
  public boolean isLeader() {
    try {
      return !closed && server.getDivision(groupId).getInfo().isLeader();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The id of the leader this replica knows of (a momentary view, for tools and tests), or empty
   * while it knows none: an election runs, or the replica is closed.
   */
  public java.util.Optional<String> leaderId() {
    return knownLeader().map(RaftPeerId::toString);
  }

  private java.util.Optional<RaftPeerId> knownLeader() {
    if (closed || server == null) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.ofNullable(server.getDivision(groupId).getInfo().getLeaderId());
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /** The Ratis log index of the newest durable snapshot on this replica, or -1. */
  public long latestSnapshotIndex() {
    return stateMachine.latestSnapshotIndex();
  }

  /** The Ratis log index of the last entry this replica applied (not a metastore index). */
  long lastAppliedLogIndex() {
    return stateMachine.getLastAppliedTermIndex().getIndex();
  }

  /** The first index still in this replica's Ratis log (it grows as the log is purged). */
  long logStartIndex() throws IOException {
    return server.getDivision(groupId).getRaftLog().getStartIndex();
  }

  /** {@code MetaStateMachine.snapshot()} of this replica's current state; for tests. */
  byte[] stateSnapshotBytes() {
    return stateMachine.snapshotBytes();
  }

  @Override
  public String toString() {
    return "RatisMetastore{peer=" + localId + ", appliedIndex=" + watch.appliedIndex() + "}";
  }

  // ---- the state machine's callbacks

  private final class HostImpl implements MetaRatisStateMachine.Host {
    @Override
    public void applied(long index, Command command, Outcome outcome) {
      watch.notifyApplied(
          index,
          command,
          outcome,
          // A listener's bug must not stop the replica; logged, never swallowed silently.
          (l, e) ->
              LOG.error(
                  "apply listener failed index={} listener={} peer={}", index, l, localId, e));
    }

    @Override
    public void appliedUpTo(long index) {
      List<CompletableFuture<Void>> ready = watch.advance(index);
      // Off the Ratis apply thread: a caller's continuation must not stall apply.
      ready.forEach(f -> complete(f, null));
    }

    @Override
    public void fatal(String what, Throwable cause) {
      stop(what, cause);
    }
  }

  /** Fail-stop: records the first failure, fails the waiters and completes {@link #whenFailed}. */
  private void stop(String what, Throwable cause) {
    LOG.error("metastore replica stopping: {} peer={}", what, localId, cause);
    LoamException err = new LoamException(Kind.UNAVAILABLE, what + " peer=" + localId, cause);
    synchronized (watch) {
      if (failure == null) {
        failure = err;
      }
    }
    failWaiters(err);
    complete(failed, failure);
  }

  private <T> void complete(CompletableFuture<T> f, T value) {
    try {
      executor.execute(() -> f.complete(value));
    } catch (RejectedExecutionException e) {
      f.complete(value);
    }
  }

  private void completeExceptionally(CompletableFuture<?> f, Throwable t) {
    try {
      executor.execute(() -> f.completeExceptionally(t));
    } catch (RejectedExecutionException e) {
      f.completeExceptionally(t);
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static <E extends Throwable> E findCause(Throwable t, Class<E> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  /** Where this replica keeps its state machine files (for docs and tests). */
  Path storageDir() {
    return ratis.storageDir();
  }
}
