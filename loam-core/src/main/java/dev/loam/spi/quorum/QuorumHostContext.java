package dev.loam.spi.quorum;

import dev.loam.meta.Metastore;
import dev.loam.meta.command.Origin;
import dev.loam.spi.store.ObjectStore;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
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
    Optional<TlsSettings> peerTls) {
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
  }
}
