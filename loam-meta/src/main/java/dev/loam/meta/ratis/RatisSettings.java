package dev.loam.meta.ratis;

import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The settings of one replica of a {@link RatisMetastore} (docs/design/metastore-ratis.md
 * "Configuration"). Plain validated values; build with {@link #builder}.
 *
 * @param localPeerId this replica's id: a key of {@code voters} or {@code listeners}
 * @param voters voting peers, id to {@code host:port} (the gRPC address of the peer); 1 to {@value
 *     #MAX_VOTERS}, normally 3 or 5. Every replica is started with the same map
 * @param listeners non-voting peers (Ratis listeners) that keep a full replica for local reads but
 *     never count towards a majority; id to {@code host:port}, disjoint from {@code voters}
 * @param storageDir this replica's directory: the Ratis log, its metadata and the snapshots
 * @param groupName names the Ratis group; every replica must use the same one (the group id is a
 *     name-based UUID of it)
 * @param electionTimeoutMin lower bound of the randomised election timeout
 * @param electionTimeoutMax upper bound of the randomised election timeout
 * @param requestTimeout one attempt of a proposal or a linearizable read
 * @param retryInterval the wait between two attempts
 * @param maxAttempts attempts of one proposal before it fails (with OUTCOME_UNKNOWN); the proposal
 *     therefore fails after at most {@code maxAttempts * (requestTimeout + retryInterval)}
 * @param maxInFlightProposals proposals sent but not yet answered; more fail with UNAVAILABLE
 * @param snapshotThresholdEntries a snapshot is taken once this many log entries were applied since
 *     the last one; the log is then purged up to it
 * @param logSegmentSizeBytes the Ratis log rolls to a new segment file at this size; only whole
 *     closed segments are purged after a snapshot
 * @param peerTls when present, every connection of this replica's Raft port (peer to peer, its own
 *     proposals and membership changes) is mutual TLS: this replica presents the certificate and
 *     key, and accepts only peers whose certificate chains to the settings' client CA, which is
 *     therefore required. A peer's certificate must also name the host of its address (a DNS or IP
 *     subject alternative name), as clients check it. Empty: plaintext, as any process that can
 *     reach the port may join the traffic (docs/security.md)
 */
public record RatisSettings(
    String localPeerId,
    Map<String, String> voters,
    Map<String, String> listeners,
    Path storageDir,
    String groupName,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    Duration retryInterval,
    int maxAttempts,
    int maxInFlightProposals,
    long snapshotThresholdEntries,
    long logSegmentSizeBytes,
    Optional<TlsSettings> peerTls) {

  /** Raft needs a majority of the voters; more than this only slows commits down. */
  public static final int MAX_VOTERS = 9;

  /** Bound of the retry budget (STYLE.md §9: no retry-forever). */
  public static final int MAX_ATTEMPTS_LIMIT = 1000;

  public RatisSettings {
    RatisSupport.require();
    Objects.requireNonNull(localPeerId, "localPeerId");
    Objects.requireNonNull(storageDir, "storageDir");
    Objects.requireNonNull(groupName, "groupName");
    voters = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(voters, "voters")));
    listeners =
        Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(listeners, "listeners")));
    if (voters.isEmpty() || voters.size() > MAX_VOTERS) {
      throw new IllegalArgumentException(
          "voters must hold 1.." + MAX_VOTERS + " peers voters=" + voters.size());
    }
    for (Map.Entry<String, String> e : voters.entrySet()) {
      checkPeer(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, String> e : listeners.entrySet()) {
      checkPeer(e.getKey(), e.getValue());
      if (voters.containsKey(e.getKey())) {
        throw new IllegalArgumentException(
            "a peer cannot be both a voter and a listener peer=" + e.getKey());
      }
    }
    if (!voters.containsKey(localPeerId) && !listeners.containsKey(localPeerId)) {
      throw new IllegalArgumentException(
          "localPeerId is neither a voter nor a listener localPeerId=" + localPeerId);
    }
    if (groupName.isEmpty()) {
      throw new IllegalArgumentException("groupName must not be empty");
    }
    positive(electionTimeoutMin, "electionTimeoutMin");
    positive(electionTimeoutMax, "electionTimeoutMax");
    positive(requestTimeout, "requestTimeout");
    Objects.requireNonNull(retryInterval, "retryInterval");
    if (retryInterval.isNegative()) {
      throw new IllegalArgumentException("retryInterval=" + retryInterval);
    }
    if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      // Ratis draws the timeout from [min, max); equal bounds make split votes likely.
      throw new IllegalArgumentException(
          "electionTimeoutMax must be > electionTimeoutMin electionTimeoutMin="
              + electionTimeoutMin
              + " electionTimeoutMax="
              + electionTimeoutMax);
    }
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
      throw new IllegalArgumentException("maxAttempts=" + maxAttempts);
    }
    if (maxInFlightProposals < 1 || maxInFlightProposals > 100_000) {
      throw new IllegalArgumentException("maxInFlightProposals=" + maxInFlightProposals);
    }
    if (snapshotThresholdEntries < 1) {
      throw new IllegalArgumentException("snapshotThresholdEntries=" + snapshotThresholdEntries);
    }
    if (logSegmentSizeBytes < 16 * 1024) {
      throw new IllegalArgumentException("logSegmentSizeBytes=" + logSegmentSizeBytes);
    }
    Objects.requireNonNull(peerTls, "peerTls");
    if (peerTls.isPresent() && !peerTls.get().requiresClientCertificate()) {
      throw new IllegalArgumentException(
          "peer TLS is mutual: give the CA the replicas' certificates chain to certificate="
              + peerTls.get().certificateChain());
    }
  }

  /** The host part of this replica's address: the one interface its Raft port binds. */
  public String bindHost() {
    String local = localIsVoter() ? voters.get(localPeerId) : listeners.get(localPeerId);
    String host = local.substring(0, local.lastIndexOf(':'));
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** The port part of this replica's address. */
  public int bindPort() {
    String local = localIsVoter() ? voters.get(localPeerId) : listeners.get(localPeerId);
    return Integer.parseInt(local.substring(local.lastIndexOf(':') + 1));
  }

  /** The same settings with another voter and listener configuration (validated as at start). */
  public RatisSettings withPeers(
      String peerId, Map<String, String> voters, Map<String, String> listeners) {
    return copy(peerId, voters, listeners, storageDir, peerTls);
  }

  /** The longest a proposal can take before it fails: every attempt timing out. */
  public Duration proposalTimeoutBound() {
    return requestTimeout.plus(retryInterval).multipliedBy(maxAttempts);
  }

  /** Whether this replica is a voter (else a listener). */
  public boolean localIsVoter() {
    return voters.containsKey(localPeerId);
  }

  /** The same settings for another replica of the same group (its own id and directory). */
  public RatisSettings forPeer(String peerId, Path dir) {
    return copy(peerId, voters, listeners, dir, peerTls);
  }

  /** The same settings with another peer TLS configuration (empty: plaintext). */
  public RatisSettings withPeerTls(Optional<TlsSettings> tls) {
    return copy(localPeerId, voters, listeners, storageDir, tls);
  }

  private RatisSettings copy(
      String peerId,
      Map<String, String> voterMap,
      Map<String, String> listenerMap,
      Path dir,
      Optional<TlsSettings> tls) {
    return new RatisSettings(
        peerId,
        voterMap,
        listenerMap,
        dir,
        groupName,
        electionTimeoutMin,
        electionTimeoutMax,
        requestTimeout,
        retryInterval,
        maxAttempts,
        maxInFlightProposals,
        snapshotThresholdEntries,
        logSegmentSizeBytes,
        tls);
  }

  /** A builder with the defaults listed in docs/design/metastore-ratis.md. */
  public static Builder builder(String localPeerId, Map<String, String> voters, Path storageDir) {
    return new Builder(localPeerId, voters, storageDir);
  }

  private static void checkPeer(String id, String address) {
    Objects.requireNonNull(id, "peer id");
    Objects.requireNonNull(address, "peer address");
    if (id.isEmpty()
        || !id.chars()
            .allMatch(
                c ->
                    c < 128
                        && (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.'))) {
      throw new IllegalArgumentException("peer id must be [A-Za-z0-9._-]+ peer=" + id);
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException(
          "peer address must be host:port peer=" + id + " address=" + address);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "peer address must be host:port peer=" + id + " address=" + address, e);
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "peer port out of range peer=" + id + " address=" + address);
    }
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + "=" + d);
    }
  }

  /** Builds {@link RatisSettings}; every setter has a default. */
  public static final class Builder {
    private final String localPeerId;
    private final Map<String, String> voters;
    private final Path storageDir;
    private Map<String, String> listeners = Map.of();
    private String groupName = "loam-meta";
    private Duration electionTimeoutMin = Duration.ofMillis(300);
    private Duration electionTimeoutMax = Duration.ofMillis(600);
    private Duration requestTimeout = Duration.ofSeconds(3);
    private Duration retryInterval = Duration.ofMillis(100);
    private int maxAttempts = 30;
    private int maxInFlightProposals = 1024;
    private long snapshotThresholdEntries = 100_000;
    private long logSegmentSizeBytes = 8L << 20;
    private Optional<TlsSettings> peerTls = Optional.empty();

    private Builder(String localPeerId, Map<String, String> voters, Path storageDir) {
      this.localPeerId = localPeerId;
      this.voters = voters;
      this.storageDir = storageDir;
    }

    public Builder listeners(Map<String, String> v) {
      this.listeners = v;
      return this;
    }

    public Builder groupName(String v) {
      this.groupName = v;
      return this;
    }

    public Builder electionTimeout(Duration min, Duration max) {
      this.electionTimeoutMin = min;
      this.electionTimeoutMax = max;
      return this;
    }

    public Builder requestTimeout(Duration v) {
      this.requestTimeout = v;
      return this;
    }

    public Builder retryInterval(Duration v) {
      this.retryInterval = v;
      return this;
    }

    public Builder maxAttempts(int v) {
      this.maxAttempts = v;
      return this;
    }

    public Builder maxInFlightProposals(int v) {
      this.maxInFlightProposals = v;
      return this;
    }

    public Builder snapshotThresholdEntries(long v) {
      this.snapshotThresholdEntries = v;
      return this;
    }

    public Builder logSegmentSizeBytes(long v) {
      this.logSegmentSizeBytes = v;
      return this;
    }

    /** Mutual TLS on the Raft port (see {@link RatisSettings#peerTls()}); default plaintext. */
    public Builder peerTls(TlsSettings v) {
      this.peerTls = Optional.of(v);
      return this;
    }

    public RatisSettings build() {
      return new RatisSettings(
          localPeerId,
          voters,
          listeners,
          storageDir,
          groupName,
          electionTimeoutMin,
          electionTimeoutMax,
          requestTimeout,
          retryInterval,
          maxAttempts,
          maxInFlightProposals,
          snapshotThresholdEntries,
          logSegmentSizeBytes,
          peerTls);
    }
  }
}
