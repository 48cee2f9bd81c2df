package dev.loam.spi.quorum;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Origin;
import dev.loam.spi.store.ObjectStore;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What a {@link QuorumHost} is started with.
 *
 * @param nodeId this node's id (its peer id in every journal)
 * @param address the {@code host:port} the journal server binds (only that host) and advertises
 * @param storageDir the journal server's directory (Raft logs and snapshots of every journal)
 * @param metastore the cluster's metastore, read for the placement and written for the endpoint
 * @param origin this node's origin (id, epoch, clock) for the commands the host proposes
 * @param scheduler the node's scheduler: only triggers work, never runs a blocking step
 * @param executor runs the blocking steps (adding a journal group) and completes journal futures
 * @param store the node's object store, where the sealers write segment objects
 * @param segments names those segments
 * @param maxUnsealedBytes per journal, the bound on unsealed batch bytes, or 0 for the journal
 *     default; it must be the same on every node, since the journals' apply depends on it
 * @param snapshotThresholdEntries a journal snapshot every this many applied entries, or 0 for the
 *     journal default
 * @param quietSealMillis a partition's non-empty journal tail is sealed, whatever its size, once it
 *     went this long without a seal, or 0 for {@link #DEFAULT_QUIET_SEAL}; else within {@link
 *     #MIN_QUIET_SEAL}..{@link #MAX_QUIET_SEAL}
 * @param peerTls when present, the journal port speaks mutual TLS with these files (it must require
 *     client certificates): every replica and every client of the port presents a certificate of
 *     the CA they name, and the files are re-read when they change
 */
public record QuorumHostContext(
    String nodeId,
    String address,
    Path storageDir,
    Metastore metastore,
    Supplier<Origin> origin,
    ScheduledExecutorService scheduler,
    Executor executor,
    ObjectStore store,
    SegmentNamer segments,
    long maxUnsealedBytes,
    long snapshotThresholdEntries,
    long quietSealMillis,
    Optional<TlsSettings> peerTls) {
  /**
   * The default quiet-seal interval, 10 minutes: retention trims sealed segments only, so this is
   * about how long a slowly written partition's records may outlive their retention in the journal,
   * while a busy partition, sealed by size, never waits for it; and a quiet partition costs at most
   * one small segment object and offset-index entry per interval.
   */
  public static final Duration DEFAULT_QUIET_SEAL = Duration.ofMinutes(10);

  /**
   * The shortest quiet-seal interval, 1 s: shorter would seal a slow partition into one tiny
   * segment (an object and an offset-index entry) per few records, faster than the seal agent's
   * passes and the metastore are meant to run.
   */
  public static final Duration MIN_QUIET_SEAL = Duration.ofSeconds(1);

  /**
   * The longest quiet-seal interval, 1 day: longer would keep a quiet partition's records in the
   * journal, unsealed and untrimmed, for longer than any retention setting expects.
   */
  public static final Duration MAX_QUIET_SEAL = Duration.ofDays(1);

  /**
   * @throws LoamException INVALID naming {@code quietSealMillis} when it is out of range
   */
  public QuorumHostContext {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(storageDir, "storageDir");
    Objects.requireNonNull(metastore, "metastore");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(segments, "segments");
    Objects.requireNonNull(peerTls, "peerTls");
    checkQuietSeal(quietSealMillis);
  }

  /** The quiet-seal interval in milliseconds, the default when none was given. */
  public long effectiveQuietSealMillis() {
    return quietSealMillis == 0 ? DEFAULT_QUIET_SEAL.toMillis() : quietSealMillis;
  }

  /**
   * Checks a quiet-seal interval: 0 (the default) or within {@link #MIN_QUIET_SEAL}..{@link
   * #MAX_QUIET_SEAL}.
   *
   * @throws LoamException INVALID naming {@code quietSealMillis} and the range otherwise
   */
  public static void checkQuietSeal(long quietSealMillis) {
    if (quietSealMillis != 0
        && (quietSealMillis < MIN_QUIET_SEAL.toMillis()
            || quietSealMillis > MAX_QUIET_SEAL.toMillis())) {
      throw new LoamException(
          Kind.INVALID,
          "the journal quiet-seal interval must be within "
              + MIN_QUIET_SEAL.toMillis()
              + ".."
              + MAX_QUIET_SEAL.toMillis()
              + " ms quietSealMillis="
              + quietSealMillis);
    }
  }
}
