package dev.loam.journal.ratis;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A node's journal server settings. Validated at construction; every duration positive.
 *
 * @param nodeId this node's replica id in every journal it hosts ({@code [A-Za-z0-9._-]+})
 * @param address {@code host:port} the journal Raft port binds (only that host) and advertises
 * @param storageDir the Raft logs and snapshots of every journal: {@code <dir>/<group uuid>/…}
 * @param electionTimeoutMin the low end of the randomised election timeout (300 ms)
 * @param electionTimeoutMax the high end (600 ms): failover takes about this plus a round trip
 * @param requestTimeout one attempt of a proposal (1 s)
 * @param retryInterval between attempts (50 ms)
 * @param maxAttempts attempts per proposal (60): with the above, a proposal gives up after about a
 *     minute without a leader, as OUTCOME_UNKNOWN
 * @param maxUnsealedBytes per journal, the bound on unsealed batch bytes (256 MiB); identical on
 *     every replica of a journal
 * @param snapshotThresholdEntries a snapshot every this many applied log entries (10 000)
 * @param logSegmentSizeBytes Ratis log segment size (8 MiB)
 * @param peerTls when present, every connection of the journal port (replica to replica, and this
 *     node's clients) speaks mutual TLS with these files; it must require client certificates
 */
public record JournalSettings(
    String nodeId,
    String address,
    Path storageDir,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    Duration retryInterval,
    int maxAttempts,
    long maxUnsealedBytes,
    long snapshotThresholdEntries,
    long logSegmentSizeBytes,
    Optional<TlsSettings> peerTls) {

  /**
   * @throws LoamException INVALID naming the setting that is out of range
   */
  public JournalSettings {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(storageDir, "storageDir");
    Objects.requireNonNull(peerTls, "peerTls");
    if (peerTls.isPresent() && !peerTls.get().requiresClientCertificate()) {
      throw new LoamException(
          Kind.INVALID,
          "journal peer TLS must require client certificates (mutual TLS) certificate="
              + peerTls.get().certificateChain());
    }
    if (!nodeId.matches("[A-Za-z0-9._-]{1,128}")) {
      throw new LoamException(Kind.INVALID, "journal nodeId is malformed nodeId=" + nodeId);
    }
    parseAddress(address, "journal address");
    positive(electionTimeoutMin, "electionTimeoutMin");
    positive(electionTimeoutMax, "electionTimeoutMax");
    positive(requestTimeout, "requestTimeout");
    positive(retryInterval, "retryInterval");
    if (electionTimeoutMax.compareTo(electionTimeoutMin) < 0) {
      throw new LoamException(
          Kind.INVALID,
          "electionTimeoutMax must be >= electionTimeoutMin min="
              + electionTimeoutMin
              + " max="
              + electionTimeoutMax);
    }
    if (maxAttempts < 1 || maxAttempts > 10_000) {
      throw new LoamException(
          Kind.INVALID, "maxAttempts must be 1..10000 maxAttempts=" + maxAttempts);
    }
    if (maxUnsealedBytes < 1 << 20) {
      throw new LoamException(
          Kind.INVALID, "maxUnsealedBytes must be >= 1 MiB maxUnsealedBytes=" + maxUnsealedBytes);
    }
    if (snapshotThresholdEntries < 1) {
      throw new LoamException(
          Kind.INVALID, "snapshotThresholdEntries must be >= 1 n=" + snapshotThresholdEntries);
    }
    if (logSegmentSizeBytes < 64 << 10) {
      throw new LoamException(
          Kind.INVALID, "logSegmentSizeBytes must be >= 64 KiB n=" + logSegmentSizeBytes);
    }
  }

  /** The defaults above for one node. */
  public static JournalSettings defaults(String nodeId, String address, Path storageDir) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        Duration.ofMillis(300),
        Duration.ofMillis(600),
        Duration.ofSeconds(1),
        Duration.ofMillis(50),
        60,
        256L << 20,
        10_000,
        8L << 20,
        Optional.empty());
  }

  /** These settings with another election timeout range. */
  public JournalSettings withElectionTimeout(Duration min, Duration max) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        min,
        max,
        requestTimeout,
        retryInterval,
        maxAttempts,
        maxUnsealedBytes,
        snapshotThresholdEntries,
        logSegmentSizeBytes,
        peerTls);
  }

  /** These settings with another snapshot threshold. */
  public JournalSettings withSnapshotThresholdEntries(long n) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        electionTimeoutMin,
        electionTimeoutMax,
        requestTimeout,
        retryInterval,
        maxAttempts,
        maxUnsealedBytes,
        n,
        logSegmentSizeBytes,
        peerTls);
  }

  /** These settings with another bound on unsealed bytes. */
  public JournalSettings withMaxUnsealedBytes(long n) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        electionTimeoutMin,
        electionTimeoutMax,
        requestTimeout,
        retryInterval,
        maxAttempts,
        n,
        snapshotThresholdEntries,
        logSegmentSizeBytes,
        peerTls);
  }

  /** These settings with another Raft log segment size. */
  public JournalSettings withLogSegmentSizeBytes(long n) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        electionTimeoutMin,
        electionTimeoutMax,
        requestTimeout,
        retryInterval,
        maxAttempts,
        maxUnsealedBytes,
        snapshotThresholdEntries,
        n,
        peerTls);
  }

  /** These settings with another proposal retry budget. */
  public JournalSettings withRetries(Duration requestTimeout, int maxAttempts) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        electionTimeoutMin,
        electionTimeoutMax,
        requestTimeout,
        retryInterval,
        maxAttempts,
        maxUnsealedBytes,
        snapshotThresholdEntries,
        logSegmentSizeBytes,
        peerTls);
  }

  /** These settings with mutual TLS on the journal port. */
  public JournalSettings withPeerTls(TlsSettings tls) {
    return new JournalSettings(
        nodeId,
        address,
        storageDir,
        electionTimeoutMin,
        electionTimeoutMax,
        requestTimeout,
        retryInterval,
        maxAttempts,
        maxUnsealedBytes,
        snapshotThresholdEntries,
        logSegmentSizeBytes,
        Optional.of(tls));
  }

  /** The host part of {@link #address}. */
  String bindHost() {
    return address.substring(0, address.lastIndexOf(':'));
  }

  /** The port part of {@link #address}. */
  int bindPort() {
    return parseAddress(address, "journal address");
  }

  /** An upper bound on one proposal's retries: attempts × (timeout + interval). */
  Duration proposalTimeoutBound() {
    return requestTimeout.plus(retryInterval).multipliedBy(maxAttempts);
  }

  /** Returns the port of {@code host:port}; INVALID naming {@code what} otherwise. */
  static int parseAddress(String address, String what) {
    int colon = address.lastIndexOf(':');
    int port = -1;
    if (colon > 0) {
      try {
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (port < 1 || port > 65535) {
      throw new LoamException(
          Kind.INVALID, what + " must be host:port with a port 1..65535 address=" + address);
    }
    return port;
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new LoamException(Kind.INVALID, name + " must be positive " + name + "=" + d);
    }
  }
}
